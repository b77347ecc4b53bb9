import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRODUCT_IDS } from "../../contract/product-ids.ts";
import { fromMillicredits, type NewGrant, toMillicredits } from "../domain/ledger.ts";
import { FREE, type PaidState, type SubscriptionState } from "../domain/subscription.ts";
import {
  type CheckoutSessionInput,
  checkoutSessionCompletedEvent,
  invoicePaidEvent,
  invoicePaymentFailedEvent,
  type SubscriptionInvoiceInput,
  subscriptionDeletedEvent,
  subscriptionUpdatedEvent,
} from "../payments/local/event-builders.ts";
import { parseStripeEvent } from "../payments/stripe/event-parser.ts";
import { createCatalogue } from "./catalogue.ts";
import { fulfil, initialFreeGrant } from "./fulfilment.ts";
import type { BillingEvent } from "./ports/events.ts";
import { autoTopUpKey } from "./ports/fulfilment-keys.ts";

const catalogue = createCatalogue();
const ids = PRODUCT_IDS.test;
const s = (iso: string) => Date.parse(iso) / 1000;
const T_PAY = s("2025-01-10T09:00:00.000Z");
const P1 = { start: T_PAY, end: s("2025-02-10T09:00:00.000Z") };
const P2 = { start: P1.end, end: s("2025-03-10T09:00:00.000Z") };

const SESSION: CheckoutSessionInput = {
  id: "cs_test_sub",
  mode: "subscription",
  userId: "user_42",
  customerId: "cus_42",
  productId: ids.tiers.A.product,
  priceId: ids.tiers.A.price,
  amountSubtotal: 7900,
  currency: "eur",
  created: T_PAY - 60,
  expiresAt: T_PAY + 86_400,
  successUrl: "http://localhost:4321/payment/success",
  cancelUrl: "http://localhost:4321/payment/failed",
  subscriptionId: "sub_1",
  invoiceId: "in_1",
  paymentIntentId: null,
};
const TOPUP: CheckoutSessionInput = {
  ...SESSION,
  id: "cs_test_top",
  mode: "payment",
  productId: ids.topUps["500"].product,
  priceId: ids.topUps["500"].price,
  amountSubtotal: 5000,
  subscriptionId: null,
  invoiceId: null,
  paymentIntentId: "pi_1",
};
const INVOICE_1: SubscriptionInvoiceInput = {
  id: "in_1",
  customerId: "cus_42",
  subscriptionId: "sub_1",
  subscriptionItemId: "si_1",
  userId: "user_42",
  productId: ids.tiers.A.product,
  productName: "Tier A",
  priceId: ids.tiers.A.price,
  billingReason: "subscription_create",
  amount: 7900,
  currency: "eur",
  period: P1,
  created: T_PAY,
  attemptCount: 1,
};
const INVOICE_2: SubscriptionInvoiceInput = {
  ...INVOICE_1,
  id: "in_2",
  billingReason: "subscription_cycle",
  period: P2,
  created: P2.start,
};

function parse(event: unknown): BillingEvent {
  const result = parseStripeEvent(event);
  if (!result.ok) throw new Error(result.error);
  return result.event;
}

const ACTIVE_A: PaidState = {
  status: "active",
  subscriptionId: "sub_1",
  productId: ids.tiers.A.product,
  currentPeriodStart: new Date(P1.start * 1000),
  currentPeriodEnd: new Date(P1.end * 1000),
  periodIsEstimate: false,
  cancelAtPeriodEnd: false,
  scheduledProductId: null,
};

/** Where a hand-made event came from. */
const REF = { eventId: "evt_r", eventType: "test", created: new Date(T_PAY * 1000), livemode: false };

