// What every change to a user's subscription shares, whoever starts it (a user's command, a
// provider's event, a checkout): the state as it stands now, and running the effects the domain's
// decision calls for (grants, calls to the provider, alarms for an operator).
import type { Logger } from "pino";
import type { Db, Tx } from "../db/types.ts";
import { periodEnded, type SubscriptionEffect } from "../domain/subscription.ts";
import { insertGrant } from "./ledger-store.ts";
import type { PaymentProvider } from "./ports/payment-provider.ts";
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
}

export function effectRunner(deps: { logger: Logger; provider: PaymentProvider }) {
  const { logger, provider } = deps;
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
          if (effect.refundLatestInvoice) {
            logger.error(
              { userId, subscriptionId: effect.subscriptionId },
              "Second subscription cancelled; refund its invoice",
            );
          }
          break;
        case "needs_attention":
          logger.error({ userId, reason: effect.reason, ...origin }, "Billing needs attention");
          break;
      }
    }
  };
}

export type RunEffects = ReturnType<typeof effectRunner>;
