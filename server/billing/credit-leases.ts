// Credit leases in the database (decision 051): taking one under the organisation's lock, and
// ending those of an organisation, a key, a member or those past their end, giving back what their
// charges did not spend. The rules (how much, where, what is unspent) are plain functions in
// server/domain/credit-leases.ts.
//
// Locks. A lease's charges are written in one statement that holds the lease's row FOR SHARE and
// writes only while the lease is open (and unexpired by the instance's clock), without the
// organisation's lock. Ending takes the leases' organisations first, in id order (FOR NO KEY
// UPDATE), as every charge under the lock, every lease taken and every change of an organisation
// (a refund, a member's cap, staff's flags) takes them before anything else; then the leases FOR
// UPDATE, in id order: it waits for a write under way to commit, and a write that comes after it
// finds the lease ended. Then the rows, in the order the charges' statements write them: member's
// month, key's month, grants by id. A caller that already holds the organisation's lock meets no
// other order (review 110 found refunds and member changes locking the organisation, then the
// leases, while the sweep and the holders locked them the other way round: a deadlock). So what an
// ended lease spent is final when it is read here, and a caller that ends an organisation's
// leases before it takes credits from its grants (a refund, a lost dispute, staff's take-back)
// finds nothing reserved on them.
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import {
  apiKeyUsage,
  creditGrants,
  creditLeases,
  creditSpends,
  memberCreditUsage,
  organizations,
} from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { unspentOf } from "../domain/credit-leases.ts";
import type { Millicredits, SpendTake } from "../domain/ledger.ts";
import { memberMonth } from "./ledger-store.ts";

/** A lease to take: its amount and reservations decided by `leaseAmount` and `planLease`. */
export interface NewLease {
  orgId: string;
  apiKeyId: string;
  /** The member whose monthly cap it counts against; null for a shared or personal key. */
  memberId: string | null;
  /** The Berlin month its charges count in, by its first day ("2026-11-01"). */
  month: string;
  amount: Millicredits;
  takes: readonly SpendTake[];
  holder: string;
  now: Date;
  expiresAt: Date;
}

/**
 * Takes a lease: its row, and its amount reserved on its grants, the key's month and the member's.
 * The caller holds the organisation's lock and decided from what it read under it; a reservation
 * larger than a grant's remaining fails the grant's check, and the caller's transaction with it.
 */
export async function takeLease(tx: Tx, lease: NewLease): Promise<string> {
  const total = lease.takes.reduce((sum, t) => sum + t.amount, 0);
  if (total !== lease.amount || lease.amount <= 0 || lease.takes.some((t) => !(t.amount > 0))) {
    throw new RangeError(
      `A lease's takes (${total}) must be positive and sum to its amount (${lease.amount})`,
    );
  }
  const id = randomUUID();
  await tx.insert(creditLeases).values({
    id,
    orgId: lease.orgId,
    apiKeyId: lease.apiKeyId,
    memberId: lease.memberId,
    month: lease.month,
    amount: lease.amount,
    takes: [...lease.takes],
    holder: lease.holder,
    createdAt: lease.now,
    expiresAt: lease.expiresAt,
  });
  // Member's month, key's month, grants: the order every writer of these rows keeps (see the top).
  if (lease.memberId !== null) {
    await tx
      .insert(memberCreditUsage)
      .values({
        orgId: lease.orgId,
        userId: lease.memberId,
        month: lease.month,
        amount: 0,
        reserved: lease.amount,
      })
      .onConflictDoUpdate({
        target: [memberCreditUsage.orgId, memberCreditUsage.userId, memberCreditUsage.month],
        set: { reserved: sql`coalesce(${memberCreditUsage.reserved}, 0) + excluded.reserved` },
      });
  }
  await tx
    .insert(apiKeyUsage)
    .values({ apiKeyId: lease.apiKeyId, month: lease.month, amount: 0, reserved: lease.amount })
    .onConflictDoUpdate({
      target: [apiKeyUsage.apiKeyId, apiKeyUsage.month],
      // Null from a row the code before migration 0023 inserted: nothing reserved.
      set: { reserved: sql`coalesce(${apiKeyUsage.reserved}, 0) + excluded.reserved` },
    });
  for (const take of sortedByGrant(lease.takes)) {
    const reserved = await tx
      .update(creditGrants)
      .set({ reserved: sql`${creditGrants.reserved} + ${take.amount}` })
      .where(and(eq(creditGrants.id, take.grantId), eq(creditGrants.userId, lease.orgId)))
      .returning({ id: creditGrants.id });
    // A grant of another organisation, or none: the caller's plan was not made from its own rows.
    if (reserved.length !== 1)
      throw new Error(`A lease of ${lease.orgId} names grant ${take.grantId}, not one of its own`);
  }
  return id;
}

/** Whose open leases to end. */
export type LeaseScope =
  /** One lease (its holder gives it back: spent, or at its end). */
  | { leaseId: string }
  | { orgId: string }
  | { apiKeyId: string }
  /** A member's keys in one organisation (the member left, was disabled, their cap changed). */
  | { orgId: string; memberId: string }
  /** Every lease whose end has come by the database's clock (the sweep). */
  | { expired: true };

