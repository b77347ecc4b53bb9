// What every change to a user's subscription shares, whoever starts it (a user's command, a
// provider's event, a checkout): the state as it stands now, and running the effects the domain's
// decision calls for (grants, calls to the provider, alarms for an operator).
import type { Logger } from "pino";
import type { Db, Tx } from "../db/types.ts";
import { periodEnded, type SubscriptionEffect } from "../domain/subscription.ts";
import { endLeases } from "./credit-leases.ts";
import { grantIdOf, insertGrant } from "./ledger-store.ts";
import type { PaymentProvider, UnclaimedPayment } from "./ports/payment-provider.ts";
import { loadState } from "./subscription-store.ts";

/** The state with what is due at the period end applied (a read never waits for a sweep). */
export async function currentState(tx: Tx | Db, userId: string, now: Date) {
  const stored = await loadState(tx, userId);
  return { stored, state: periodEnded(stored, now).state };
}

/** Where a change came from: the provider's event and the payment it grants for, or neither (a command). */
export interface ChangeOrigin {
  eventId: string | null;
  paymentReference: string | null;
  /** What a subscription's paying event says was paid, should it have to go back; null: none. */
  payment?: PaidFacts | null;
}

/** A subscription payment as its event tells it. */
export interface PaidFacts extends Omit<UnclaimedPayment, "reason"> {
  /** The grant this payment makes (credit_grants.fulfilment_key): when it exists, it was granted. */
  fulfilmentKey: string;
  /**
   * The event is the invoice's (invoice.paid), which writes the invoice row a refund is applied to;
   * not the checkout's, which may come first (Stripe keeps no order between events).
   */
  ofInvoice: boolean;
}

/** Why a second subscription's payment went back. */
export const SECOND_SUBSCRIPTION_REFUND_REASON = "A second subscription was paid while another was live";

export function effectRunner(deps: { logger: Logger; provider: PaymentProvider }) {
  const { logger, provider } = deps;

  /**
   * A second subscription was paid while another is live (an older checkout left open, or two paid
   * at once): it is cancelled, and its payment goes back in full, as a deleted organisation's does
   * (webhooks.ts). Only from its invoice's event: a refund the checkout's event made could reach us
   * before the invoice row it is applied to, and be lost; the provider refunds a payment once
   * however many events ask. Never a payment that was granted: a late event of a subscription that
   * ran and ended (a retried or re-sent event) lands here too, and its money was kept for its plan.
   */
  async function refundSecondSubscription(
    tx: Tx,
    userId: string,
    subscriptionId: string,
    origin: ChangeOrigin,
  ): Promise<void> {
    const context = { userId, subscriptionId, eventId: origin.eventId };
    const payment = origin.payment;
    if (payment) {
      if (await grantIdOf(tx, payment.fulfilmentKey)) {
        logger.warn(context, "A late event of a subscription whose payment was granted: not refunded");
        return;
      }
      if (!payment.ofInvoice) {
        logger.warn(context, "A second subscription was cancelled; its invoice's event refunds it");
        return;
      }
    }
    const refunded = payment
      ? await provider.refundUnclaimedPayment(tx, { ...payment, reason: SECOND_SUBSCRIPTION_REFUND_REASON })
      : false;
    if (refunded) {
      logger.warn(context, "A second subscription was cancelled and its payment refunded in full");
      return;
    }
    logger.error(
      context,
      "Billing needs attention: a second subscription was cancelled but its payment could not be refunded automatically; refund it at the provider",
    );
  }

  return async function runEffects(
    tx: Tx,
    userId: string,
    effects: SubscriptionEffect[],
    origin: ChangeOrigin,
  ): Promise<void> {
    for (const effect of effects) {
      switch (effect.type) {
        case "grant": {
          const inserted = await insertGrant(tx, userId, effect.grant, origin);
          // Credits added end the organisation's leases (decision 051): its low-balance latch
          // clears only once the unreserved balance is back at the threshold, and what leases
          // held would keep it set after credits that brought the balance back. After the insert
          // is as safe as before it (no one else sees the new row), and a grant already made
          // (a second event of one payment) ends none.
          if (inserted) await endLeases(tx, { orgId: userId }, "credits_changed");
          logger.info({ userId, fulfilmentKey: effect.grant.fulfilmentKey, inserted }, "Credit grant");
          break;
        }
        case "provider_set_cancel_at_period_end":
          await provider.setCancelAtPeriodEnd(tx, effect.subscriptionId, effect.cancelAtPeriodEnd);
          break;
        case "provider_schedule_change":
          await provider.scheduleChange(tx, effect.subscriptionId, effect.productId);
          break;
        case "provider_cancel_now":
          await provider.cancelNow(tx, effect.subscriptionId, effect.refundLatestInvoice);
          if (effect.refundLatestInvoice)
            await refundSecondSubscription(tx, userId, effect.subscriptionId, origin);
          break;
        case "needs_attention":
          logger.error({ userId, reason: effect.reason, ...origin }, "Billing needs attention");
          break;
      }
    }
  };
}

export type RunEffects = ReturnType<typeof effectRunner>;
