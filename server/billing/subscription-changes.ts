// What every change to a user's subscription shares, whoever starts it (a user's command, a
// provider's event, a checkout): the state as it stands now, and running the effects the domain's
// decision calls for (grants, calls to the provider, alarms for an operator).
import type { Logger } from "pino";
import type { Db, Tx } from "../db/types.ts";
import { periodEnded, type SubscriptionEffect } from "../domain/subscription.ts";
import { insertGrant } from "./ledger-store.ts";
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
  /** What the event says was paid, for a refund of a payment nothing is granted for; null: none. */
  payment?: Omit<UnclaimedPayment, "reason"> | null;
}

/** Why a second subscription's payment went back. */
export const SECOND_SUBSCRIPTION_REFUND_REASON = "A second subscription was paid while another was live";

export function effectRunner(deps: { logger: Logger; provider: PaymentProvider }) {
  const { logger, provider } = deps;

  /**
   * A second subscription was paid while another is live (an older checkout left open, or two paid
   * at once): it is cancelled, and its payment goes back in full, as a deleted organisation's does
   * (webhooks.ts). Its checkout's event and its first invoice's each come here; the provider refunds
   * a payment once however many events describe it. A checkout event that names neither the
   * invoice nor a payment intent leaves the refund to the invoice's event, which does.
   */
  async function refundSecondSubscription(
    tx: Tx,
    userId: string,
    subscriptionId: string,
    origin: ChangeOrigin,
  ): Promise<void> {
    const context = { userId, subscriptionId, eventId: origin.eventId };
    const payment = origin.payment;
    if (payment && !payment.paymentIntentId && !payment.providerInvoiceId) {
      logger.warn(context, "A second subscription was cancelled; its invoice's event refunds it");
      return;
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
