// The customer's API keys in the database: creation (at most 20 live keys per user, counted under
// the user's row lock so two parallel creations cannot both take the 20th place), the list with
// each key's spend this month, revocation, and the lookup that authenticates a key.
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { API_KEY_LIMIT_PER_USER } from "../../contract/api-key-rules.ts";
import { lockUser, NEWEST_GRANT_FIRST } from "../billing/ledger-store.ts";
import {
  collectUserWithBilling,
  liveSubscriptionOf,
  USER_WITH_BILLING_COLUMNS,
  type UserWithBilling,
} from "../billing/user-billing.ts";
import { preparedPerHandle } from "../db/prepared.ts";
import {
  type ApiKeyRow,
  apiKeys,
  apiKeyUsage,
  creditGrants,
  subscriptions,
  users,
} from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { berlinMonth } from "../domain/berlin-time.ts";
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
  | { ok: false; reason: "limit" | "no_user" };

export async function createApiKey(
  db: DbOrTx,
  userId: string,
  input: NewApiKey,
  now: Date,
): Promise<CreateKeyResult> {
  return db.transaction(async (tx) => {
    if (!(await lockUser(tx, userId))) return { ok: false, reason: "no_user" } as const;
    const [live] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
    if ((live?.count ?? 0) >= API_KEY_LIMIT_PER_USER) return { ok: false, reason: "limit" } as const;
    const generated = generateKey("api");
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: generated.id,
        userId,
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
 * The user's live (not revoked) keys, newest first, each with its milli-credits spent this Berlin
 * month; the revoked ones too for `includeRevoked` (the operator console).
 */
export async function listApiKeys(
  db: DbOrTx,
  userId: string,
  now: Date,
  { includeRevoked = false } = {},
): Promise<Array<{ row: ApiKeyRow; usedThisMonth: number }>> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(
      includeRevoked
        ? eq(apiKeys.userId, userId)
        : and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)),
    )
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
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
  return rows.map((row) => ({ row, usedThisMonth: byKey.get(row.id) ?? 0 }));
}

/** Revokes the user's key; false when the user has no such live key (another user's key included). */
/** Revokes the user's live key `keyId`; the key as it was, or undefined when there is no such live key. */
export async function revokeApiKey(
  db: DbOrTx,
  userId: string,
  keyId: string,
  now: Date,
): Promise<Pick<ApiKeyRow, "id" | "prefix" | "name"> | undefined> {
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id, prefix: apiKeys.prefix, name: apiKeys.name });
  return revoked;
}

/** Revokes every live key of the user (after a password reset, say); how many there were. */
export async function revokeAllApiKeys(db: DbOrTx, userId: string, now: Date): Promise<number> {
  const revoked = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return revoked.length;
}

/** The user's keys that still work at `now`, as a security mail lists them. */
export async function usableApiKeys(db: DbOrTx, userId: string, now: Date): Promise<ApiKeyRow[]> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
  return rows.filter((row) => isUsableApiKey(row, now));
}

/** Not revoked and not expired at `now`. */
export function isUsableApiKey(row: ApiKeyRow, now: Date): boolean {
  return row.revokedAt === null && (row.expiresAt === null || row.expiresAt.getTime() > now.getTime());
}

// Introspection's one read: the key, its user with their billing, and the key's usage this month.
const keyWithHolderQuery = preparedPerHandle((db) =>
  db
    .select({ ...USER_WITH_BILLING_COLUMNS, key: apiKeys, used: apiKeyUsage.amount })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .leftJoin(creditGrants, eq(creditGrants.userId, users.id))
    .leftJoin(subscriptions, liveSubscriptionOf(users.id))
    .leftJoin(
      apiKeyUsage,
      and(eq(apiKeyUsage.apiKeyId, apiKeys.id), eq(apiKeyUsage.month, sql.placeholder("month"))),
    )
    .where(eq(apiKeys.id, sql.placeholder("id")))
    .orderBy(...NEWEST_GRANT_FIRST)
    .prepare("api_key_with_holder"),
);

export interface KeyWithHolder {
  key: ApiKeyRow;
  holder: UserWithBilling;
  /** Milli-credits charged with the key this Berlin month. */
  usedThisMonth: number;
}

/**
 * A presented API key (the whole key text) that is genuine and usable at `now`, with its user and
 * their billing and the key's spend this month: one statement.
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
  // A disabled account's keys are inactive until staff enable it again (they are not revoked).
  if (first.user.disabledAt !== null) return undefined;
  const holder = collectUserWithBilling(rows);
  return holder && { key: first.key, holder, usedThisMonth: first.used ?? 0 };
}