function scopeCondition(scope: LeaseScope): SQL | undefined {
  if ("expired" in scope) return sql`${creditLeases.expiresAt} <= now()`;
  if ("leaseId" in scope) return eq(creditLeases.id, scope.leaseId);
  if ("apiKeyId" in scope) return eq(creditLeases.apiKeyId, scope.apiKeyId);
  if ("memberId" in scope) {
    return and(eq(creditLeases.orgId, scope.orgId), eq(creditLeases.memberId, scope.memberId));
  }
  return eq(creditLeases.orgId, scope.orgId);
}

/** Why leases end, for the logs and the row. */
export type LeaseEnd =
  | "expired"
  | "key_changed"
  | "member_changed"
  | "organization_changed"
  | "credits_changed"
  | "released";

/**
 * Ends the open leases in `scope` and gives back what their charges did not spend: to the grants
 * they were reserved on, the keys' months and the members'. Run it in the caller's transaction
 * before it changes grants or usage rows, with no lock taken but its organisation's (see the top of
 * this file). Returns how many leases it ended.
 */
export async function endLeases(tx: Tx, scope: LeaseScope, because: LeaseEnd): Promise<number> {
  // The organisations first. A scope of a whole organisation locks it even when it has no lease
  // open now (its callers change what sizes a lease, and lock it next anyway): a lease being taken
  // (under that lock) is then either seen below or taken after the change, with it. A member's
  // scope locks only the organisations it finds leases of: one person's change may reach many
  // organisations, and taking a lease for a member waits for their row anyway.
  const orgIds =
    "orgId" in scope && !("memberId" in scope)
      ? [scope.orgId]
      : [
          ...new Set(
            (
              await tx
                .select({ orgId: creditLeases.orgId })
                .from(creditLeases)
                .where(and(isNull(creditLeases.endedAt), scopeCondition(scope)))
            ).map((l) => l.orgId),
          ),
        ];
  if (orgIds.length === 0) return 0;
  await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(inArray(organizations.id, orgIds))
    .orderBy(asc(organizations.id))
    .for("no key update");
  const locked = await tx
    .select({ id: creditLeases.id })
    .from(creditLeases)
    .where(and(isNull(creditLeases.endedAt), scopeCondition(scope), inArray(creditLeases.orgId, orgIds)))
    .orderBy(asc(creditLeases.id))
    .for("update");
  if (locked.length === 0) return 0;
  const ended = await tx
    .update(creditLeases)
    .set({ endedAt: sql`now()`, endedBecause: because })
    .where(
      and(
        inArray(
          creditLeases.id,
          locked.map((l) => l.id),
        ),
        isNull(creditLeases.endedAt),
      ),
    )
    .returning({
      id: creditLeases.id,
      orgId: creditLeases.orgId,
      apiKeyId: creditLeases.apiKeyId,
      memberId: creditLeases.memberId,
      month: creditLeases.month,
      takes: creditLeases.takes,
    });
  const charges = await tx
    .select({ leaseId: creditSpends.leaseId, takes: creditSpends.takes })
    .from(creditSpends)
    .where(
      inArray(
        creditSpends.leaseId,
        ended.map((l) => l.id),
      ),
    );
  const toGrants = new Map<string, { orgId: string; amount: Millicredits }>();
  for (const lease of ended) {
    const taken = charges.filter((c) => c.leaseId === lease.id).flatMap((c) => c.takes);
    const unspent = unspentOf(lease.takes, taken);
    for (const t of unspent.perGrant) {
      const back = toGrants.get(t.grantId) ?? { orgId: lease.orgId, amount: 0 };
      back.amount += t.amount;
      toGrants.set(t.grantId, back);
    }
    if (unspent.total === 0) continue;
    if (lease.memberId !== null) {
      await tx
        .update(memberCreditUsage)
        .set({ reserved: sql`coalesce(${memberCreditUsage.reserved}, 0) - ${unspent.total}` })
        .where(memberMonth(lease.orgId, lease.memberId, lease.month));
    }
    await tx
      .update(apiKeyUsage)
      .set({ reserved: sql`coalesce(${apiKeyUsage.reserved}, 0) - ${unspent.total}` })
      .where(and(eq(apiKeyUsage.apiKeyId, lease.apiKeyId), eq(apiKeyUsage.month, lease.month)));
  }
  for (const [grantId, back] of [...toGrants].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await tx
      .update(creditGrants)
      .set({ reserved: sql`${creditGrants.reserved} - ${back.amount}` })
      .where(and(eq(creditGrants.id, grantId), eq(creditGrants.userId, back.orgId)));
  }
  return ended.length;
}

/** Grants in id order: two writers that update several grants take their row locks in one order. */
const sortedByGrant = (takes: readonly SpendTake[]) =>
  [...takes].sort((a, b) => (a.grantId < b.grantId ? -1 : a.grantId > b.grantId ? 1 : 0));
