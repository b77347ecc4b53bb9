// Refunds at the local checkout: there is no money to move, so a refund is what Stripe would tell
// billing about it: a charge.refunded event with the charge's cumulative refunded amount, queued
// like every other event of the stand-in. The charge id is derived from our invoice row, so every
// refund of one payment names the same charge, as Stripe's do.
import { eq } from "drizzle-orm";
import type { CustomerStore, RefundRequest, UnclaimedPayment } from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import { newStripeId } from "../stripe/format.ts";
import { enqueueEvent } from "./deliveries.ts";
import { chargeRefundedEvent } from "./event-builders.ts";
import { type LocalStripeObjects, seconds } from "./stripe-objects.ts";

/** The one charge of a local payment: "ch_" and our invoice row's id without dashes. */
export const localChargeId = (invoiceId: string) => `ch_${invoiceId.replaceAll("-", "")}`;

/**
 * The charge of a payment named after what carried it (its payment intent or invoice), so that
 * every event describing the payment names the same charge: a payment we never recorded, and the
 * one a dispute names (disputes.ts).
 */
export const unclaimedChargeId = (carrier: string) => `ch_${carrier.replace(/^(pi|in)_/, "")}`;

export function localRefunds(deps: {
  clock: Clock;
  customers: CustomerStore;
  objects: Pick<LocalStripeObjects, "meta">;
}) {
  return {
    async refundPayment(
      db: DbOrTx,
      refund: RefundRequest,
    ): Promise<{ refundId: string; status: string } | null> {
      if (!refund.paymentReference && !refund.providerInvoiceId) return null;
      const now = deps.clock.now();
      const customerId = (await deps.customers.findCustomerId(db, refund.userId)) ?? "";
      const event = chargeRefundedEvent(deps.objects.meta(now), {
        id: localChargeId(refund.invoiceId),
        paymentIntentId: refund.paymentReference?.startsWith("pi_") ? refund.paymentReference : null,
        invoiceId: refund.providerInvoiceId,
        customerId,
        amount: refund.total,
        amountRefunded: refund.refundedBefore + refund.amount,
        currency: refund.currency,
        created: seconds(now),
      });
      await enqueueEvent(db, event, now);
      return { refundId: newStripeId("re"), status: "succeeded" };
    },

    /**
     * As Stripe would tell it: one charge.refunded for the whole payment. Its event id is the
     * charge's, so the second event describing the same payment (checkout.session.completed, then
     * invoice.paid) finds it queued and refunds nothing more.
     */
    async refundUnclaimedPayment(db: DbOrTx, payment: UnclaimedPayment): Promise<boolean> {
      const carrier = payment.paymentIntentId ?? payment.providerInvoiceId;
      if (!carrier) return false;
      const chargeId = unclaimedChargeId(carrier);
      const eventId = `evt_refund_${chargeId}`;
      const queued = await db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.eventId, eventId));
      if (queued.length > 0) return true;
      const now = deps.clock.now();
      const total = payment.total ?? 0;
      const event = chargeRefundedEvent(deps.objects.meta(now), {
        id: chargeId,
        paymentIntentId: payment.paymentIntentId,
        invoiceId: payment.providerInvoiceId,
        customerId: payment.customerId ?? (await deps.customers.findCustomerId(db, payment.orgId)) ?? "",
        amount: total,
        amountRefunded: total,
        currency: payment.currency ?? "eur",
        created: seconds(now),
      });
      await enqueueEvent(db, { ...event, id: eventId }, now);
      return true;
    },

    /**
     * Always null: the stand-in queues a refund's event in the transaction that asks for it, so the
     * event goes out only once that transaction, and the payment's record with it, has committed.
     * No refund of ours can be ahead of its record here, as one can be at Stripe.
     */
    async unclaimedRefundReason(_db: DbOrTx, _chargeId: string): Promise<string | null> {
      return null;
    },
  };
}
