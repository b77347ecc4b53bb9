// What the webhook handler does with a verified, parsed event: one pure function from (the user's
// subscription state, the event, now) to (the next state, effects). The handler's transaction:
//   1. insert the event id into the processed-events table; if it was already there, answer 200
//      and stop (a redelivery);
//   2. find the user (event.userId, else by subscription or customer id) and lock their
//      subscription row (SELECT ... FOR UPDATE);
//   3. call fulfil() and save the new state;
//   4. execute the effects: "grant" inserts with ON CONFLICT (fulfilment_key) DO NOTHING; provider
//      calls are made (idempotently: cancelling an already-cancelled subscription is success);
//      "needs_attention" is logged at error level;
//   5. commit, answer 200.
// Step 4's unique fulfilment key is what makes each purchase granted once across DIFFERENT events
// (see fulfilment-keys.ts); step 1 only stops redeliveries of the same event.

import { type NewGrant, newGrant, toMillicredits } from "../domain/ledger.ts";
import type { TierLookup } from "../domain/subscription.ts";
import {
  providerStatusChanged,
  renewalFailed,
  renewalPaid,
  type SubscriptionEffect,
  type SubscriptionState,
  subscriptionEnded,
  subscriptionStarted,
  type Transition,
} from "../domain/subscription.ts";
import type { Catalogue } from "./catalogue.ts";
import type { BillingEvent } from "./ports/events.ts";
import { freeCreditsKey } from "./ports/fulfilment-keys.ts";

/**
 * The next subscription state and the effects of one billing event. `now` is the injected
 * clock's time when the event is processed. Never refuses: see subscription.ts on facts.
 */
export function fulfil(
  state: SubscriptionState,
  event: BillingEvent,
  now: Date,
  catalogue: Catalogue,
): Transition {
  const tiers: TierLookup = (productId) => catalogue.findTier(productId)?.tier;
  switch (event.kind) {
    case "topup_paid": {
      // Top-ups are refused to FREE users when the checkout is created. If the user became FREE
      // between paying and this event, the payment still stands: grant it.
      const offer = catalogue.findTopUp(event.productId);
      if (!offer) {
        const reason = `top-up session ${event.checkoutSessionId} paid for unknown product ${event.productId}`;
        return {
          ok: true,
          state,
          effects: [{ type: "needs_attention", reason }],
          note: "top-up for an unknown product",
        };
      }
      const grant = newGrant(
        "topup",
        toMillicredits(offer.topUp.tokenAmount),
        event.paidAt,
        offer.topUp.name,
        event.fulfilmentKey,
      );
      const effects: SubscriptionEffect[] = [{ type: "grant", grant }];
      return { ok: true, state, effects, note: null };
    }
    // The parsed events carry every field these transitions read (and a few they ignore).
    case "subscription_started":
      return subscriptionStarted(state, event, now, tiers);
    case "renewal_paid":
      return renewalPaid(state, event, now, tiers);
    case "renewal_failed":
      return renewalFailed(state, { subscriptionId: event.subscriptionId, period: event.period });
    case "subscription_updated":
      return providerStatusChanged(
        state,
        {
          subscriptionId: event.subscriptionId,
          status: event.status,
          cancelAtPeriodEnd: event.cancelAtPeriodEnd,
          productId: event.productId,
          // Unknown (the handler did not compare it with our last change) counts as current.
          current: event.current !== false,
        },
        tiers,
      );
    case "subscription_ended":
      return subscriptionEnded(state, { subscriptionId: event.subscriptionId });
    case "ignored":
      return { ok: true, state, effects: [], note: event.reason };
    case "invoice_document":
    case "charge_refunded":
    case "dispute":
    case "vat_id_checked":
    case "card_saved":
    case "card_updated":
    case "card_detached":
    case "auto_top_up_paid":
    case "auto_top_up_failed":
    case "auto_top_up_voided":
      // Handled before fulfilment (billing/auto-top-up/ for the last six) (billing/invoices.ts, billing/reversals.ts, billing/webhooks.ts):
      // no subscription change.
      return { ok: true, state, effects: [], note: null };
  }
}

/**
 * The free initial credits, granted when the user verifies their e-mail. Keyed by user, so
 * verifying twice (or two verification links racing) grants once. `credits` is the configured
 * amount; zero or less means none are granted.
 */
export function initialFreeGrant(userId: string, credits: number, verifiedAt: Date): NewGrant | null {
  const amount = toMillicredits(credits);
  if (amount <= 0) return null;
  return newGrant("free", amount, verifiedAt, "Free plan", freeCreditsKey(userId));
}