describe("fulfil", () => {
  const topUpEvent = parse(checkoutSessionCompletedEvent({ eventId: "evt_t", created: T_PAY }, TOPUP));

  it.each([
    ["a FREE user (who became FREE after paying)", FREE],
    ["a paid user", ACTIVE_A],
  ])("a top-up grants the pack to %s and leaves the plan alone", (_case, state) => {
    const result = fulfil(state, topUpEvent, new Date(T_PAY * 1000), catalogue);
    expect(result).toEqual({
      ok: true,
      state,
      note: null,
      effects: [
        {
          type: "grant",
          grant: {
            kind: "topup",
            amount: toMillicredits(500),
            grantedAt: new Date(T_PAY * 1000),
            // Six Berlin months: 10:00 CET in January is 10:00 CEST in July.
            expiresAt: new Date("2025-07-10T08:00:00.000Z"),
            source: "500 credit pack",
            fulfilmentKey: "topup:cs_test_top",
          },
        },
      ],
    });
  });

  it("the 1000 pack grants 1000 credits", () => {
    const event = parse(
      checkoutSessionCompletedEvent(
        { eventId: "evt_t2", created: T_PAY },
        { ...TOPUP, id: "cs_2", productId: ids.topUps["1000"].product, priceId: ids.topUps["1000"].price },
      ),
    );
    const effect = fulfil(ACTIVE_A, event, new Date(T_PAY * 1000), catalogue).effects[0];
    expect(effect?.type === "grant" && [fromMillicredits(effect.grant.amount), effect.grant.source]).toEqual([
      1000,
      "1000 credit pack",
    ]);
  });

  it.each([
    [
      "a top-up for a product the catalogue does not sell",
      { ...TOPUP, productId: "prod_gone" },
      "top-up for an unknown product",
    ],
    [
      "a subscription to a live-set product on the test catalogue",
      { ...SESSION, productId: PRODUCT_IDS.live.tiers.A.product },
      "paid subscription for an unknown product",
    ],
  ])("%s needs an operator and grants nothing", (_case, session, note) => {
    const event = parse(checkoutSessionCompletedEvent({ eventId: "evt_x", created: T_PAY }, session));
    const result = fulfil(FREE, event, new Date(T_PAY * 1000), catalogue);
    expect(result.state).toBe(FREE);
    expect(result.note).toBe(note);
    expect(result.effects.map((e) => e.type)).toEqual(["needs_attention"]);
  });

  const SUBSCRIPTION = {
    id: "sub_1",
    customerId: "cus_42",
    userId: "user_42",
    productId: ids.tiers.A.product,
    priceId: ids.tiers.A.price,
    unitAmount: 7900,
    currency: "eur",
    subscriptionItemId: "si_1",
    status: "canceled",
    currentPeriod: P1,
    cancelAtPeriodEnd: false,
    created: T_PAY,
    canceledAt: P1.end,
    endedAt: P1.end,
    latestInvoiceId: "in_1",
  } as const;

  it.each([
    [
      "subscription_started",
      FREE,
      checkoutSessionCompletedEvent({ eventId: "e", created: T_PAY }, SESSION),
      { status: "active", subscriptionId: "sub_1", periodIsEstimate: true },
    ],
    [
      "renewal_failed",
      ACTIVE_A,
      invoicePaymentFailedEvent({ eventId: "e", created: P2.start }, INVOICE_2, P2.start + 86_400),
      { status: "past_due" },
    ],
    [
      "subscription_updated to canceled",
      ACTIVE_A,
      subscriptionUpdatedEvent({ eventId: "e", created: P1.end }, SUBSCRIPTION, { status: "active" }),
      { status: "free" },
    ],
    [
      "subscription_updated to another live status",
      ACTIVE_A,
      subscriptionUpdatedEvent(
        { eventId: "e", created: P1.end },
        { ...SUBSCRIPTION, status: "past_due", canceledAt: null, endedAt: null },
        { status: "active" },
      ),
      ACTIVE_A,
    ],
    [
      "subscription_ended",
      ACTIVE_A,
      subscriptionDeletedEvent({ eventId: "e", created: P1.end }, SUBSCRIPTION),
      { status: "free" },
    ],
  ] as const)("dispatches %s to the state machine", (_case, state, raw, expected) => {
    const result = fulfil(state, parse(raw), new Date(T_PAY * 1000), catalogue);
    expect(result.ok).toBe(true);
    expect(result.state).toMatchObject(expected);
  });

  it.each([
    [
      "an invoice document",
      {
        ...REF,
        kind: "invoice_document",
        document: { invoiceId: "in_9", number: "A-1", hostedInvoiceUrl: null, invoicePdfUrl: null },
      },
    ],
    [
      "a refund",
      {
        ...REF,
        kind: "charge_refunded",
        chargeId: "ch_1",
        paymentIntentId: "pi_1",
        invoiceId: null,
        customerId: "cus_42",
        amount: 5000,
        amountRefunded: 5000,
        currency: "eur",
      },
    ],
    [
      "a dispute",
      {
        ...REF,
        kind: "dispute",
        disputeId: "dp_1",
        chargeId: "ch_1",
        paymentIntentId: "pi_1",
        phase: "created",
        status: "needs_response",
      },
    ],
    [
      "a VAT ID's check",
      { ...REF, kind: "vat_id_checked", customerId: "cus_42", vatId: "DE136695976", status: "verified" },
    ],
    [
      "a saved card",
      {
        ...REF,
        kind: "card_saved",
        orgId: "0b7f3a52-5d2e-4c61-9a43-8f0c2d9e1a11",
        customerId: "cus_42",
        setupIntentId: "seti_1",
        setupAt: new Date(T_PAY * 1000),
        checkoutSessionId: null,
        paymentMethodId: "pm_1",
        openedBy: null,
      },
    ],
    [
      "a card's new details",
      {
        ...REF,
        kind: "card_updated",
        customerId: "cus_42",
        card: { paymentMethodId: "pm_1", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 },
      },
    ],
    ["a detached card", { ...REF, kind: "card_detached", customerId: "cus_42", paymentMethodId: "pm_1" }],
    [
      "an auto top-up paid",
      {
        ...REF,
        kind: "auto_top_up_paid",
        attemptId: "0b7f3a52-5d2e-4c61-9a43-8f0c2d9e1a12",
        customerId: "cus_42",
        invoiceId: "in_1",
        paymentIntentId: "pi_1",
        paidAt: new Date(T_PAY * 1000),
        payment: {
          net: 5000,
          tax: 950,
          total: 5950,
          currency: "eur",
          reverseCharge: false,
          buyer: { name: null, email: null, country: "DE", vatId: null },
        },
        document: { invoiceId: "in_1", number: null, hostedInvoiceUrl: null, invoicePdfUrl: null },
      },
    ],
    [
      "an auto top-up declined",
      {
        ...REF,
        kind: "auto_top_up_failed",
        attemptId: "0b7f3a52-5d2e-4c61-9a43-8f0c2d9e1a12",
        customerId: "cus_42",
        invoiceId: "in_1",
        actionRequired: false,
        code: "card_declined",
        payUrl: null,
      },
    ],
    [
      "an auto top-up's invoice voided",
      {
        ...REF,
        kind: "auto_top_up_voided",
        attemptId: "0b7f3a52-5d2e-4c61-9a43-8f0c2d9e1a12",
        customerId: "cus_42",
        invoiceId: "in_1",
      },
    ],
  ] as const)("%s changes neither the plan nor the credits here (its own handler does)", (_case, event) => {
    for (const state of [FREE, ACTIVE_A]) {
      expect(fulfil(state, event, new Date(T_PAY * 1000), catalogue)).toEqual({
        ok: true,
        state,
        effects: [],
        note: null,
      });
    }
  });

  describe("a provider's snapshot, by whether it is newer than our last change", () => {
    const cancelled = subscriptionUpdatedEvent(
      { eventId: "e", created: P1.start + 60 },
      { ...SUBSCRIPTION, status: "active", canceledAt: null, endedAt: null, cancelAtPeriodEnd: true },
      { cancel_at_period_end: false },
    );
    const withCurrent = (current: boolean | undefined): BillingEvent => {
      const event = parse(cancelled);
      if (event.kind !== "subscription_updated") throw new Error(event.kind);
      return current === undefined ? event : { ...event, current };
    };

    it.each([
      ["newer: applied", true, true],
      ["not compared (no earlier change known): applied", undefined, true],
      ["older: ignored", false, false],
    ] as const)("%s", (_case, current, applied) => {
      const result = fulfil(ACTIVE_A, withCurrent(current), new Date(T_PAY * 1000), catalogue);
      expect(result.state).toEqual(applied ? { ...ACTIVE_A, cancelAtPeriodEnd: true } : ACTIVE_A);
      expect(result.note).toBe(applied ? "changed at the provider" : "a snapshot older than our last change");
    });
  });

  it("says which session paid for which unknown top-up", () => {
    const event = parse(
      checkoutSessionCompletedEvent(
        { eventId: "evt_x", created: T_PAY },
        { ...TOPUP, productId: "prod_gone" },
      ),
    );
    expect(fulfil(ACTIVE_A, event, new Date(T_PAY * 1000), catalogue)).toEqual({
      ok: true,
      state: ACTIVE_A,
      effects: [
        { type: "needs_attention", reason: "top-up session cs_test_top paid for unknown product prod_gone" },
      ],
      note: "top-up for an unknown product",
    });
  });

  it("an ignored event changes nothing and says why", () => {
    const raw = {
      id: "evt_z",
      object: "event",
      type: "charge.succeeded",
      created: T_PAY,
      data: { object: {} },
    };
    expect(fulfil(ACTIVE_A, parse(raw), new Date(T_PAY * 1000), catalogue)).toEqual({
      ok: true,
      state: ACTIVE_A,
      effects: [],
      note: "event type charge.succeeded is not used",
    });
  });
});

