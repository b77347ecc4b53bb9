// The local checkout's billing cycle, on the billing clock: each subscription whose period has
// ended is renewed (switching to a scheduled plan), cancelled at the period's end, or charged to a
// declining card and retried like Stripe's dunning. Each step is told to billing as Stripe would
// tell it: a webhook event queued in the same transaction.
import { and, eq, lte, or } from "drizzle-orm";
import type { Clock } from "../../clock.ts";
import { type LocalSubscriptionRow, localSubscriptions } from "../../db/schema/index.ts";
import type { Db, Tx } from "../../db/types.ts";
import { addMonths } from "../../domain/ledger.ts";
import { newStripeId } from "../stripe/format.ts";
import { enqueueEvent } from "./deliveries.ts";
import { invoicePaidEvent, invoicePaymentFailedEvent, subscriptionDeletedEvent } from "./event-builders.ts";
import { type LocalStripeObjects, seconds } from "./stripe-objects.ts";
import { endSubscription } from "./subscriptions.ts";

/** After a failed renewal charge, try again after these delays; then cancel (Stripe's dunning, shortened). */
export const RENEWAL_RETRY_DELAYS_MS: readonly number[] = [3, 5, 7].map((d) => d * 86_400_000);

export function billingCycle(deps: { db: Db; clock: Clock; objects: LocalStripeObjects }) {
  const { db, clock } = deps;
  const { productOf, subscriptionObjectInput, renewalTax, invoiceInput, meta } = deps.objects;

  /** One subscription whose period ended at or before `now`: cancel, switch, charge or retry. */
  async function bill(tx: Tx, sub: LocalSubscriptionRow, now: Date): Promise<void> {
    if (sub.status === "active" && sub.cancelAtPeriodEnd) {
      await endSubscription(tx, sub.id, sub.currentPeriodEnd, now, deps.objects);
      return;
    }
    let current = sub;
    if (sub.status === "active") {
      // A new period starts: the scheduled product (if any) is what it bills.
      const periodIndex = sub.periodIndex + 1;
      const [next] = await tx
        .update(localSubscriptions)
        .set({
          productId: sub.scheduledProductId ?? sub.productId,
          priceId: sub.scheduledProductId ? productOf(sub.scheduledProductId).priceId : sub.priceId,
          scheduledProductId: null,
          periodIndex,
          currentPeriodStart: sub.currentPeriodEnd,
          currentPeriodEnd: addMonths(sub.billingAnchor, periodIndex + 1),
          openInvoiceId: newStripeId("in"),
          failedAttempts: 0,
        })
        .where(eq(localSubscriptions.id, sub.id))
        .returning();
      if (!next) return;
      current = next;
    }
    const invoiceId = current.openInvoiceId ?? newStripeId("in");
    const period = { start: current.currentPeriodStart, end: current.currentPeriodEnd };
    const attempt = current.failedAttempts + 1;
    const tax = await renewalTax(tx, current.userId, productOf(current.productId).tier.unitAmount, now);
    if (!current.renewalsDecline) {
      await tx
        .update(localSubscriptions)
        .set({ status: "active", failedAttempts: 0, nextPaymentAttempt: null })
        .where(eq(localSubscriptions.id, sub.id));
      await enqueueEvent(
        tx,
        invoicePaidEvent(
          meta(now),
          invoiceInput(current, invoiceId, "subscription_cycle", period, attempt, now, tax),
          seconds(now),
        ),
        now,
      );
      return;
    }
    const delay = RENEWAL_RETRY_DELAYS_MS[attempt - 1];
    const nextAttempt = delay === undefined ? null : new Date(now.getTime() + delay);
    const [failed] = await tx
      .update(localSubscriptions)
      .set({
        status: nextAttempt ? "past_due" : "canceled",
        failedAttempts: attempt,
        nextPaymentAttempt: nextAttempt,
        canceledAt: nextAttempt ? null : now,
      })
      .where(eq(localSubscriptions.id, sub.id))
      .returning();
    await enqueueEvent(
      tx,
      invoicePaymentFailedEvent(
        meta(now),
        invoiceInput(current, invoiceId, "subscription_cycle", period, attempt, now, tax),
        nextAttempt ? seconds(nextAttempt) : null,
      ),
      now,
    );
    if (failed && !nextAttempt) {
      // Dunning gave up: Stripe's default setting cancels the subscription.
      await enqueueEvent(
        tx,
        subscriptionDeletedEvent(meta(now), subscriptionObjectInput(failed, "canceled")),
        now,
      );
    }
  }

  return {
    bill,
    async runBillingCycle(): Promise<number> {
      const now = clock.now();
      // Due: an active subscription whose period has ended, or a past-due one whose next payment
      // attempt has come. Checked again under the row lock: another instance's billing job may
      // have listed the same subscription and billed it in between (READ COMMITTED re-evaluates
      // this condition on the row it waited for), and billing it again would charge the next
      // period early (or retry a declined charge twice).
      const dueNow = or(
        and(eq(localSubscriptions.status, "active"), lte(localSubscriptions.currentPeriodEnd, now)),
        and(eq(localSubscriptions.status, "past_due"), lte(localSubscriptions.nextPaymentAttempt, now)),
      );
      let billed = 0;
      // One subscription may need several steps after a long jump of the clock (months of
      // renewals): repeat until nothing is due.
      for (let round = 0; round < 500; round++) {
        const due = await db
          .select({ id: localSubscriptions.id })
          .from(localSubscriptions)
          .where(dueNow)
          .orderBy(localSubscriptions.id);
        if (due.length === 0) return billed;
        for (const { id } of due) {
          const done = await db.transaction(async (tx) => {
            const [sub] = await tx
              .select()
              .from(localSubscriptions)
              .where(and(eq(localSubscriptions.id, id), dueNow))
              .for("update");
            if (!sub) return false;
            await bill(tx, sub, now);
            return true;
          });
          if (done) billed++;
        }
      }
      return billed;
    },
  };
}
