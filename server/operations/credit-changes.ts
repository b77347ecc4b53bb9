// Goodwill grants and take-backs of a customer's credits by staff. A grant is a bucket of its own
// ("Goodwill credits", never expiring unless the operator says when); a take-back takes unspent
// credits in the order a spend would (domain/ledger.ts) and records one adjustment per bucket it
// takes from, so the balance never goes below zero and the ledger shows why it dropped. Each runs
// under the customer's row lock, the same lock every spend takes, once per idempotency key, with
// its audit entry in the same transaction. A grant may carry a note to the customer, and is
// announced to them by mail, queued in that transaction too: a repeated key neither grants nor
// mails again.
import { randomUUID } from "node:crypto";
import { and, eq, gte, sql } from "drizzle-orm";
import { ADMIN_TEXT, type AdminLedgerEntry } from "../../contract/admin.ts";
import { GOODWILL_SOURCE } from "../../contract/billing.ts";
import { canonicalUuid } from "../accounts/users.ts";
import { endLeases } from "../billing/credit-leases.ts";
import { grantIdOf, insertGrant, lockUser, userGrants } from "../billing/ledger-store.ts";
import { auditLog, creditAdjustments, creditGrants } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { berlinMidnightDaysAgo } from "../domain/berlin-time.ts";
import { balance, fromMillicredits, planSpend, toMillicredits } from "../domain/ledger.ts";
import { type Actor, audit, earlierKeyedAction, lockCustomer, refuseOwnAccount } from "./actor.ts";
import { dailyGrantLimitOf, fitsDailyLimit, grantLimitOf, holds } from "./permissions.ts";
import { OperatorRefusal } from "./refusal.ts";

export interface CreditChange {
  /** Credits: positive grants, negative takes back. */
  amount: number;
  /** Why, for staff: the audit log keeps it; the customer never sees it. */
  reason: string;
  expiresAt: Date | null;
  idempotencyKey: string;
  /** A grant's words to the customer (credit_grants.note), or null. */
  note: string | null;
}

/** A goodwill grant as its announcement to the customer needs it. */
export interface GrantNotice {
  grantId: string;
  customerId: string;
  credits: number;
  note: string | null;
  expiresAt: Date | null;
}

/** Queues the customer's mail about `grant` in `tx` (the grant's own transaction). */
export type GrantAnnouncer = (tx: Tx, grant: GrantNotice, now: Date) => Promise<void>;

/** A grant's line in the console's ledger: its source, and the note the customer read, if any. */
export function grantDescription(source: string, note: string | null | undefined): string {
  return note ? `${source}: ${note}` : source;
}

export interface CreditChangeResult {
  entry: AdminLedgerEntry;
  balanceAfter: number;
  auditId: string;
  /** True when an earlier call with the same key did the change and this one only repeats its answer. */
  replayed: boolean;
}

/** What support staff may grant (admins are not limited): SUPPORT_GRANT_LIMIT and SUPPORT_GRANT_DAILY_LIMIT. */
export interface SupportGrantLimits {
  /** The most credits one grant may give. */
  perGrant: number;
  /** The most credits one support member may grant in a Berlin day, all customers together. */
  perDay: number;
}

function checkAllowed(actor: Actor, change: CreditChange, limits: SupportGrantLimits) {
  if (change.amount < 0) {
    if (!holds(actor.role, "takeBackCredits")) throw new OperatorRefusal(403, ADMIN_TEXT.adminOnly);
    return;
  }
  const limit = grantLimitOf(actor.role, limits.perGrant);
  if (limit !== null && change.amount > limit) {
    throw new OperatorRefusal(403, ADMIN_TEXT.overGrantLimit(limit), { limit });
  }
}

/**
 * Any 32-bit constant: the first key of the two-key advisory locks that serialise one member's
 * grants (the second is a hash of their id). Two-key locks never collide with the one-key lock of
 * the audit chain.
 */
const GRANTS_OF_ONE_MEMBER_LOCK = 73_149;

/**
 * Refuses a grant that would take the actor past their daily total. One member's grants are
 * serialised by an advisory lock on the member, so no two of them both see room for only one: what
 * the audit log says they granted since Berlin midnight is then all they granted. It is taken after
 * the customer's row lock and is followed only by the audit chain's lock, which is always last, so
 * no order of locks can deadlock.
 */
