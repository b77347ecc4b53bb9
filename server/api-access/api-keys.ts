// The API keys of organisations in the database: creation (at most 20 live keys per member in an
// organisation and 200 per organisation, counted under the organisation's row lock so two parallel
// creations cannot both take the last place), the list with each key's spend this month,
// revocation, and the lookup that authenticates a key. A key's `userId` is the organisation it
// spends (decision 027); `createdBy` is the member who made it.
import { and, desc, eq, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import { API_KEY_LIMIT_PER_USER } from "../../contract/api-key-rules.ts";
import { ORG_KEY_MAX } from "../../contract/org-messages.ts";
import { can } from "../../contract/org-roles.ts";
import { GRANT_COLUMNS, NEWEST_GRANT_FIRST, toCreditGrant } from "../billing/ledger-store.ts";
import { STATE_COLUMNS, stateFromRow } from "../billing/subscription-store.ts";
import { liveSubscriptionOf } from "../billing/user-billing.ts";
import { preparedPerHandle } from "../db/prepared.ts";
import {
  type ApiKeyRow,
  apiKeys,
  apiKeyUsage,
  creditGrants,
  memberCreditUsage,
  organizationMembers,
  organizations,
  subscriptions,
  users,
} from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { berlinMonth } from "../domain/berlin-time.ts";
import type { CreditGrant } from "../domain/ledger.ts";
import type { SubscriptionState } from "../domain/subscription.ts";
import { generateKey, keyMatches, parseKey } from "./key-format.ts";

const DAY_MS = 86_400_000;

export interface NewApiKey {
  name: string;
  expiresInDays: number | null;
  /** Milli-credits per Berlin month, or null. */
  monthlyCreditLimit: number | null;
  features: string[] | null;
}

export type CreateKeyResult =
  | { ok: true; row: ApiKeyRow; key: string }
  /** `limit`: the member's 20; `org_limit`: the organisation's 200. */
  | { ok: false; reason: "limit" | "org_limit" | "no_user" | "not_allowed" };

/** Who makes a key, and for which organisation. */
export interface KeyOwner {
  orgId: string;
  createdBy: string;
  /** A shared key (owners only; the route checks the role). */
  shared?: boolean;
}

/** The member who made a key: a key of the previous version has no creator and is its user's. */
const creatorOf = sql`coalesce(${apiKeys.createdBy}, ${apiKeys.userId})`;

export async function createApiKey(
  db: DbOrTx,
  owner: KeyOwner,
  input: NewApiKey,
  now: Date,
): Promise<CreateKeyResult> {
  const { orgId, createdBy } = owner;
  return db.transaction(async (tx) => {
    const [org] = await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(and(eq(organizations.id, orgId), isNull(organizations.deletedAt)))
      .for("no key update");
    if (!org) return { ok: false, reason: "no_user" } as const;
    // The caller's role as it is now, under the organisation's lock: a member demoted or removed
    // since the request began makes no key (a role change takes the same lock).
    const [membership] = await tx
      .select({ role: organizationMembers.role })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, createdBy)));
    if (!membership || !can(membership.role, owner.shared ? "makeSharedKeys" : "ownKeys")) {
      return { ok: false, reason: "not_allowed" } as const;
    }
    const [live] = await tx
      .select({
        all: sql<number>`count(*)::int`,
        mine: sql<number>`(count(*) filter (where ${creatorOf} = ${createdBy} and not ${apiKeys.shared}))::int`,
      })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, orgId), isNull(apiKeys.revokedAt)));
    if (!owner.shared && (live?.mine ?? 0) >= API_KEY_LIMIT_PER_USER) {
      return { ok: false, reason: "limit" } as const;
    }
    if ((live?.all ?? 0) >= ORG_KEY_MAX) return { ok: false, reason: "org_limit" } as const;
    const generated = generateKey("api");
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: generated.id,
        userId: orgId,
        createdBy,
        shared: owner.shared ?? false,
        name: input.name,
        prefix: generated.prefix,
        secretHash: generated.hash,
        monthlyCreditLimit: input.monthlyCreditLimit,
        features: input.features ? [...new Set(input.features)] : null,
        createdAt: now,
        expiresAt:
          input.expiresInDays === null ? null : new Date(now.getTime() + input.expiresInDays * DAY_MS),
      })
      .returning();
    return { ok: true, row: row as ApiKeyRow, key: generated.key } as const;
  });
}

/**
 * Which of an organisation's keys a member sees and manages (ORGANISATIONS.md's role table): every
 * key, every key but the shared ones, or the keys they made.
 */
