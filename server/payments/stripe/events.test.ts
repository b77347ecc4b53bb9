import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { PRODUCT_IDS } from "../../../contract/product-ids.ts";
import type { BillingEvent } from "../../billing/ports/events.ts";
import {
  type CheckoutSessionInput,
  checkoutSessionCompletedEvent,
  invoicePaidEvent,
  invoicePaymentFailedEvent,
  type SubscriptionInvoiceInput,
  type SubscriptionObjectInput,
  subscriptionDeletedEvent,
  subscriptionUpdatedEvent,
} from "../local/event-builders.ts";
import { parseStripeEvent, parseStripeEventJson } from "./event-parser.ts";
import { newStripeId, STRIPE_API_VERSION } from "./format.ts";
import { signPayload } from "./signature.ts";

const ids = PRODUCT_IDS.test;
const s = (iso: string) => Date.parse(iso) / 1000;
const d = (iso: string) => new Date(iso);

const T_PAY = s("2025-01-10T09:00:00.000Z");
const P1 = { start: T_PAY, end: s("2025-02-10T09:00:00.000Z") };
const P2 = { start: P1.end, end: s("2025-03-10T09:00:00.000Z") };

const GERMAN_BUYER = { name: "Erika Mustermann", email: "erika@example.com", country: "DE", vatId: null };
const FRENCH_BUSINESS = {
  name: "Exemple SARL",
  email: "compta@example.fr",
  country: "FR",
  vatId: "FR40303265045",
};
/** Tier A's 79 € net for a consumer in Germany: 19 % is 15.01 €. */
const GERMAN_VAT = {
  amount: 1501,
  rateBasisPoints: 1900,
  treatment: "domestic" as const,
  buyer: GERMAN_BUYER,
};
const REVERSE_CHARGE = {
  amount: 0,
  rateBasisPoints: 0,
  treatment: "reverse_charge" as const,
  buyer: FRENCH_BUSINESS,
};
const GERMAN_PAYMENT = {
  net: 7900,
  tax: 1501,
  total: 9401,
  currency: "eur",
  reverseCharge: false,
  buyer: GERMAN_BUYER,
};

const SUBSCRIPTION_SESSION: CheckoutSessionInput = {
  id: "cs_test_sub1",
  mode: "subscription",
  userId: "user_42",
  customerId: "cus_42",
  productId: ids.tiers.A.product,
  priceId: ids.tiers.A.price,
  amountSubtotal: 7900,
  tax: GERMAN_VAT,
  currency: "eur",
  created: T_PAY - 60,
  expiresAt: T_PAY + 86_400,
  successUrl: "http://localhost:4321/payment/success",
  cancelUrl: "http://localhost:4321/payment/failed",
  subscriptionId: "sub_1",
  invoiceId: "in_first",
  paymentIntentId: null,
};
const TOPUP_SESSION: CheckoutSessionInput = {
  ...SUBSCRIPTION_SESSION,
  id: "cs_test_top1",
  mode: "payment",
  productId: ids.topUps["500"].product,
  priceId: ids.topUps["500"].price,
  amountSubtotal: 5000,
  tax: REVERSE_CHARGE,
  subscriptionId: null,
  invoiceId: null,
  paymentIntentId: "pi_1",
};
const FIRST_INVOICE: SubscriptionInvoiceInput = {
  id: "in_first",
  customerId: "cus_42",
  subscriptionId: "sub_1",
  subscriptionItemId: "si_1",
  userId: "user_42",
  productId: ids.tiers.A.product,
  productName: "Tier A",
  priceId: ids.tiers.A.price,
  billingReason: "subscription_create",
  amount: 7900,
  tax: GERMAN_VAT,
  currency: "eur",
  period: P1,
  created: T_PAY,
  attemptCount: 1,
};
const RENEWAL_INVOICE: SubscriptionInvoiceInput = {
  ...FIRST_INVOICE,
  id: "in_renew",
  billingReason: "subscription_cycle",
  period: P2,
  created: P2.start,
};
const SUBSCRIPTION: SubscriptionObjectInput = {
  id: "sub_1",
  customerId: "cus_42",
  userId: "user_42",
  productId: ids.tiers.A.product,
  priceId: ids.tiers.A.price,
  unitAmount: 7900,
  currency: "eur",
  subscriptionItemId: "si_1",
  status: "active",
  currentPeriod: P1,
  cancelAtPeriodEnd: true,
  created: T_PAY,
  canceledAt: null,
  endedAt: null,
  latestInvoiceId: "in_first",
};

