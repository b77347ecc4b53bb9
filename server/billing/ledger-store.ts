// The credit ledger in the database: grants inserted once per fulfilment key, read newest first,
// and the paying organisation's row lock everything that changes a user's credits takes (spends: spends.ts).
import { randomUUID } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { isUserId } from "../accounts/users.ts";
import { preparedPerHandle } from "../db/prepared.ts";
import { creditGrants, memberCreditUsage, organizations } from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";
import type { ReservableGrant } from "../domain/credit-leases.ts";
import type { CreditGrant, NewGrant } from "../domain/ledger.ts";

export interface GrantOrigin {
  /** The provider object that carried the payment (cs_…, in_…, sub_…), null for free credits. */
  paymentReference: string | null;
  eventId: string | null;
}

/** Inserts a grant unless its fulfilment key is already in the ledger; true when it was inserted. */
export async function insertGrant(tx: DbOrTx, userId: string, grant: NewGrant, origin: GrantOrigin) {
  const inserted = await tx
    .insert(creditGrants)
    .values({
      id: randomUUID(),
      userId,
      kind: grant.kind,
      amount: grant.amount,
      remaining: grant.amount,
      grantedAt: grant.grantedAt,
      expiresAt: grant.expiresAt,
      source: grant.source,
      note: grant.note ?? null,
      fulfilmentKey: grant.fulfilmentKey,
      paymentReference: origin.paymentReference,
      eventId: origin.eventId,
    })
    .onConflictDoNothing({ target: creditGrants.fulfilmentKey })
    .returning({ id: creditGrants.id });
  return inserted.length > 0;
}

/** The id of the grant a payment or an operator's change made (its fulfilment key), if it was made. */
export async function grantIdOf(db: DbOrTx, fulfilmentKey: string): Promise<string | undefined> {
  const [grant] = await db
    .select({ id: creditGrants.id })
    .from(creditGrants)
    .where(eq(creditGrants.fulfilmentKey, fulfilmentKey));
  return grant?.id;
}

/** The credit_grants columns a ledger grant is made of. */
export const GRANT_COLUMNS = {
  id: creditGrants.id,
  kind: creditGrants.kind,
  amount: creditGrants.amount,
  remaining: creditGrants.remaining,
  grantedAt: creditGrants.grantedAt,
  expiresAt: creditGrants.expiresAt,
  source: creditGrants.source,
};

/**
 * A credit_grants row (or its GRANT_COLUMNS) as the ledger's grant. The note comes only with whole
 * rows (the customer's ledger reads them): spends never need it.
 */
export function toCreditGrant(
  r: Pick<typeof creditGrants.$inferSelect, keyof typeof GRANT_COLUMNS> & { note?: string | null },
): CreditGrant {
  return {
    id: r.id,
    kind: r.kind,
    amount: r.amount,
    remaining: r.remaining,
    grantedAt: r.grantedAt,
    expiresAt: r.expiresAt,
    source: r.source,
    ...(r.note ? { note: r.note } : {}),
  };
}

/** The order grants are read in: newest first. */
export const NEWEST_GRANT_FIRST = [desc(creditGrants.grantedAt), desc(creditGrants.createdAt)] as const;

// Read by the billing calls and the spends: prepared (see db/prepared.ts).
const grantsOfUser = preparedPerHandle((db) =>
  db
    .select()
    .from(creditGrants)
    .where(eq(creditGrants.userId, sql.placeholder("userId")))
    .orderBy(...NEWEST_GRANT_FIRST)
    .prepare("credit_grants_of_user"),
);

/** A member's month of spending in an organisation: its row in member_credit_usage. */
export const memberMonth = (orgId: string, memberId: string, month: string) =>
  and(
    eq(memberCreditUsage.orgId, orgId),
    eq(memberCreditUsage.userId, memberId),
    eq(memberCreditUsage.month, month),
  );

/** An organisation's grants with what open credit leases hold of each (decision 051). */
export async function reservableGrants(tx: Tx, orgId: string): Promise<ReservableGrant[]> {
  const rows = await tx
    .select({ ...GRANT_COLUMNS, reserved: creditGrants.reserved })
    .from(creditGrants)
    .where(eq(creditGrants.userId, orgId));
  return rows.map((row) => ({ ...toCreditGrant(row), reserved: row.reserved }));
}

/** Every grant of the user, newest first (future-dated renewal grants included). */
export async function userGrants(db: DbOrTx, userId: string): Promise<CreditGrant[]> {
  const rows = await grantsOfUser(db).execute({ userId });
  return rows.map(toCreditGrant);
}

/**
 * Serialises everything that changes one billing account's credits or subscription: a row lock on
 * the paying organisation (a personal one has its user's id), the lock spends take too (spends.ts).
 * False when there is no such organisation, including for an id that cannot be one of ours (a
 * webhook's metadata is whatever the sender put there; PostgreSQL would refuse it as a uuid, a 500).
 */
export async function lockUser(tx: Tx, orgId: string): Promise<boolean> {
  if (!isUserId(orgId)) return false;
  const rows = await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    // NO KEY UPDATE: the lockers exclude one another as with UPDATE, but a row inserted with a
    // foreign key to the organisation (a charge, a day's usage) does not wait for them: a credit
    // lease's charge (lease-writes.ts) would otherwise wait here while holding what the locker
    // waits for (decision 051).
    .for("no key update");
  return rows.length > 0;
}
