// The local checkout's subscriptions as billing changes them: cancel at the period's end (or
// resume), schedule a plan change, cancel now. Each change is told to billing as Stripe would tell
// it: a webhook event queued in the same transaction. The billing cycle that renews and ends them
// is billing-cycle.ts.
import { and, desc, eq, ne } from "drizzle-orm";
import type { SubscriptionSnapshot } from "../../billing/ports/events.ts";
import type { Clock } from "../../clock.ts";
import { type LocalSubscriptionRow, localSubscriptions } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import { parseStripeSubscription } from "../stripe/customer-events.ts";
import { enqueueEvent } from "./deliveries.ts";
import { subscriptionDeletedEvent, subscriptionObject, subscriptionUpdatedEvent } from "./event-builders.ts";
import type { LocalStripeObjects } from "./stripe-objects.ts";

/** Ends the subscription as of `canceledAt` and tells billing (customer.subscription.deleted). */
export async function endSubscription(
  tx: DbOrTx,
  id: string,
  canceledAt: Date,
  now: Date,
  objects: Pick<LocalStripeObjects, "meta" | "subscriptionObjectInput">,
): Promise<void> {
  const [ended] = await tx
    .update(localSubscriptions)
    .set({ status: "canceled", canceledAt })
    .where(eq(localSubscriptions.id, id))
    .returning();
  if (ended) {
    await enqueueEvent(
      tx,
      subscriptionDeletedEvent(objects.meta(now), objects.subscriptionObjectInput(ended, "canceled")),
      now,
    );
  }
}

export function subscriptionCommands(deps: { clock: Clock; objects: LocalStripeObjects }) {
  const { clock } = deps;
  const { subscriptionObjectInput, meta } = deps.objects;

  /** The user's subscription that is still live at the provider (active or past due). */
  async function liveSubscriptionOf(
    tx: DbOrTx,
    userId: string,
    lock = false,
  ): Promise<LocalSubscriptionRow | undefined> {
    const query = tx
      .select()
      .from(localSubscriptions)
      .where(and(eq(localSubscriptions.userId, userId), ne(localSubscriptions.status, "canceled")))
      .orderBy(desc(localSubscriptions.createdAt))
      .limit(1);
    const [row] = lock ? await query.for("update") : await query;
    return row;
  }

  async function updateSubscription(
    tx: DbOrTx,
    id: string,
    change: (sub: LocalSubscriptionRow) => Partial<LocalSubscriptionRow> | null,
  ) {
    const [sub] = await tx.select().from(localSubscriptions).where(eq(localSubscriptions.id, id));
    // Like Stripe, acting on a subscription that is already canceled is refused; we treat it as
    // done, which is what every caller wants (the effects are idempotent).
    if (!sub || sub.status === "canceled") return;
    const fields = change(sub);
    if (!fields) return;
    const [updated] = await tx
      .update(localSubscriptions)
      .set(fields)
      .where(eq(localSubscriptions.id, id))
      .returning();
    if (updated) {
      await enqueueEvent(
        tx,
        subscriptionUpdatedEvent(meta(clock.now()), subscriptionObjectInput(updated, updated.status), {}),
        clock.now(),
      );
    }
  }

  return {
    liveSubscriptionOf,
    setCancelAtPeriodEnd: (tx: DbOrTx, subscriptionId: string, cancelAtPeriodEnd: boolean) =>
      updateSubscription(tx, subscriptionId, (sub) =>
        sub.cancelAtPeriodEnd === cancelAtPeriodEnd ? null : { cancelAtPeriodEnd },
      ),

    scheduleChange: (tx: DbOrTx, subscriptionId: string, productId: string | null) =>
      updateSubscription(tx, subscriptionId, (sub) =>
        sub.scheduledProductId === productId ? null : { scheduledProductId: productId },
      ),

    /** As Stripe's GET /v1/subscriptions/{id} answers, read as Stripe's is (asked for an event that may be stale). */
    async retrieveSubscription(tx: DbOrTx, subscriptionId: string): Promise<SubscriptionSnapshot | null> {
      const [sub] = await tx
        .select()
        .from(localSubscriptions)
        .where(eq(localSubscriptions.id, subscriptionId));
      if (!sub) return null;
      const read = parseStripeSubscription(subscriptionObject(subscriptionObjectInput(sub, sub.status)));
      if (!read.ok) throw new Error(`Local subscription ${subscriptionId} could not be read: ${read.error}`);
      return read.snapshot;
    },

    async cancelNow(tx: DbOrTx, subscriptionId: string): Promise<void> {
      const now = clock.now();
      const [sub] = await tx
        .select()
        .from(localSubscriptions)
        .where(eq(localSubscriptions.id, subscriptionId));
      if (!sub || sub.status === "canceled") return;
      // Its open invoice (a renewal still being retried) is voided: nothing more is collected.
      await tx
        .update(localSubscriptions)
        .set({ openInvoiceId: null, nextPaymentAttempt: null })
        .where(eq(localSubscriptions.id, subscriptionId));
      // A second subscription's payment goes back through refundUnclaimedPayment (refunds.ts).
      await endSubscription(tx, subscriptionId, now, now, deps.objects);
    },
  };
}