const meta = (eventId: string, created = T_PAY + 1) => ({ eventId, created });
const ref = (eventId: string, eventType: string, created = T_PAY + 1) => ({
  eventId,
  eventType,
  created: new Date(created * 1000),
  livemode: false,
});

function parsed(event: unknown): BillingEvent {
  const result = parseStripeEvent(event);
  if (!result.ok) throw new Error(result.error);
  return result.event;
}

describe("builders", () => {
  it("say they are the installed SDK's API version", () => {
    expect(STRIPE_API_VERSION).toBe(Stripe.API_VERSION);
  });

  it("build Stripe's event envelope", () => {
    const event = checkoutSessionCompletedEvent(meta("evt_1"), SUBSCRIPTION_SESSION);
    expect(event).toMatchObject({
      id: "evt_1",
      object: "event",
      api_version: STRIPE_API_VERSION,
      created: T_PAY + 1,
      livemode: false,
      type: "checkout.session.completed",
      data: { object: { object: "checkout.session" } },
    });
  });

  it.each([
    [
      "subscription mode",
      SUBSCRIPTION_SESSION,
      { subscription: "sub_1", invoice: "in_first", payment_intent: null },
    ],
    ["payment mode", TOPUP_SESSION, { subscription: null, invoice: null, payment_intent: "pi_1" }],
  ])("a completed checkout session in %s", (_case, session, links) => {
    const object = checkoutSessionCompletedEvent(meta("evt_1"), session).data.object;
    expect(object).toMatchObject({
      id: session.id,
      mode: session.mode,
      status: "complete",
      payment_status: "paid",
      client_reference_id: "user_42",
      customer: "cus_42",
      amount_subtotal: session.amountSubtotal,
      amount_total: session.amountSubtotal + (session.tax?.amount ?? 0),
      total_details: { amount_tax: session.tax?.amount ?? 0 },
      customer_details: {
        name: session.tax?.buyer.name,
        email: session.tax?.buyer.email,
        address: { country: session.tax?.buyer.country },
        tax_exempt: session.tax?.treatment === "reverse_charge" ? "reverse" : "none",
        tax_ids: session.tax?.buyer.vatId ? [{ type: "eu_vat", value: session.tax.buyer.vatId }] : [],
      },
      automatic_tax: { enabled: true, status: "complete" },
      payment_method_types: ["card"],
      currency: "eur",
      metadata: {
        user_id: "user_42",
        product_id: session.productId,
        price_id: session.priceId,
        kind: session.mode === "subscription" ? "subscription" : "topup",
      },
      ...links,
    });
  });

  it("an invoice names its subscription and period where the current API puts them", () => {
    const object = invoicePaidEvent(meta("evt_2"), RENEWAL_INVOICE, P2.start + 5).data.object;
    expect(object).toMatchObject({
      billing_reason: "subscription_cycle",
      status: "paid",
      subtotal: 7900,
      total_excluding_tax: 7900,
      total: 9401,
      amount_paid: 9401,
      total_taxes: [
        {
          amount: 1501,
          tax_behavior: "exclusive",
          taxability_reason: "standard_rated",
          taxable_amount: 7900,
        },
      ],
      customer_name: "Erika Mustermann",
      customer_address: { country: "DE" },
      customer_tax_exempt: "none",
      parent: {
        type: "subscription_details",
        subscription_details: { subscription: "sub_1", metadata: { user_id: "user_42" } },
      },
      status_transitions: { paid_at: P2.start + 5 },
    });
    expect(object.lines.data[0]).toMatchObject({
      period: P2,
      pricing: { price_details: { product: ids.tiers.A.product, price: ids.tiers.A.price } },
    });
  });

  it("a failed invoice is open, unpaid, with the next attempt", () => {
    const object = invoicePaymentFailedEvent(meta("evt_3"), RENEWAL_INVOICE, P2.start + 86_400).data.object;
    expect(object).toMatchObject({
      status: "open",
      amount_paid: 0,
      amount_remaining: 9401,
      next_payment_attempt: P2.start + 86_400,
    });
  });

  it("a subscription keeps its period on its item, with cancel_at when cancelling", () => {
    const event = subscriptionUpdatedEvent(meta("evt_4"), SUBSCRIPTION, { cancel_at_period_end: false });
    expect(event.data).toMatchObject({
      object: {
        status: "active",
        cancel_at_period_end: true,
        cancel_at: P1.end,
        items: {
          data: [
            {
              current_period_start: P1.start,
              current_period_end: P1.end,
              price: { product: ids.tiers.A.product },
            },
          ],
        },
      },
      previous_attributes: { cancel_at_period_end: false },
    });
  });

  it("the official SDK accepts a signed built event and reads it back unchanged", () => {
    const event = invoicePaidEvent(meta("evt_sdk"), RENEWAL_INVOICE, P2.start + 5);
    const body = JSON.stringify(event);
    const now = Math.floor(Date.now() / 1000);
    const read = Stripe.webhooks.constructEvent(body, signPayload(body, "whsec_x", now), "whsec_x");
    expect(read.type).toBe("invoice.paid");
    expect(read).toEqual(event);
  });
});

