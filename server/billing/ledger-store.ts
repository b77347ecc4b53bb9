// The credit ledger in the database: grants inserted once per fulfilment key, the balance from the
// grants live at `now`, and spends that lock the user's row so concurrent spends take turns and
// never overspend (the CHECK on credit_grants.remaining is the last line of defence).
import { randomUUID } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { preparedPerHandle } from "../db/prepared.ts";
import { creditGrants, creditSpends, users } from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";
import { balance, type CreditGrant, type NewGrant, planSpend, type SpendTake } from "../domain/ledger.ts";

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
      fulfilmentKey: grant.fulfilmentKey,
      paymentReference: origin.paymentReference,
      eventId: origin.eventId,
    })
    .onConflictDoNothing({ target: creditGrants.fulfilmentKey })
    .returning({ id: creditGrants.id });
  return inserted.length > 0;
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

/** A credit_grants row (or its GRANT_COLUMNS) as the ledger's grant. */
export function toCreditGrant(
  r: Pick<typeof creditGrants.$inferSelect, keyof typeof GRANT_COLUMNS>,
): CreditGrant {
  return {
    id: r.id,
    kind: r.kind,
    amount: r.amount,
    remaining: r.remaining,
    grantedAt: r.grantedAt,
    expiresAt: r.expiresAt,
    source: r.source,
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

/** Every grant of the user, newest first (future-dated renewal grants included). */
export async function userGrants(db: DbOrTx, userId: string): Promise<CreditGrant[]> {
  const rows = await grantsOfUser(db).execute({ userId });
  return rows.map(toCreditGrant);
}

/** Our user ids are UUIDs (any version). */
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Serialises everything that changes one user's credits or subscription: a row lock on the user.
 * False when there is no such user, including for an id that cannot be one of ours (a webhook's
 * metadata is whatever the sender put there; PostgreSQL would refuse it as a uuid, a 500).
 */
export async function lockUser(tx: Tx, userId: string): Promise<boolean> {
  if (!USER_ID.test(userId)) return false;
  const rows = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
  return rows.length > 0;
}

export type SpendResult =
  | { ok: true; balanceAfter: number; repeated: boolean }
  | { ok: false; reason: "insufficient" | "no_user" };

export interface SpendRequest {
  userId: string;
  amount: number;
  reason: string;
  idempotencyKey: string;
  requestedBy: string | null;
  now: Date;
}

/** Spends `amount` milli-credits once per (user, idempotency key); never partially, never below zero. */
export async function spendCredits(db: DbOrTx, request: SpendRequest): Promise<SpendResult> {
  return db.transaction(async (tx) => {
    if (!(await lockUser(tx, request.userId))) return { ok: false, reason: "no_user" } as const;
    const [earlier] = await tx
      .select({ balanceAfter: creditSpends.balanceAfter })
      .from(creditSpends)
      .where(
        and(eq(creditSpends.userId, request.userId), eq(creditSpends.idempotencyKey, request.idempotencyKey)),
      );
    if (earlier) return { ok: true, balanceAfter: earlier.balanceAfter, repeated: true } as const;

    const grants = await userGrants(tx, request.userId);
    const plan = planSpend(grants, request.amount, request.now);
    if (!plan.ok) return { ok: false, reason: "insufficient" } as const;
    await applyTakes(tx, plan.takes);
    const balanceAfter = balance(grants, request.now) - request.amount;
    await tx.insert(creditSpends).values({
      id: randomUUID(),
      userId: request.userId,
      amount: request.amount,
      reason: request.reason,
      idempotencyKey: request.idempotencyKey,
      balanceAfter,
      takes: plan.takes,
      requestedBy: request.requestedBy,
      createdAt: request.now,
    });
    return { ok: true, balanceAfter, repeated: false } as const;
  });
}

async function applyTakes(tx: Tx, takes: readonly SpendTake[]): Promise<void> {
  for (const take of takes) {
    await tx
      .update(creditGrants)
      .set({ remaining: sql`${creditGrants.remaining} - ${take.amount}` })
      .where(eq(creditGrants.id, take.grantId));
  }
}