export type KeyScope = { kind: "all" } | { kind: "not_shared" } | { kind: "own"; userId: string };

function scopeCondition(scope: KeyScope): SQL | undefined {
  if (scope.kind === "all") return undefined;
  if (scope.kind === "not_shared") return eq(apiKeys.shared, false);
  return and(sql`${creatorOf} = ${scope.userId}`, eq(apiKeys.shared, false));
}

/**
 * The organisation's live (not revoked) keys in `scope`, newest first, each with its milli-credits
 * spent this Berlin month and its creator's username; the revoked ones too for `includeRevoked`
 * (the operator console, the account export).
 */
export async function listApiKeys(
  db: DbOrTx,
  orgId: string,
  now: Date,
  { includeRevoked = false, scope = { kind: "all" } as KeyScope } = {},
): Promise<Array<{ row: ApiKeyRow; usedThisMonth: number; creator: string | null }>> {
  const found = await db
    .select({ row: apiKeys, creator: users.username })
    .from(apiKeys)
    .leftJoin(users, sql`${users.id} = ${creatorOf}`)
    .where(
      and(
        eq(apiKeys.userId, orgId),
        includeRevoked ? undefined : isNull(apiKeys.revokedAt),
        scopeCondition(scope),
      ),
    )
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const rows = found.map((f) => f.row);
  const creators = new Map(found.map((f) => [f.row.id, f.creator]));
  if (rows.length === 0) return [];
  const used = await db
    .select({ keyId: apiKeyUsage.apiKeyId, amount: apiKeyUsage.amount })
    .from(apiKeyUsage)
    .where(
      and(
        inArray(
          apiKeyUsage.apiKeyId,
          rows.map((r) => r.id),
        ),
        eq(apiKeyUsage.month, berlinMonth(now)),
      ),
    );
  const byKey = new Map(used.map((u) => [u.keyId, u.amount]));
  return rows.map((row) => ({
    row,
    usedThisMonth: byKey.get(row.id) ?? 0,
    creator: creators.get(row.id) ?? null,
  }));
}

/**
 * Revokes the organisation's live key `keyId` if it is in `scope`; the key as it was, or undefined
 * when there is no such live key (another organisation's key included).
 */
export async function revokeApiKey(
  db: DbOrTx,
  orgId: string,
  keyId: string,
  now: Date,
  scope: KeyScope = { kind: "all" },
): Promise<Pick<ApiKeyRow, "id" | "prefix" | "name"> | undefined> {
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(
      and(eq(apiKeys.id, keyId), eq(apiKeys.userId, orgId), isNull(apiKeys.revokedAt), scopeCondition(scope)),
    )
    .returning({ id: apiKeys.id, prefix: apiKeys.prefix, name: apiKeys.name });
  return revoked;
}

/** The keys a member made: in every organisation, shared ones included (they made them too). */
export const madeBy = (userId: string) =>
  or(eq(apiKeys.createdBy, userId), and(isNull(apiKeys.createdBy), eq(apiKeys.userId, userId)));

/**
 * Revokes every live key the user made, in every organisation (after a password reset, say: "Revoke
 * all API keys" ignores X-Organization); the keys revoked, with their organisation.
 */
export async function revokeAllApiKeys(
  db: DbOrTx,
  userId: string,
  now: Date,
): Promise<Pick<ApiKeyRow, "id" | "prefix" | "name" | "userId">[]> {
  return db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(madeBy(userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id, prefix: apiKeys.prefix, name: apiKeys.name, userId: apiKeys.userId });
}

/**
 * The keys the user made that still work at `now`, in every organisation, each named with its
 * organisation (null: personal), as a security mail lists them.
 */
export async function usableApiKeys(
  db: DbOrTx,
  userId: string,
  now: Date,
): Promise<(ApiKeyRow & { orgName: string | null })[]> {
  const rows = await db
    .select({ key: apiKeys, orgName: organizations.name })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.userId))
    .where(and(madeBy(userId), isNull(apiKeys.revokedAt)));
  return rows.filter((r) => isUsableApiKey(r.key, now)).map((r) => ({ ...r.key, orgName: r.orgName }));
}

/** Not revoked and not expired at `now`. */
export function isUsableApiKey(row: Pick<ApiKeyRow, "revokedAt" | "expiresAt">, now: Date): boolean {
  return row.revokedAt === null && (row.expiresAt === null || row.expiresAt.getTime() > now.getTime());
}

/**
 * The key's columns introspection reads. Not the whole row: the read repeats the key on every
 * grant's row, and mapping the unused columns (name, prefix, dates) cost about 15 µs of the call's
 * CPU (issue 35), which is what bounds introspect.
 */
