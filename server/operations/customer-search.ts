// The console's one search field (OPERATIONS.md): an e-mail or username prefix (case-insensitive),
// a user id, an API key ("gpk_…", whole or its start), an invoice number ("INV-…") or a provider
// customer id ("cus_…"). Twenty a page, newest account first, with a keyset cursor; each row shows
// the plan and the balance, read for the page's users in two statements.
import { and, desc, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { CustomerRow } from "../../contract/admin.ts";
import { canonicalUuid, isUserId } from "../accounts/users.ts";
import { searchedApiKeyId } from "../api-access/key-format.ts";
import { GRANT_COLUMNS, toCreditGrant } from "../billing/ledger-store.ts";
import { LIVE_STATUSES, STATE_COLUMNS, stateFromRow } from "../billing/subscription-store.ts";
import { billingAt } from "../billing/user-billing.ts";
import {
  apiKeys,
  billingCustomers,
  creditGrants,
  invoices,
  organizations,
  subscriptions,
  users,
} from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import type { CreditGrant } from "../domain/ledger.ts";
import type { TierLookup } from "../domain/subscription.ts";

export const SEARCH_PAGE_SIZE = 20;
const QUERY_MAX = 200;

/** LIKE's wildcards taken literally: a prefix search for "ann_" finds "ann_…" only. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Keys whose id starts with `keyId` (the part of a key the search was given). */
const keyIdLike = (keyId: string) => sql`${apiKeys.id} like ${`${escapeLike(keyId)}%`}`;

/** What of `q` the search reads: trimmed, and no longer than QUERY_MAX. */
const searchText = (q: string) => q.trim().slice(0, QUERY_MAX);

/** The condition on users that `q` stands for; undefined for an empty query (every customer). */
export function searchCondition(q: string): SQL | undefined {
  const text = searchText(q);
  if (text === "") return undefined;
  const id = canonicalUuid(text);
  if (isUserId(id)) return eq(users.id, id);
  const keyId = searchedApiKeyId(text);
  if (keyId !== undefined) {
    // The member who made the key: a personal key's owner, or for a team organisation's key the
    // customer who quotes it (its user_id is the organisation's). A key of the previous version
    // has no created_by and is its personal organisation's, whose id is its user's.
    return sql`${users.id} in (select coalesce(${apiKeys.createdBy}, ${apiKeys.userId}) from ${apiKeys} where ${keyIdLike(keyId)})`;
  }
  if (/^INV-/i.test(text)) {
    return sql`${users.id} in (select ${invoices.userId} from ${invoices} where ${invoices.number} = ${text.toUpperCase()})`;
  }
  if (text.startsWith("cus_")) {
    return sql`${users.id} in (select ${billingCustomers.userId} from ${billingCustomers} where ${billingCustomers.customerId} = ${text})`;
  }
  const prefix = `${escapeLike(text.toLowerCase())}%`;
  return or(sql`lower(${users.email}) like ${prefix}`, sql`lower(${users.username}) like ${prefix}`);
}

/** The cursor of a page's last row: its creation time and id, base64url. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString("base64url");
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } | undefined {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const createdAt = new Date(at ?? "");
  if (!id || !isUserId(id) || Number.isNaN(createdAt.getTime())) return undefined;
  return { createdAt, id };
}

export async function searchCustomers(
  db: DbOrTx,
  q: string,
  cursor: string | undefined,
  now: Date,
  tiers: TierLookup,
): Promise<{ data: CustomerRow[]; next_cursor: string | null }> {
  const after = cursor ? decodeCursor(cursor) : undefined;
  const conditions = [searchCondition(q)];
  if (after) {
    conditions.push(
      sql`(${users.createdAt}, ${users.id}) < (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`,
    );
  }
  const rows = await db
    .select({
      id: users.id,
      username: users.username,
      email: users.email,
      role: users.role,
      createdAt: users.createdAt,
      disabledAt: users.disabledAt,
    })
    .from(users)
    .where(and(...conditions))
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(SEARCH_PAGE_SIZE + 1);
  const page = rows.slice(0, SEARCH_PAGE_SIZE);
  const ids = page.map((r) => r.id);
  const keyId = searchedApiKeyId(searchText(q));
  const [billing, orgKeys] = await Promise.all([
    billingOf(db, ids),
    keyId === undefined ? undefined : teamKeysMadeBy(db, keyId, ids),
  ]);
  const last = page.at(-1);
  return {
    data: page.map((r) => {
      const { grants, state } = billing.get(r.id) ?? { grants: [], state: stateFromRow(null) };
      const at = billingAt(grants, state, now, tiers);
      return {
        id: r.id,
        username: r.username,
        email: r.email,
        role: r.role,
        plan: at.subscription?.plan ?? "FREE",
        credit_balance: at.credit_balance,
        created_at: r.createdAt.toISOString(),
        disabled: r.disabledAt !== null,
        ...(orgKeys ? { org_keys: orgKeys.get(r.id) ?? [] } : {}),
      };
    }),
    next_cursor: rows.length > SEARCH_PAGE_SIZE && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}

/**
 * The team organisations' keys starting with `keyId` that each of `ids` made: what a search by a
 * key shows beside the member, so staff see whose balance the key spends (the prefix only).
 */
async function teamKeysMadeBy(db: DbOrTx, keyId: string, ids: string[]) {
  const result = new Map<string, NonNullable<CustomerRow["org_keys"]>>();
  if (ids.length === 0) return result;
  const rows = await db
    .select({
      madeBy: apiKeys.createdBy,
      prefix: apiKeys.prefix,
      orgId: organizations.id,
      orgName: organizations.name,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.userId))
    .where(and(keyIdLike(keyId), eq(organizations.personal, false), inArray(apiKeys.createdBy, ids)))
    .orderBy(apiKeys.createdAt, apiKeys.id);
  for (const r of rows) {
    if (r.madeBy === null) continue;
    const list = result.get(r.madeBy) ?? [];
    list.push({ prefix: r.prefix, org_id: r.orgId, org_name: r.orgName });
    result.set(r.madeBy, list);
  }
  return result;
}

/** The grants and live subscription of each of `ids` (billing accounts): two statements for the whole page. */
export async function billingOf(db: DbOrTx, ids: string[]) {
  const result = new Map<string, { grants: CreditGrant[]; state: ReturnType<typeof stateFromRow> }>();
  if (ids.length === 0) return result;
  const [grants, subs] = await Promise.all([
    db
      .select({ ...GRANT_COLUMNS, userId: creditGrants.userId })
      .from(creditGrants)
      .where(and(inArray(creditGrants.userId, ids), sql`${creditGrants.remaining} > 0`)),
    db
      .select({ ...STATE_COLUMNS, userId: subscriptions.userId })
      .from(subscriptions)
      .where(and(inArray(subscriptions.userId, ids), inArray(subscriptions.status, [...LIVE_STATUSES]))),
  ]);
  for (const id of ids) result.set(id, { grants: [], state: stateFromRow(null) });
  for (const g of grants) result.get(g.userId)?.grants.push(toCreditGrant(g));
  for (const s of subs) {
    const entry = result.get(s.userId);
    if (entry) entry.state = stateFromRow(s);
  }
  return result;
}
