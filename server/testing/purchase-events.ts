// The Stripe events of one purchase, as the provider would send them, for webhook tests. Each
// builder call makes a new event id for the same fact (Stripe re-sending a fact under a new event);
// sending the same built event twice is a redelivery.
import { TIERS, TOP_UPS } from "../../contract/catalogue.ts";
import type { TierKey, TopUpKey } from "../../contract/product-ids.ts";
import { firstPaymentKey, topUpKey } from "../billing/ports/fulfilment-keys.ts";
import { addMonths } from "../domain/ledger.ts";
import {
  checkoutSessionAsyncPaymentEvent,
  checkoutSessionCompletedEvent,
  invoicePaidEvent,
  type SubscriptionObjectInput,
  subscriptionUpdatedEvent,
} from "../payments/local/event-builders.ts";
import { newStripeId } from "../payments/stripe/format.ts";
import { TIER, TOP_UP } from "./billing.ts";
import { TEST_PORTAL_URL } from "./test-app.ts";

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

const meta = (now: Date) => () => ({ eventId: newStripeId("evt"), created: seconds(now) });

/** The three events Stripe sends for one paid subscription checkout of `tier`, paid at `now`. */
export function subscriptionPurchase(userId: string, now: Date, tierKey: TierKey = "C") {
  const ids = {
    session: newStripeId("cs_test"),
    subscription: newStripeId("sub"),
    invoice: newStripeId("in"),
    customer: newStripeId("cus"),
  };
  const period = { start: seconds(now), end: seconds(addMonths(now, 1)) };
  const tier = TIER(tierKey);
  const info = TIERS.find((t) => t.key === tierKey);
  if (!info) throw new Error(`no tier ${tierKey}`);
  const next = meta(now);
  const session = {
    id: ids.session,
    mode: "subscription" as const,
    userId,
    customerId: ids.customer,
    productId: tier.product,
    priceId: tier.price,
    amountSubtotal: info.unitAmount,
    currency: "eur",
    created: seconds(now),
    expiresAt: seconds(now) + 86_400,
    successUrl: `${TEST_PORTAL_URL}/payment/success`,
    cancelUrl: `${TEST_PORTAL_URL}/payment/failed`,
    subscriptionId: ids.subscription,
    invoiceId: ids.invoice,
    paymentIntentId: null,
  };
  return {
    ids,
    /** The one grant the purchase must produce. */
    grant: {
      fulfilmentKey: firstPaymentKey(ids.subscription),
      credits: info.creditsPerMonth,
      kind: "subscription" as const,
    },
    events: {
      checkout: () => checkoutSessionCompletedEvent(next(), session),
      /** The first invoice's invoice.paid; `end` moves its period's end (Stripe's may differ from ours). */
      invoice: (end: Date = addMonths(now, 1)) =>
        invoicePaidEvent(
          next(),
          {
            id: ids.invoice,
            customerId: ids.customer,
            subscriptionId: ids.subscription,
            subscriptionItemId: "si_1",
            userId,
            productId: tier.product,
            productName: info.name,
            priceId: tier.price,
            billingReason: "subscription_create",
            amount: info.unitAmount,
            currency: "eur",
            period: { start: period.start, end: seconds(end) },
            created: seconds(now),
            attemptCount: 1,
          },
          seconds(now),
        ),
      /** A snapshot of the subscription (changed as told), made at `at` (default: the purchase). */
      updated: (change: Partial<SubscriptionObjectInput> = {}, at: Date = now) =>
        subscriptionUpdatedEvent(
          { eventId: newStripeId("evt"), created: seconds(at) },
          {
            id: ids.subscription,
            customerId: ids.customer,
            userId,
            productId: tier.product,
            priceId: tier.price,
            unitAmount: info.unitAmount,
            currency: "eur",
            subscriptionItemId: "si_1",
            status: "active",
            currentPeriod: period,
            cancelAtPeriodEnd: false,
            created: seconds(now),
            canceledAt: null,
            endedAt: null,
            latestInvoiceId: ids.invoice,
            ...change,
          },
          { status: "incomplete" },
        ),
    },
  };
}

/** The checkout.session.completed event of one paid top-up checkout (a new event id each call). */
export function topUpPurchase(userId: string, now: Date, pack: TopUpKey = "1000") {
  const info = TOP_UPS.find((t) => t.key === pack);
  if (!info) throw new Error(`no top-up ${pack}`);
  const next = meta(now);
  const session = {
    id: newStripeId("cs_test"),
    mode: "payment" as const,
    userId,
    customerId: newStripeId("cus"),
    productId: TOP_UP(pack).product,
    priceId: TOP_UP(pack).price,
    amountSubtotal: info.unitAmount,
    currency: "eur",
    created: seconds(now),
    expiresAt: seconds(now) + 86_400,
    successUrl: `${TEST_PORTAL_URL}/payment/success`,
    cancelUrl: `${TEST_PORTAL_URL}/payment/failed`,
    subscriptionId: null,
    invoiceId: null,
    paymentIntentId: newStripeId("pi"),
  };
  return {
    session,
    grant: { fulfilmentKey: topUpKey(session.id), credits: info.tokenAmount, kind: "topup" as const },
    checkout: () => checkoutSessionCompletedEvent(next(), session),
    /** A delayed payment method: the session completes unpaid, then its payment succeeds or fails. */
    completedUnpaid: () => checkoutSessionCompletedEvent(next(), session, "unpaid"),
    asyncSucceeded: () => checkoutSessionAsyncPaymentEvent(next(), session, "succeeded"),
    asyncFailed: () => checkoutSessionAsyncPaymentEvent(next(), session, "failed"),
  };
}
