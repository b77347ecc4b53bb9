// Goodwill grants and take-backs of a customer's credits by staff. A grant is a bucket of its own
// ("Goodwill credits", never expiring unless the operator says when); a take-back takes unspent
// credits in the order a spend would (domain/ledger.ts) and records one adjustment per bucket it
// takes from, so the balance never goes below zero and the ledger shows why it dropped. Each runs
// under the customer's row lock, the same lock every spend takes, once per idempotency key, with
// its audit entry in the same transaction.
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { ADMIN_TEXT, type AdminLedgerEntry } from "../../contract/admin.ts";
import { insertGrant, lockUser, userGrants } from "../billing/ledger-store.ts";
import { creditAdjustments, creditGrants } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { balance, fromMillicredits, planSpend, toMillicredits } from "../domain/ledger.ts";
import { type Actor, audit, earlierKeyedAction, refuseOwnAccount } from "./actor.ts";
import { grantLimitOf, holds } from "./permissions.ts";
import { OperatorRefusal } from "./refusal.ts";

export const GOODWILL_SOURCE = "Goodwill credits";

export interface CreditChange {
  /** Credits: positive grants, negative takes back. */
  amount: number;
  reason: string;
  expiresAt: Date | null;
  idempotencyKey: string;
}

export interface CreditChangeResult {
  entry: AdminLedgerEntry;
  balanceAfter: number;
  auditId: string;
  /** True when an earlier call with the same key did the change and this one only repeats its answer. */
  replayed: boolean;
}

function checkAllowed(actor: Actor, customerId: string, change: CreditChange, supportGrantLimit: number) {
  refuseOwnAccount(actor, customerId, ADMIN_TEXT.notOwnAccount);
  if (change.amount < 0) {
    if (!holds(actor.role, "takeBackCredits")) throw new OperatorRefusal(403, ADMIN_TEXT.adminOnly);
    return;
  }
  const limit = grantLimitOf(actor.role, supportGrantLimit);
  if (limit !== null && change.amount > limit) {
    throw new OperatorRefusal(403, ADMIN_TEXT.overGrantLimit(limit), { limit });
  }
}

export async function changeCredits(
  db: Db,
  actor: Actor,
  customerId: string,
  change: CreditChange,
  now: Date,
  supportGrantLimit: number,
): Promise<CreditChangeResult> {
  checkAllowed(actor, customerId, change, supportGrantLimit);
  if (change.amount > 0 && change.expiresAt && change.expiresAt.getTime() <= now.getTime()) {
    throw new OperatorRefusal(422, "The credits' expiry must be in the future");
  }
  const action = change.amount > 0 ? "credits.grant" : "credits.take_back";
  const milli = toMillicredits(Math.abs(change.amount));
  return db.transaction(async (tx) => {
    if (!(await lockUser(tx, customerId))) throw new OperatorRefusal(404, ADMIN_TEXT.customerNotFound);
    const earlier = await earlierKeyedAction(tx, customerId, action, change.idempotencyKey);
    if (earlier) {
      const details = earlier.details as { credits: number; balance_after: number; description: string };
      if (details.credits !== change.amount) {
        throw new OperatorRefusal(409, "This idempotency key was used for a different amount");
      }
      return {
        entry: entryOf(earlier.at, details.credits, details.description),
        balanceAfter: details.balance_after,
        auditId: earlier.id,
        replayed: true,
      };
    }
    const grants = await userGrants(tx, customerId);
    let description: string;
    let effect: Record<string, unknown>;
    if (change.amount > 0) {
      const grantId = await grantGoodwill(tx, customerId, milli, change, now);
      description = GOODWILL_SOURCE;
      effect = { grant_id: grantId, expires_at: change.expiresAt?.toISOString() ?? null };
    } else {
      const plan = planSpend(grants, milli, now);
      if (!plan.ok) {
        const available = fromMillicredits(plan.available);
        throw new OperatorRefusal(409, ADMIN_TEXT.takeBackTooMuch(available), { available });
      }
      for (const take of plan.takes) {
        await tx
          .update(creditGrants)
          .set({ remaining: sql`${creditGrants.remaining} - ${take.amount}` })
          .where(eq(creditGrants.id, take.grantId));
        await tx.insert(creditAdjustments).values({
          id: randomUUID(),
          userId: customerId,
          grantId: take.grantId,
          kind: "operator_take_back",
          amount: take.amount,
          reference: `operator:${customerId}:${change.idempotencyKey}:${take.grantId}`,
          createdAt: now,
        });
      }
      description = "Taken back by staff";
      effect = {
        takes: plan.takes.map((t) => ({ grant_id: t.grantId, credits: fromMillicredits(t.amount) })),
      };
    }
    const balanceAfter = fromMillicredits(balance(await userGrants(tx, customerId), now));
    const row = await audit(
      tx,
      actor,
      {
        action,
        subjectUserId: customerId,
        reason: change.reason,
        details: {
          credits: change.amount,
          idempotency_key: change.idempotencyKey,
          balance_after: balanceAfter,
          description,
          ...effect,
        },
      },
      now,
    );
    return {
      entry: entryOf(now, change.amount, description),
      balanceAfter,
      auditId: row.id,
      replayed: false,
    };
  });
}

async function grantGoodwill(
  tx: Parameters<typeof insertGrant>[0],
  customerId: string,
  milli: number,
  change: CreditChange,
  now: Date,
): Promise<string> {
  const fulfilmentKey = `operator-grant:${customerId}:${change.idempotencyKey}`;
  await insertGrant(
    tx,
    customerId,
    {
      kind: "free",
      amount: milli,
      grantedAt: now,
      expiresAt: change.expiresAt,
      source: GOODWILL_SOURCE,
      fulfilmentKey,
    },
    { paymentReference: null, eventId: null },
  );
  const [grant] = await tx
    .select({ id: creditGrants.id })
    .from(creditGrants)
    .where(eq(creditGrants.fulfilmentKey, fulfilmentKey));
  if (!grant) throw new Error("The goodwill grant was not written");
  return grant.id;
}

function entryOf(at: Date, credits: number, description: string): AdminLedgerEntry {
  return {
    at: at.toISOString(),
    kind: credits > 0 ? "grant" : "operator_take_back",
    credits,
    description,
    count: 1,
  };
}