describe("parseStripeEvent: every event type", () => {
  it("checkout.session.completed, payment mode -> topup_paid keyed by the session", () => {
    expect(parsed(checkoutSessionCompletedEvent(meta("evt_t"), TOPUP_SESSION))).toEqual({
      ...ref("evt_t", "checkout.session.completed"),
      kind: "topup_paid",
      userId: "user_42",
      customerId: "cus_42",
      checkoutSessionId: "cs_test_top1",
      productId: ids.topUps["500"].product,
      payment: {
        net: 5000,
        tax: 0,
        total: 5000,
        currency: "eur",
        reverseCharge: true,
        buyer: FRENCH_BUSINESS,
      },
      invoiceId: null,
      paymentIntentId: "pi_1",
      paidAt: new Date((T_PAY + 1) * 1000),
      fulfilmentKey: "topup:cs_test_top1",
    });
  });

  it("checkout.session.completed, subscription mode -> subscription_started without a period", () => {
    expect(parsed(checkoutSessionCompletedEvent(meta("evt_c"), SUBSCRIPTION_SESSION))).toEqual({
      ...ref("evt_c", "checkout.session.completed"),
      kind: "subscription_started",
      userId: "user_42",
      customerId: "cus_42",
      subscriptionId: "sub_1",
      productId: ids.tiers.A.product,
      period: null,
      paidAt: new Date((T_PAY + 1) * 1000),
      checkoutSessionId: "cs_test_sub1",
      invoiceId: "in_first",
      payment: GERMAN_PAYMENT,
      document: null,
      fulfilmentKey: "subscription:sub_1:first",
    });
  });

  it("invoice.paid subscription_create -> subscription_started with the line's period", () => {
    expect(parsed(invoicePaidEvent(meta("evt_i"), FIRST_INVOICE, T_PAY + 2))).toEqual({
      ...ref("evt_i", "invoice.paid"),
      kind: "subscription_started",
      userId: "user_42",
      customerId: "cus_42",
      subscriptionId: "sub_1",
      productId: ids.tiers.A.product,
      period: { start: d("2025-01-10T09:00:00.000Z"), end: d("2025-02-10T09:00:00.000Z") },
      paidAt: new Date((T_PAY + 2) * 1000),
      checkoutSessionId: null,
      invoiceId: "in_first",
      payment: GERMAN_PAYMENT,
      document: null,
      fulfilmentKey: "subscription:sub_1:first",
    });
  });

  it("invoice.paid subscription_cycle -> renewal_paid keyed by subscription and period start", () => {
    expect(parsed(invoicePaidEvent(meta("evt_r", P2.start + 9), RENEWAL_INVOICE, P2.start + 5))).toEqual({
      ...ref("evt_r", "invoice.paid", P2.start + 9),
      kind: "renewal_paid",
      userId: "user_42",
      customerId: "cus_42",
      subscriptionId: "sub_1",
      invoiceId: "in_renew",
      productId: ids.tiers.A.product,
      period: { start: d("2025-02-10T09:00:00.000Z"), end: d("2025-03-10T09:00:00.000Z") },
      paidAt: new Date((P2.start + 5) * 1000),
      payment: GERMAN_PAYMENT,
      document: null,
      fulfilmentKey: `subscription:sub_1:period:${P2.start}`,
    });
  });

  it.each([
    ["with a next attempt", P2.start + 86_400, new Date((P2.start + 86_400) * 1000)],
    ["on the last attempt", null, null],
  ])("invoice.payment_failed subscription_cycle -> renewal_failed %s", (_case, nextAttempt, expected) => {
    expect(
      parsed(invoicePaymentFailedEvent(meta("evt_f"), { ...RENEWAL_INVOICE, attemptCount: 2 }, nextAttempt)),
    ).toEqual({
      ...ref("evt_f", "invoice.payment_failed"),
      kind: "renewal_failed",
      userId: "user_42",
      customerId: "cus_42",
      subscriptionId: "sub_1",
      invoiceId: "in_renew",
      period: { start: d("2025-02-10T09:00:00.000Z"), end: d("2025-03-10T09:00:00.000Z") },
      attemptCount: 2,
      nextPaymentAttempt: expected,
      productId: ids.tiers.A.product,
      payment: GERMAN_PAYMENT,
      document: null,
      fulfilmentKey: `subscription:sub_1:period:${P2.start}`,
    });
  });

  it("customer.subscription.updated -> subscription_updated", () => {
    expect(
      parsed(subscriptionUpdatedEvent(meta("evt_u"), { ...SUBSCRIPTION, status: "past_due" }, {})),
    ).toEqual({
      ...ref("evt_u", "customer.subscription.updated"),
      kind: "subscription_updated",
      userId: "user_42",
      customerId: "cus_42",
      subscriptionId: "sub_1",
      status: "past_due",
      cancelAtPeriodEnd: true,
      productId: ids.tiers.A.product,
      period: { start: d("2025-01-10T09:00:00.000Z"), end: d("2025-02-10T09:00:00.000Z") },
    });
  });

  it.each([
    ["ended_at", { endedAt: P1.end, canceledAt: P1.start + 10 }, P1.end],
    ["canceled_at when not ended", { endedAt: null, canceledAt: P1.start + 10 }, P1.start + 10],
    ["the event time when neither", { endedAt: null, canceledAt: null }, T_PAY + 1],
  ])("customer.subscription.deleted -> subscription_ended at %s", (_case, times, endedAt) => {
    expect(
      parsed(subscriptionDeletedEvent(meta("evt_d"), { ...SUBSCRIPTION, status: "canceled", ...times })),
    ).toEqual({
      ...ref("evt_d", "customer.subscription.deleted"),
      kind: "subscription_ended",
      userId: "user_42",
      customerId: "cus_42",
      subscriptionId: "sub_1",
      endedAt: new Date(endedAt * 1000),
    });
  });
});