async function checkDailyTotal(tx: Tx, actor: Actor, amount: number, limits: SupportGrantLimits, now: Date) {
  const limit = dailyGrantLimitOf(actor.role, limits.perDay);
  if (limit === null || amount <= 0) return;
  await tx.execute(sql`select pg_advisory_xact_lock(${GRANTS_OF_ONE_MEMBER_LOCK}, hashtext(${actor.id}))`);
  const [row] = await tx
    .select({ sum: sql<string | null>`sum((${auditLog.details}->>'credits')::numeric)` })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.actorId, actor.id),
        eq(auditLog.action, "credits.grant"),
        gte(auditLog.at, berlinMidnightDaysAgo(now, 0)),
      ),
    );
  const { fits, left } = fitsDailyLimit(limit, Number(row?.sum ?? 0), amount);
  if (!fits) throw new OperatorRefusal(403, ADMIN_TEXT.overDailyGrantLimit(limit, left), { limit, left });
}

/**
 * Whose credits change: `lock` takes the billing account's row lock in the change's transaction
 * (refusing what staff may not change) and answers its id and the audit entry's subject.
 */
export interface CreditSubject {
  lock(tx: Tx): Promise<{ id: string; subjectUserId: string | null; subjectOrgId?: string }>;
}

/** A customer: their row locked, never the staff member's own account. */
const customerSubject = (actor: Actor, customerId: string): CreditSubject => ({
  async lock(tx) {
    // The credits are the personal organisation's: its row is the lock every spend of it takes
    // (billing/spends.ts), so a take-back and a charge never plan from the same balance. Taken
    // before the user's row, in the order account deletion takes them (the subscription's end
    // locks the organisation, then the erasure the user).
    await lockUser(tx, canonicalUuid(customerId));
    const customer = await lockCustomer(tx, customerId);
    refuseOwnAccount(actor, customer, ADMIN_TEXT.notOwnAccount);
    // From here on the id is the database's own: the audit entry hashes what the log stores.
    return { id: customer.id, subjectUserId: customer.id };
  },
});

export async function changeCredits(
  db: Db,
  actor: Actor,
  customerIdOrSubject: string | CreditSubject,
  change: CreditChange,
  now: Date,
  limits: SupportGrantLimits,
  announce: GrantAnnouncer,
): Promise<CreditChangeResult> {
  checkAllowed(actor, change, limits);
  if (change.amount > 0 && change.expiresAt && change.expiresAt.getTime() <= now.getTime()) {
    throw new OperatorRefusal(422, "The credits' expiry must be in the future");
  }
  const action = change.amount > 0 ? "credits.grant" : "credits.take_back";
  const milli = toMillicredits(Math.abs(change.amount));
  const target =
    typeof customerIdOrSubject === "string"
      ? customerSubject(actor, customerIdOrSubject)
      : customerIdOrSubject;
  return db.transaction(async (tx) => {
    const { id, subjectUserId, subjectOrgId } = await target.lock(tx);
    // Any change of credits ends the leases first (decision 051): a take-back plans from every
    // credit left, those leases held included; a grant must let the low-balance latch see the
    // balance it brings back (subscription-changes.ts).
    await endLeases(tx, { orgId: id }, "credits_changed");
    const earlier = await earlierKeyedAction(
      tx,
      subjectOrgId ? { orgId: subjectOrgId } : id,
      action,
      change.idempotencyKey,
    );
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
    // After the replay (a repeat is answered, never refused) and before the effect.
    await checkDailyTotal(tx, actor, change.amount, limits, now);
    const grants = await userGrants(tx, id);
    let description: string;
    let effect: Record<string, unknown>;
    if (change.amount > 0) {
      const grantId = await grantGoodwill(tx, id, milli, change, now);
      description = grantDescription(GOODWILL_SOURCE, change.note);
      effect = { grant_id: grantId, expires_at: change.expiresAt?.toISOString() ?? null, note: change.note };
      await announce(
        tx,
        { grantId, customerId: id, credits: change.amount, note: change.note, expiresAt: change.expiresAt },
        now,
      );
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
          userId: id,
          grantId: take.grantId,
          kind: "operator_take_back",
          amount: take.amount,
          reference: `operator:${id}:${change.idempotencyKey}:${take.grantId}`,
          createdAt: now,
        });
      }
      description = "Taken back by staff";
      effect = {
        takes: plan.takes.map((t) => ({ grant_id: t.grantId, credits: fromMillicredits(t.amount) })),
      };
    }
    const balanceAfter = fromMillicredits(balance(await userGrants(tx, id), now));
    const row = await audit(
      tx,
      actor,
      {
        action,
        subjectUserId,
        ...(subjectOrgId ? { subjectOrgId } : {}),
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
      note: change.note,
      fulfilmentKey,
    },
    { paymentReference: null, eventId: null },
  );
  const grantId = await grantIdOf(tx, fulfilmentKey);
  if (!grantId) throw new Error("The goodwill grant was not written");
  return grantId;
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