const INTROSPECTED_KEY_COLUMNS = {
  id: apiKeys.id,
  shared: apiKeys.shared,
  secretHash: apiKeys.secretHash,
  monthlyCreditLimit: apiKeys.monthlyCreditLimit,
  features: apiKeys.features,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
};
type IntrospectedKey = Pick<ApiKeyRow, keyof typeof INTROSPECTED_KEY_COLUMNS>;

// Introspection's one read: the key, its organisation with its billing, the member who made it,
// and the key's and the member's usage this month.
const keyWithHolderQuery = preparedPerHandle((db) =>
  db
    .select({
      key: INTROSPECTED_KEY_COLUMNS,
      org: {
        id: organizations.id,
        name: organizations.name,
        personal: organizations.personal,
        disabledAt: organizations.disabledAt,
        deletedAt: organizations.deletedAt,
      },
      creator: { id: users.id, username: users.username, disabledAt: users.disabledAt },
      member: { userId: organizationMembers.userId, cap: organizationMembers.monthlyCreditCap },
      memberUsed: memberCreditUsage.amount,
      grant: GRANT_COLUMNS,
      subscription: STATE_COLUMNS,
      used: apiKeyUsage.amount,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.userId))
    .leftJoin(users, sql`${users.id} = ${creatorOf}`)
    .leftJoin(
      organizationMembers,
      and(eq(organizationMembers.orgId, apiKeys.userId), sql`${organizationMembers.userId} = ${creatorOf}`),
    )
    .leftJoin(
      memberCreditUsage,
      and(
        eq(memberCreditUsage.orgId, apiKeys.userId),
        sql`${memberCreditUsage.userId} = ${creatorOf}`,
        eq(memberCreditUsage.month, sql.placeholder("month")),
      ),
    )
    .leftJoin(creditGrants, eq(creditGrants.userId, apiKeys.userId))
    .leftJoin(subscriptions, liveSubscriptionOf(apiKeys.userId))
    .leftJoin(
      apiKeyUsage,
      and(eq(apiKeyUsage.apiKeyId, apiKeys.id), eq(apiKeyUsage.month, sql.placeholder("month"))),
    )
    .where(eq(apiKeys.id, sql.placeholder("id")))
    .orderBy(...NEWEST_GRANT_FIRST)
    .prepare("api_key_with_holder"),
);

export interface KeyWithHolder {
  key: IntrospectedKey;
  org: { id: string; name: string | null; personal: boolean };
  /** The member who made the key; null for a shared key. */
  member: { id: string; username: string; cap: number | null; usedThisMonth: number } | null;
  grants: CreditGrant[];
  subscription: SubscriptionState;
  /** Milli-credits charged with the key this Berlin month. */
  usedThisMonth: number;
}

/**
 * A presented API key (the whole key text) that is genuine and usable at `now`, with its
 * organisation and its billing, its member, and the key's spend this month: one statement. A key is
 * inactive (not revoked) while its organisation or its creator is disabled, and a member's key once
 * the member has left (the removal revokes it too).
 */
export async function authenticateApiKeyWithHolder(
  db: DbOrTx,
  key: string,
  now: Date,
): Promise<KeyWithHolder | undefined> {
  const parsed = parseKey(key);
  if (parsed?.kind !== "api") return undefined;
  const rows = await keyWithHolderQuery(db).execute({ id: parsed.id, month: berlinMonth(now) });
  const first = rows[0];
  if (!first || !isUsableApiKey(first.key, now) || !keyMatches(key, first.key.secretHash)) return undefined;
  const { org, creator, member } = first;
  if (org.disabledAt !== null || org.deletedAt !== null || !creator) return undefined;
  // A member's key stops when they leave or staff disable them; a shared key goes on.
  if (!first.key.shared && (creator.disabledAt !== null || member?.userId == null)) return undefined;
  const grants = new Map<string, CreditGrant>();
  for (const { grant } of rows)
    if (grant && !grants.has(grant.id)) grants.set(grant.id, toCreditGrant(grant));
  return {
    key: first.key,
    org: { id: org.id, name: org.name, personal: org.personal },
    member: first.key.shared
      ? null
      : {
          id: creator.id,
          username: creator.username,
          cap: member?.cap ?? null,
          usedThisMonth: first.memberUsed ?? 0,
        },
    grants: [...grants.values()],
    subscription: stateFromRow(first.subscription),
    usedThisMonth: first.used ?? 0,
  };
}