describe("fulfilment keys: one purchase, one key", () => {
  const key = (event: unknown) => {
    const e = parsed(event);
    return "fulfilmentKey" in e ? e.fulfilmentKey : null;
  };

  it("a first subscription payment arrives as two events with different ids and the same key", () => {
    const viaCheckout = key(checkoutSessionCompletedEvent(meta("evt_a"), SUBSCRIPTION_SESSION));
    const viaInvoice = key(invoicePaidEvent(meta("evt_b"), FIRST_INVOICE, T_PAY));
    expect(viaCheckout).toBe(viaInvoice);
    expect(viaCheckout).not.toBeNull();
  });

  it("even when the checkout event does not name the invoice", () => {
    const bare = checkoutSessionCompletedEvent(meta("evt_a"), { ...SUBSCRIPTION_SESSION, invoiceId: null });
    expect(key(bare)).toBe(key(invoicePaidEvent(meta("evt_b"), FIRST_INVOICE, T_PAY)));
  });

  it("a redelivery has the same key", () => {
    const once = key(invoicePaidEvent(meta("evt_r"), RENEWAL_INVOICE, P2.start));
    const again = key(invoicePaidEvent(meta("evt_r", P2.start + 3600), RENEWAL_INVOICE, P2.start));
    expect(again).toBe(once);
  });

  it("different purchases have different keys", () => {
    const keys = [
      key(checkoutSessionCompletedEvent(meta("e1"), SUBSCRIPTION_SESSION)),
      key(invoicePaidEvent(meta("e2"), RENEWAL_INVOICE, P2.start)),
      key(
        invoicePaidEvent(
          meta("e3"),
          { ...RENEWAL_INVOICE, id: "in_3", period: { start: P2.end, end: P2.end + 2_419_200 } },
          P2.end,
        ),
      ),
      key(checkoutSessionCompletedEvent(meta("e4"), TOPUP_SESSION)),
      key(checkoutSessionCompletedEvent(meta("e5"), { ...TOPUP_SESSION, id: "cs_test_top2" })),
      key(checkoutSessionCompletedEvent(meta("e6"), { ...SUBSCRIPTION_SESSION, subscriptionId: "sub_2" })),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("a re-issued invoice for an already paid period has that period's key", () => {
    const original = key(invoicePaidEvent(meta("e1"), RENEWAL_INVOICE, P2.start));
    const reissued = key(
      invoicePaidEvent(meta("e2"), { ...RENEWAL_INVOICE, id: "in_reissued" }, P2.start + 999),
    );
    expect(reissued).toBe(original);
  });
});

describe("parseStripeEvent: older API versions and expanded objects", () => {
  it("reads an invoice shaped before 2025-03-31 (invoice.subscription, line.price)", () => {
    const legacy = {
      id: "evt_old",
      object: "event",
      type: "invoice.paid",
      created: P2.start,
      data: {
        object: {
          id: "in_old",
          object: "invoice",
          billing_reason: "subscription_cycle",
          customer: { id: "cus_42", object: "customer" },
          currency: "eur",
          amount_paid: 7900,
          subscription: "sub_1",
          status_transitions: { paid_at: P2.start },
          lines: {
            data: [
              {
                period: P2,
                price: { id: ids.tiers.B.price, product: ids.tiers.B.product },
                proration: false,
              },
            ],
          },
        },
      },
    };
    expect(parsed(legacy)).toMatchObject({
      kind: "renewal_paid",
      subscriptionId: "sub_1",
      customerId: "cus_42",
      userId: null,
      productId: ids.tiers.B.product,
      fulfilmentKey: `subscription:sub_1:period:${P2.start}`,
    });
  });

  it("skips proration lines to find the subscription's own line", () => {
    const event = invoicePaidEvent(meta("evt_p"), RENEWAL_INVOICE, P2.start);
    const own = event.data.object.lines.data[0];
    const proration = {
      ...own,
      parent: {
        ...own?.parent,
        subscription_item_details: { ...own?.parent.subscription_item_details, proration: true },
      },
      pricing: { type: "price_details", price_details: { price: "price_x", product: "prod_proration" } },
    };
    const withProration = {
      ...event,
      data: { object: { ...event.data.object, lines: { data: [proration, own] } } },
    };
    expect(parsed(withProration)).toMatchObject({ kind: "renewal_paid", productId: ids.tiers.A.product });
  });

  it("reads a subscription's period from the top level on older versions", () => {
    const event = subscriptionUpdatedEvent(meta("evt_u"), SUBSCRIPTION, {});
    const item = event.data.object.items.data[0];
    const legacy = {
      ...event,
      data: {
        object: {
          ...event.data.object,
          current_period_start: P2.start,
          current_period_end: P2.end,
          items: { data: [{ price: item?.price }] },
        },
      },
    };
    expect(parsed(legacy)).toMatchObject({
      kind: "subscription_updated",
      period: { start: new Date(P2.start * 1000), end: new Date(P2.end * 1000) },
    });
  });

  it("takes the id of an expanded subscription on a checkout session", () => {
    const event = checkoutSessionCompletedEvent(meta("evt_x"), SUBSCRIPTION_SESSION);
    const expanded = {
      ...event,
      data: { object: { ...event.data.object, subscription: { id: "sub_1", object: "subscription" } } },
    };
    expect(parsed(expanded)).toMatchObject({ kind: "subscription_started", subscriptionId: "sub_1" });
  });
});

describe("parseStripeEvent: ignored and refused", () => {
  const session = checkoutSessionCompletedEvent(meta("evt_s"), SUBSCRIPTION_SESSION);
  const withSession = (patch: Record<string, unknown>) => ({
    ...session,
    data: { object: { ...session.data.object, ...patch } },
  });
  const invoice = invoicePaidEvent(meta("evt_i"), RENEWAL_INVOICE, P2.start);
  const withInvoice = (patch: Record<string, unknown>) => ({
    ...invoice,
    data: { object: { ...invoice.data.object, ...patch } },
  });

  it.each([
    [
      "an unpaid checkout session",
      withSession({ payment_status: "unpaid" }),
      "checkout session not paid yet (payment_status unpaid)",
    ],
    [
      "a setup-mode session naming its setup intent only (setup_intent.succeeded saves the card)",
      withSession({ mode: "setup", payment_status: "no_payment_required", setup_intent: "seti_1" }),
      "setup-mode session names its setup intent only: setup_intent.succeeded carries the card",
    ],
    [
      "a setup-mode session without org_id (not a setup page of ours)",
      withSession({ mode: "setup", payment_status: "no_payment_required", metadata: { user_id: "u" } }),
      "setup-mode checkout session without metadata.org_id",
    ],
    ["a session in another mode", withSession({ mode: "embedded" }), "checkout session in embedded mode"],
    [
      "a proration invoice",
      withInvoice({ billing_reason: "subscription_update" }),
      "invoice billing_reason subscription_update",
    ],
    [
      "an invoice without a subscription",
      withInvoice({ parent: null }),
      "invoice not generated by a subscription",
    ],
    [
      "a failed first payment",
      invoicePaymentFailedEvent(meta("evt_ff"), FIRST_INVOICE, null),
      "first payment failed",
    ],
    [
      "an event type we do not use",
      { ...session, type: "charge.succeeded" },
      "event type charge.succeeded is not used",
    ],
  ])("ignores %s", (_case, event, reason) => {
    expect(parsed(event)).toMatchObject({ kind: "ignored", reason });
  });

  it.each([
    ["something that is not an event", { hello: "world" }, /not a Stripe event/],
    [
      "a session with no user",
      withSession({ client_reference_id: null, metadata: {} }),
      /no client_reference_id or user_id metadata/,
    ],
    ["a session with no product", withSession({ metadata: { user_id: "u" } }), /no product_id metadata/],
    [
      "a subscription session without its subscription",
      withSession({ subscription: null }),
      /without a subscription/,
    ],
    ["an invoice without lines", withInvoice({ lines: { data: [] } }), /no subscription line/],
    [
      "a setup-mode session of ours without its setup intent",
      withSession({ mode: "setup", payment_status: "no_payment_required", setup_intent: null }),
      /setup-mode session without a setup_intent/,
    ],
    ["an invoice with a malformed amount", withInvoice({ amount_paid: "7900" }), /amount_paid/],
  ])("refuses %s", (_case, event, error) => {
    const result = parseStripeEvent(event);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(error);
  });

  it("falls back to the user_id metadata when client_reference_id is missing", () => {
    expect(parsed(withSession({ client_reference_id: null }))).toMatchObject({ userId: "user_42" });
  });

  it("uses the event time as the payment time when paid_at is missing", () => {
    expect(parsed(withInvoice({ status_transitions: null }))).toMatchObject({
      paidAt: new Date((T_PAY + 1) * 1000),
    });
  });
});

describe("parseStripeEventJson", () => {
  it("parses the raw body", () => {
    expect(
      parseStripeEventJson(JSON.stringify(checkoutSessionCompletedEvent(meta("evt_j"), TOPUP_SESSION))),
    ).toMatchObject({
      ok: true,
      event: { kind: "topup_paid" },
    });
  });

  it("refuses a body that is not JSON", () => {
    expect(parseStripeEventJson("{nope")).toEqual({ ok: false, error: "body is not JSON" });
  });
});

describe("newStripeId", () => {
  it("looks like a Stripe id", () => {
    expect(newStripeId("evt")).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(newStripeId("cs_test")).toMatch(/^cs_test_[0-9A-Za-z]{24}$/);
  });

  it("does not repeat", () => {
    const many = new Set(Array.from({ length: 1000 }, () => newStripeId("evt")));
    expect(many.size).toBe(1000);
  });

  it("skips biased bytes", () => {
    // 248-255 would make the first characters of the alphabet likelier: they are skipped.
    const bytes = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i % 2 === 0 ? 250 : 63));
    expect(newStripeId("x", bytes)).toBe(`x_${"1".repeat(24)}`);
  });
});