describe("initialFreeGrant", () => {
  it.each([
    [100, { amount: 100_000 }],
    [2.5, { amount: 2_500 }],
  ])("%d configured credits", (credits, expected) => {
    const at = new Date("2025-01-01T10:00:00.000Z");
    expect(initialFreeGrant("u1", credits, at)).toEqual({
      kind: "free",
      amount: expected.amount,
      grantedAt: at,
      expiresAt: null,
      source: "Free plan",
      fulfilmentKey: "free:u1",
    });
  });

  it("is keyed by user, so verifying twice grants once", () => {
    const a = initialFreeGrant("u1", 100, new Date("2025-01-01T00:00:00Z"));
    const b = initialFreeGrant("u1", 100, new Date("2025-01-02T00:00:00Z"));
    expect(a?.fulfilmentKey).toBe(b?.fulfilmentKey);
  });

  it("grants nothing when the configured amount is zero", () => {
    expect(initialFreeGrant("u1", 0, new Date())).toBeNull();
  });
});

describe("one customer's story, delivered in any order, with redeliveries", () => {
  // Every event Stripe would send for: subscribe to Tier A, buy a top-up, the renewal's first
  // charge fails, the retry succeeds a day later.
  const story = [
    checkoutSessionCompletedEvent({ eventId: "evt_checkout", created: T_PAY + 1 }, SESSION),
    invoicePaidEvent({ eventId: "evt_first_invoice", created: T_PAY + 1 }, INVOICE_1, T_PAY),
    checkoutSessionCompletedEvent({ eventId: "evt_topup", created: T_PAY + 3600 }, TOPUP),
    invoicePaymentFailedEvent(
      { eventId: "evt_renewal_failed", created: P2.start + 60 },
      INVOICE_2,
      P2.start + 86_400,
    ),
    invoicePaidEvent(
      { eventId: "evt_renewal_paid", created: P2.start + 86_400 },
      { ...INVOICE_2, attemptCount: 2 },
      P2.start + 86_400,
    ),
  ].map(parse);

  /** What the webhook handler and the DB do: skip seen event ids, insert grants once per key. */
  function deliver(order: BillingEvent[]) {
    let state: SubscriptionState = FREE;
    let clock = 0;
    const seen = new Set<string>();
    const grants = new Map<string, NewGrant>();
    for (const event of order) {
      // Time only moves forward; an event is processed at or after its creation.
      clock = Math.max(clock, event.created.getTime()) + 1000;
      if (seen.has(event.eventId)) continue;
      seen.add(event.eventId);
      const result = fulfil(state, event, new Date(clock), catalogue);
      state = result.state;
      for (const effect of result.effects) {
        expect(effect.type).toBe("grant");
        if (effect.type === "grant" && !grants.has(effect.grant.fulfilmentKey)) {
          grants.set(effect.grant.fulfilmentKey, effect.grant);
        }
      }
    }
    return { state, grants };
  }

  // Computed inside each test, not while the file is collected: a fault in fulfil must fail a test,
  // not the collection (which Stryker's runner does not count as a failure).
  const deliverInOrder = () => deliver(story);

  it("in order: active on the renewed period, three grants", () => {
    const inOrder = deliverInOrder();
    expect(inOrder.state).toEqual({
      ...ACTIVE_A,
      currentPeriodStart: new Date(P2.start * 1000),
      currentPeriodEnd: new Date(P2.end * 1000),
    });
    expect(
      [...inOrder.grants.values()].map((g) => [g.fulfilmentKey, g.kind, fromMillicredits(g.amount)]),
    ).toEqual([
      ["subscription:sub_1:first", "subscription", 1000],
      ["topup:cs_test_top", "topup", 500],
      [`subscription:sub_1:period:${P2.start}`, "subscription", 1000],
    ]);
    // The retry succeeded at 09:00 UTC on Feb 11: credits at the next Berlin midnight.
    expect(inOrder.grants.get(`subscription:sub_1:period:${P2.start}`)?.grantedAt.toISOString()).toBe(
      "2025-02-11T23:00:00.000Z",
    );
  });

  it("any order, any redeliveries: the same grants and the same final state", () => {
    const inOrder = deliverInOrder();
    const deliveries = fc
      .tuple(
        fc.shuffledSubarray(story, { minLength: story.length, maxLength: story.length }),
        fc.array(fc.tuple(fc.constantFrom(...story), fc.nat()), { maxLength: 8 }),
      )
      .map(([order, repeats]) => {
        const all = [...order];
        for (const [event, at] of repeats) all.splice(at % (all.length + 1), 0, event);
        return all;
      });
    fc.assert(
      fc.property(deliveries, (order) => {
        const { state, grants } = deliver(order);
        expect(state).toEqual(inOrder.state);
        expect([...grants.keys()].sort()).toEqual([...inOrder.grants.keys()].sort());
        for (const [key, grant] of grants) {
          const expected = inOrder.grants.get(key);
          expect([grant.kind, grant.amount, grant.source]).toEqual([
            expected?.kind,
            expected?.amount,
            expected?.source,
          ]);
          // The first payment's two events differ in when they say it was paid, by a second.
          expect(
            Math.abs(grant.grantedAt.getTime() - (expected?.grantedAt.getTime() ?? 0)),
          ).toBeLessThanOrEqual(1000);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("the fulfilment key of an auto top-up", () => {
  it("is its attempt's, so its answer and its event grant once", () => {
    expect(autoTopUpKey("0b7f3a52-5d2e-4c61-9a43-8f0c2d9e1a12")).toBe(
      "auto_top_up:0b7f3a52-5d2e-4c61-9a43-8f0c2d9e1a12",
    );
  });
});
