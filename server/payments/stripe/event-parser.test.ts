// The parser's rules one field at a time, on the smallest events Stripe could send: what each event
// family becomes, which fallback each field takes on an older API version or a sparse object, and
// what is refused. (events.test.ts reads the local checkout's full events back, end to end.)
import { describe, expect, it } from "vitest";
import { stripeFixture } from "../local/stripe-fixtures.ts";
import {
  asksForAuthentication,
  autoTopUpAttemptOf,
  parseAutoTopUpInvoice,
  parseStripeCard,
  parseStripeEvent,
  parseStripeSubscription,
} from "./event-parser.ts";

const T = 1_736_499_600; // 2025-01-10T09:00:00Z
const at = (seconds: number) => new Date(seconds * 1000);

function event(type: string, object: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { id: "evt_1", object: "event", type, created: T, data: { object }, ...extra };
}
const REF = (type: string) => ({ eventId: "evt_1", eventType: type, created: at(T), livemode: false });

function parsed(raw: unknown) {
  const result = parseStripeEvent(raw);
  if (!result.ok) throw new Error(result.error);
  return result.event;
}

const SESSION = { id: "cs_1", mode: "payment", payment_status: "paid", client_reference_id: "user_1" };
const topUpSession = (extra: Record<string, unknown> = {}) => ({
  ...SESSION,
  metadata: { product_id: "prod_500" },
  ...extra,
});

describe("the envelope", () => {
  it("reads livemode, and an event without it is a test-mode event", () => {
    const raw = event("charge.succeeded", {});
    expect(parsed(raw)).toMatchObject({ livemode: false });
    expect(parsed({ ...raw, livemode: true })).toMatchObject({ livemode: true });
    expect(parsed({ ...raw, livemode: false })).toMatchObject({ livemode: false });
  });

  it("names each field it could not read, and the root when the event is not an object", () => {
    expect(parseStripeEvent({ ...event("x", {}), id: "", created: -1 })).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: id: .+; created: .+$/),
    });
    expect(parseStripeEvent("evt")).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: \(root\): /),
    });
  });

  it("refuses an id or a type longer than the 255 characters the API's document allows", () => {
    const long = "x".repeat(256);
    expect(parseStripeEvent({ ...event("charge.succeeded", {}), id: long })).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: id: /),
    });
    expect(parseStripeEvent(event(long, {}))).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: type: /),
    });
    expect(parsed({ ...event("charge.succeeded", {}), id: "e".repeat(255) })).toMatchObject({
      eventId: "e".repeat(255),
    });
    expect(parsed(event(`x${"y".repeat(254)}`, {}))).toMatchObject({ kind: "ignored" });
  });

  it("names a field inside the envelope by its path", () => {
    expect(parseStripeEvent({ ...event("x", {}), data: { object: "ch_1" } })).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: data\.object: /),
    });
  });

  it("names the nested field of an object it could not read", () => {
    const result = parseStripeEvent(event("charge.refunded", { id: "ch_1", amount: 1, currency: "eur" }));
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/^charge\.refunded evt_1: amount_refunded: /),
    });
  });
});

describe("checkout sessions", () => {
  it("a delayed payment that failed grants nothing and says so", () => {
    expect(parsed(event("checkout.session.async_payment_failed", topUpSession()))).toEqual({
      ...REF("checkout.session.async_payment_failed"),
      kind: "ignored",
      reason: "delayed payment of a checkout session failed: nothing was granted",
    });
  });

  it("a delayed payment that succeeded is a paid top-up like a paid completion", () => {
    expect(parsed(event("checkout.session.async_payment_succeeded", topUpSession()))).toMatchObject({
      kind: "topup_paid",
      checkoutSessionId: "cs_1",
      fulfilmentKey: "topup:cs_1",
    });
  });

  it("a session without an amount or a currency carries no payment", () => {
    for (const extra of [{}, { amount_total: 5000 }, { currency: "eur" }]) {
      expect(parsed(event("checkout.session.completed", topUpSession(extra)))).toMatchObject({
        kind: "topup_paid",
        payment: null,
      });
    }
  });

  it("reads a sparse paid session: net from total less tax, no buyer, its invoice", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({
        amount_total: 5950,
        total_details: { amount_tax: 950 },
        currency: "eur",
        invoice: "in_1",
      }),
    );
    expect(parsed(raw)).toEqual({
      ...REF("checkout.session.completed"),
      kind: "topup_paid",
      userId: "user_1",
      customerId: null,
      productId: "prod_500",
      paidAt: at(T),
      checkoutSessionId: "cs_1",
      payment: {
        net: 5000,
        tax: 950,
        total: 5950,
        currency: "eur",
        reverseCharge: false,
        buyer: { name: null, email: null, country: null, vatId: null },
      },
      invoiceId: "in_1",
      paymentIntentId: null,
      fulfilmentKey: "topup:cs_1",
    });
  });

  it.each([
    [
      "a tax that makes the total wrong",
      { amount_subtotal: 64_900, amount_total: 64_900, total_details: { amount_tax: 100 } },
      "amounts do not add up: net 64900 + tax 100 is not the total 64900",
    ],
    [
      "a negative tax (a signed event found by the robustness test)",
      { amount_subtotal: 64_900, amount_total: 64_900, total_details: { amount_tax: -1_575_385_093 } },
      "negative amounts: net 64900, tax -1575385093",
    ],
  ])("refuses a paid session with %s", (_case, extra, error) => {
    const raw = event("checkout.session.completed", topUpSession({ currency: "eur", ...extra }));
    expect(parseStripeEvent(raw)).toEqual({ ok: false, error: `checkout.session.completed evt_1: ${error}` });
  });

  it("a payment of nothing at all is still a payment", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({ amount_total: 0, amount_subtotal: 0, currency: "eur" }),
    );
    expect(parsed(raw)).toMatchObject({ payment: { net: 0, tax: 0, total: 0 } });
  });

  it("no tax details: all of the total is net", () => {
    const raw = event("checkout.session.completed", topUpSession({ amount_total: 5000, currency: "eur" }));
    expect(parsed(raw)).toMatchObject({ payment: { net: 5000, tax: 0, total: 5000 } });
  });

  it("the buyer's EU VAT ID among other tax IDs, and Stripe's reverse-charge word", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({
        amount_total: 5000,
        amount_subtotal: 5000,
        currency: "eur",
        customer_details: {
          name: "Exemple SARL",
          email: "compta@example.fr",
          address: { country: "FR" },
          tax_exempt: "reverse",
          tax_ids: [
            { type: "gb_vat", value: "GB123456789" },
            { type: "eu_vat", value: "FR40303265045" },
          ],
        },
      }),
    );
    expect(parsed(raw)).toMatchObject({
      payment: {
        reverseCharge: true,
        buyer: { name: "Exemple SARL", email: "compta@example.fr", country: "FR", vatId: "FR40303265045" },
      },
    });
  });

  it("a buyer with only a non-EU tax ID and no address has no VAT ID and no country", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({
        amount_total: 5000,
        currency: "eur",
        customer_details: { tax_exempt: "none", tax_ids: [{ type: "gb_vat", value: "GB123456789" }] },
      }),
    );
    expect(parsed(raw)).toMatchObject({
      payment: { reverseCharge: false, buyer: { country: null, vatId: null } },
    });
  });

  it("the user from metadata when there is no client_reference_id", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({ client_reference_id: null, metadata: { user_id: "user_9", product_id: "prod_500" } }),
    );
    expect(parsed(raw)).toMatchObject({ userId: "user_9" });
  });

  it.each([
    [
      "org_id before client_reference_id and user_id",
      { client_reference_id: "user_1", metadata: { org_id: "org_1", user_id: "user_1", product_id: "p" } },
      "org_1",
    ],
    ["client_reference_id before user_id", { metadata: { user_id: "user_9", product_id: "p" } }, "user_1"],
  ])("a session's payer: %s", (_case, extra, payer) => {
    expect(parsed(event("checkout.session.completed", topUpSession(extra)))).toMatchObject({ userId: payer });
  });

  it.each([
    ["no metadata at all", { metadata: null }, "no product_id metadata"],
    [
      "no user anywhere",
      { client_reference_id: null, metadata: null },
      "no client_reference_id or user_id metadata",
    ],
  ])("%s is refused", (_case, extra, error) => {
    expect(parseStripeEvent(event("checkout.session.completed", topUpSession(extra)))).toEqual({
      ok: false,
      error: `checkout.session.completed evt_1: ${error}`,
    });
  });

  it("an unreadable session is refused with the field", () => {
    expect(parseStripeEvent(event("checkout.session.completed", { id: "cs_1" }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^checkout\.session\.completed evt_1: mode: /),
    });
  });

  it("a subscription session without an invoice says so", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({ mode: "subscription", subscription: "sub_1" }),
    );
    expect(parsed(raw)).toMatchObject({ kind: "subscription_started", invoiceId: null });
  });
});

const INVOICE = {
  id: "in_1",
  currency: "eur",
  amount_paid: 9401,
  billing_reason: "subscription_cycle",
  parent: { subscription_details: { subscription: "sub_1", metadata: { user_id: "user_1" } } },
  lines: {
    data: [
      {
        period: { start: T, end: T + 2_678_400 },
        pricing: { price_details: { product: "prod_a", price: "price_a" } },
      },
    ],
  },
};
const invoice = (extra: Record<string, unknown> = {}) => ({ ...INVOICE, ...extra });

describe("invoices: the payment", () => {
  const payment = (extra: Record<string, unknown>) => {
    const result = parsed(event("invoice.paid", invoice(extra)));
    if (!("payment" in result)) throw new Error(result.kind);
    return result.payment;
  };

  it("the total, else the amount due, else the amount paid", () => {
    expect(payment({ total: 9401, amount_due: 1, amount_paid: 2 })?.total).toBe(9401);
    expect(payment({ amount_due: 9400, amount_paid: 2 })?.total).toBe(9400);
    expect(payment({})?.total).toBe(9401);
  });

  it("net: the total excluding tax, else the subtotal, else the total less tax", () => {
    expect(payment({ total: 9401, total_excluding_tax: 7900, subtotal: 1, tax: 1501 })?.net).toBe(7900);
    expect(payment({ total: 9402, subtotal: 7901, tax: 1501 })?.net).toBe(7901);
    expect(payment({ total: 9401, tax: 1501 })?.net).toBe(7900);
  });

  it("tax: the sum of total_taxes, else (before 2025-03-31) tax, else none", () => {
    expect(payment({ total_taxes: [{ amount: 1000 }, { amount: 501 }], tax: 1 })?.tax).toBe(1501);
    expect(payment({ tax: 1501 })?.tax).toBe(1501);
    expect(payment({})?.tax).toBe(0);
  });

  it.each([
    ["the customer's tax_exempt reverse", { customer_tax_exempt: "reverse" }, true],
    [
      "a tax line of reverse charge among others",
      {
        total_taxes: [
          { amount: 0, taxability_reason: "not_subject_to_tax" },
          { amount: 0, taxability_reason: "reverse_charge" },
        ],
      },
      true,
    ],
    [
      "a standard-rated tax line",
      { total_taxes: [{ amount: 1501, taxability_reason: "standard_rated" }] },
      false,
    ],
    ["an exempt customer (not reverse)", { customer_tax_exempt: "exempt" }, false],
    ["nothing said", {}, false],
  ])("reverse charge from %s: %s", (_case, extra, reverse) => {
    expect(payment(extra)?.reverseCharge).toBe(reverse);
  });

  it.each([
    [
      "net and tax that are not the total",
      { total: 9401, total_excluding_tax: 7900, tax: 1500 },
      "amounts do not add up: net 7900 + tax 1500 is not the total 9401",
    ],
    [
      "a negative tax",
      { total: 7000, total_excluding_tax: 7900, tax: -900 },
      "negative amounts: net 7900, tax -900",
    ],
    [
      "a negative net",
      { total: 600, total_excluding_tax: -900, tax: 1500 },
      "negative amounts: net -900, tax 1500",
    ],
  ])("refuses %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("invoice.paid", invoice(extra)))).toEqual({
      ok: false,
      error: `invoice.paid evt_1: ${error}`,
    });
  });

  // A signed invoice.paid with a currency of five astral-plane letters made the receipt's
  // Intl.NumberFormat throw and the webhook answer 500 (found by the robustness test).
  it.each(["𑖮ꏟṫ𖼭ᙔ", "€€€", "eu", "euro", "e1r", ""])("refuses the currency %j as unreadable", (currency) => {
    expect(parseStripeEvent(event("invoice.paid", invoice({ currency })))).toEqual({
      ok: false,
      error: expect.stringMatching(/^invoice\.paid evt_1: currency: /),
    });
    expect(parseStripeEvent(event("checkout.session.completed", topUpSession({ currency })))).toEqual({
      ok: false,
      error: expect.stringMatching(/^checkout\.session\.completed evt_1: currency: /),
    });
  });

  it("takes a currency in capitals too", () => {
    expect(parseStripeEvent(event("invoice.paid", invoice({ currency: "EUR" }))).ok).toBe(true);
  });

  it("the buyer from the customer fields, with the EU VAT ID", () => {
    expect(
      payment({
        customer_name: "Ann",
        customer_email: "ann@example.com",
        customer_address: { country: "FR" },
        customer_tax_ids: [
          { type: "ch_vat", value: "CHE-123.456.789" },
          { type: "eu_vat", value: "FR40303265045" },
        ],
      })?.buyer,
    ).toEqual({ name: "Ann", email: "ann@example.com", country: "FR", vatId: "FR40303265045" });
    expect(payment({})?.buyer).toEqual({ name: null, email: null, country: null, vatId: null });
  });
});

describe("invoices: the document", () => {
  const documentOf = (extra: Record<string, unknown>) => {
    const result = parsed(event("invoice.paid", invoice(extra)));
    if (!("document" in result)) throw new Error(result.kind);
    return result.document;
  };

  it("none until the invoice has a number or a page", () => {
    expect(documentOf({})).toBeNull();
  });

  it.each([
    ["a number", { number: "A1-0001" }, { number: "A1-0001", hostedInvoiceUrl: null, invoicePdfUrl: null }],
    [
      "a hosted page",
      { hosted_invoice_url: "https://h" },
      { number: null, hostedInvoiceUrl: "https://h", invoicePdfUrl: null },
    ],
    [
      "a PDF",
      { invoice_pdf: "https://p" },
      { number: null, hostedInvoiceUrl: null, invoicePdfUrl: "https://p" },
    ],
  ])("with only %s", (_case, extra, expected) => {
    expect(documentOf(extra)).toEqual({ invoiceId: "in_1", ...expected });
  });
});

describe("invoices: which they are", () => {
  const oneTime = (extra: Record<string, unknown> = {}) =>
    invoice({ parent: null, billing_reason: "manual", ...extra });

  it("a one-time payment's paid invoice with a number is its document", () => {
    expect(parsed(event("invoice.paid", oneTime({ number: "A1-0002" })))).toEqual({
      ...REF("invoice.paid"),
      kind: "invoice_document",
      document: { invoiceId: "in_1", number: "A1-0002", hostedInvoiceUrl: null, invoicePdfUrl: null },
    });
  });

  it.each([
    ["a one-time invoice without a document", "invoice.paid", oneTime()],
    ["a one-time invoice's failed payment", "invoice.payment_failed", oneTime({ number: "A1-0002" })],
  ])("%s is ignored", (_case, type, object) => {
    expect(parsed(event(type, object))).toEqual({
      ...REF(type),
      kind: "ignored",
      reason: "invoice not generated by a subscription",
    });
  });

  it("the subscription from before 2025-03-31 (invoice.subscription)", () => {
    const raw = event("invoice.paid", invoice({ parent: null, subscription: "sub_7" }));
    expect(parsed(raw)).toMatchObject({ kind: "renewal_paid", subscriptionId: "sub_7", userId: null });
  });

  it("a parent without subscription details falls back to invoice.subscription", () => {
    const raw = event(
      "invoice.paid",
      invoice({ parent: { subscription_details: null }, subscription: "sub_7" }),
    );
    expect(parsed(raw)).toMatchObject({ kind: "renewal_paid", subscriptionId: "sub_7", userId: null });
  });

  it("lines with empty details: the item without proration details, the price from before 2025-03-31", () => {
    const raw = event(
      "invoice.paid",
      invoice({
        lines: {
          data: [
            {
              period: { start: T, end: T + 100 },
              parent: { subscription_item_details: null },
              pricing: { price_details: null },
              price: { product: "prod_old" },
            },
          ],
        },
      }),
    );
    expect(parsed(raw)).toMatchObject({ kind: "renewal_paid", productId: "prod_old" });
  });

  it("a subscription without metadata has no user (found by subscription later)", () => {
    const raw = event(
      "invoice.paid",
      invoice({ parent: { subscription_details: { subscription: "sub_1" } } }),
    );
    expect(parsed(raw)).toMatchObject({ kind: "renewal_paid", userId: null, customerId: null });
  });

  it("the product of the subscription's own line, not a proration's", () => {
    const line = (product: string, proration: Record<string, unknown>) => ({
      period: { start: T, end: T + 100 },
      pricing: { price_details: { product, price: `price_${product}` } },
      ...proration,
    });
    const lines = (...data: unknown[]) => invoice({ lines: { data } });
    const productOf = (raw: unknown) => (parsed(raw) as { productId: string }).productId;
    expect(
      productOf(
        event(
          "invoice.paid",
          lines(
            line("prod_x", { parent: { subscription_item_details: { proration: true } } }),
            line("prod_a", {}),
          ),
        ),
      ),
    ).toBe("prod_a");
    expect(
      productOf(event("invoice.paid", lines(line("prod_x", { proration: true }), line("prod_a", {})))),
    ).toBe("prod_a");
    // Only prorations: the first line still names the product.
    expect(productOf(event("invoice.paid", lines(line("prod_x", { proration: true }))))).toBe("prod_x");
  });

  it("a line's product from before 2025-03-31 (line.price.product)", () => {
    const raw = event(
      "invoice.paid",
      invoice({ lines: { data: [{ period: { start: T, end: T + 100 }, price: { product: "prod_old" } }] } }),
    );
    expect(parsed(raw)).toMatchObject({ productId: "prod_old" });
  });

  it.each([
    ["no line", { lines: { data: [] } }],
    ["a line without a product", { lines: { data: [{ period: { start: T, end: T + 100 } }] } }],
  ])("%s is refused", (_case, extra) => {
    expect(parseStripeEvent(event("invoice.paid", invoice(extra)))).toEqual({
      ok: false,
      error: "invoice.paid evt_1: no subscription line with a product",
    });
  });
});

const SUBSCRIPTION = {
  id: "sub_1",
  status: "active",
  cancel_at_period_end: true,
  customer: "cus_1",
  metadata: { user_id: "user_1" },
  items: {
    data: [{ current_period_start: T, current_period_end: T + 100, price: { product: "prod_a" } }],
  },
};

describe("subscriptions", () => {
  it.each([
    ["org_id before user_id", { org_id: "org_1", user_id: "user_1" }, "org_1"],
    ["user_id of an object made before organisations", { user_id: "user_1" }, "user_1"],
    ["neither", {}, null],
  ])("the payer of a subscription and its invoices: %s", (_case, metadata, payer) => {
    expect(parsed(event("customer.subscription.updated", { ...SUBSCRIPTION, metadata }))).toMatchObject({
      userId: payer,
    });
    const inv = { ...INVOICE, parent: { subscription_details: { subscription: "sub_1", metadata } } };
    expect(parsed(event("invoice.paid", inv))).toMatchObject({ userId: payer });
  });

  it("an update: status, cancellation, product and period from its item", () => {
    expect(parsed(event("customer.subscription.updated", SUBSCRIPTION))).toEqual({
      ...REF("customer.subscription.updated"),
      kind: "subscription_updated",
      userId: "user_1",
      customerId: "cus_1",
      subscriptionId: "sub_1",
      status: "active",
      cancelAtPeriodEnd: true,
      productId: "prod_a",
      period: { start: at(T), end: at(T + 100) },
    });
  });

  it("the period from before 2025-03-31 (on the subscription), and no product without an item", () => {
    const raw = event("customer.subscription.updated", {
      ...SUBSCRIPTION,
      metadata: null,
      customer: null,
      items: { data: [] },
      current_period_start: T,
      current_period_end: T + 50,
    });
    expect(parsed(raw)).toMatchObject({
      userId: null,
      customerId: null,
      productId: null,
      period: { start: at(T), end: at(T + 50) },
    });
  });

  it.each([
    ["no start", { current_period_start: null, current_period_end: T + 100 }],
    ["no end", { current_period_start: T, current_period_end: null }],
    ["neither", {}],
  ])("a period with %s is none", (_case, item) => {
    const raw = event("customer.subscription.updated", {
      ...SUBSCRIPTION,
      items: { data: [{ ...item, price: { product: "prod_a" } }] },
    });
    expect(parsed(raw)).toMatchObject({ period: null });
  });

  it("an unreadable subscription is refused with the field", () => {
    expect(parseStripeEvent(event("customer.subscription.deleted", { id: "sub_1" }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^customer\.subscription\.deleted evt_1: status: /),
    });
  });

  it("a retrieved subscription reads as its update event does", () => {
    expect(parseStripeSubscription(SUBSCRIPTION)).toEqual({
      ok: true,
      snapshot: {
        status: "active",
        cancelAtPeriodEnd: true,
        productId: "prod_a",
        period: { start: at(T), end: at(T + 100) },
      },
    });
  });

  it("an unreadable retrieved subscription is refused with the field", () => {
    expect(parseStripeSubscription({ id: "sub_1" })).toEqual({
      ok: false,
      error: expect.stringMatching(/^subscription: status: /),
    });
  });
});

const CHARGE = {
  id: "ch_1",
  amount: 5000,
  amount_refunded: 2000,
  currency: "eur",
  customer: "cus_1",
  payment_intent: "pi_1",
};

describe("charge.refunded", () => {
  it("the charge, its payment and what is refunded so far", () => {
    expect(parsed(event("charge.refunded", CHARGE))).toEqual({
      ...REF("charge.refunded"),
      kind: "charge_refunded",
      chargeId: "ch_1",
      paymentIntentId: "pi_1",
      invoiceId: null,
      customerId: "cus_1",
      amount: 5000,
      amountRefunded: 2000,
      currency: "eur",
    });
  });

  it("before 2025-03-31 a charge named its invoice; expanded objects are read by id", () => {
    const raw = event("charge.refunded", {
      ...CHARGE,
      invoice: { id: "in_1" },
      payment_intent: { id: "pi_2" },
      customer: null,
    });
    expect(parsed(raw)).toMatchObject({ invoiceId: "in_1", paymentIntentId: "pi_2", customerId: null });
  });

  it.each([
    ["no id", { ...CHARGE, id: "" }, /^charge\.refunded evt_1: id: /],
    ["a negative refund", { ...CHARGE, amount_refunded: -1 }, /^charge\.refunded evt_1: amount_refunded: /],
  ])("%s is refused", (_case, object, error) => {
    expect(parseStripeEvent(event("charge.refunded", object))).toEqual({
      ok: false,
      error: expect.stringMatching(error),
    });
  });
});

describe("disputes", () => {
  const DISPUTE = { id: "dp_1", charge: "ch_1", payment_intent: "pi_1", status: "needs_response" };

  it.each([
    ["charge.dispute.created", "created", "needs_response"],
    ["charge.dispute.closed", "closed", "won"],
  ] as const)("%s: phase %s", (type, phase, status) => {
    expect(parsed(event(type, { ...DISPUTE, status }))).toEqual({
      ...REF(type),
      kind: "dispute",
      disputeId: "dp_1",
      chargeId: "ch_1",
      paymentIntentId: "pi_1",
      phase,
      status,
    });
  });

  it("a dispute naming neither charge nor payment", () => {
    expect(parsed(event("charge.dispute.closed", { id: "dp_1", status: "lost" }))).toMatchObject({
      chargeId: null,
      paymentIntentId: null,
    });
  });

  it("an unreadable dispute is refused with the field", () => {
    expect(parseStripeEvent(event("charge.dispute.created", { id: "", status: "x" }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^charge\.dispute\.created evt_1: id: /),
    });
  });
});

describe("customer.tax_id.created and .updated", () => {
  /** Stripe's own example tax ID (fixtures3.json): an eu_vat of customer cus_QXg1o8vcGmoR32, pending. */
  const taxId = (extra: Record<string, unknown> = {}) => ({ ...stripeFixture("tax_id"), ...extra });

  it.each(["customer.tax_id.created", "customer.tax_id.updated"])(
    "%s: the customer's VAT ID and its check, as Stripe's example has them",
    (type) => {
      expect(parsed(event(type, taxId()))).toEqual({
        ...REF(type),
        kind: "vat_id_checked",
        customerId: "cus_QXg1o8vcGmoR32",
        vatId: "DE123456789",
        status: "pending",
      });
    },
  );

  it.each(["verified", "unverified", "unavailable"] as const)("reads the status %s", (status) => {
    const raw = taxId({ verification: { status, verified_address: null, verified_name: null } });
    expect(parsed(event("customer.tax_id.updated", raw))).toMatchObject({ status });
  });

  it("reads an unknown status, or none, as pending: never as verified", () => {
    expect(
      parsed(event("customer.tax_id.updated", taxId({ verification: { status: "confirmed_later" } }))),
    ).toMatchObject({ status: "pending" });
    expect(parsed(event("customer.tax_id.updated", taxId({ verification: null })))).toMatchObject({
      status: "pending",
    });
  });

  it("reads an expanded customer by its id", () => {
    const raw = taxId({ customer: { id: "cus_2", object: "customer" } });
    expect(parsed(event("customer.tax_id.updated", raw))).toMatchObject({ customerId: "cus_2" });
  });

  it("ignores another type of tax ID, and one of no customer (an account's)", () => {
    expect(parsed(event("customer.tax_id.updated", taxId({ type: "gb_vat" })))).toMatchObject({
      kind: "ignored",
      reason: "tax ID of type gb_vat",
    });
    expect(parsed(event("customer.tax_id.created", taxId({ customer: null })))).toMatchObject({
      kind: "ignored",
      reason: "tax ID of no customer",
    });
  });

  it("refuses a tax ID without its value, naming the field", () => {
    expect(parseStripeEvent(event("customer.tax_id.updated", taxId({ value: "" })))).toEqual({
      ok: false,
      error: expect.stringMatching(/^customer\.tax_id\.updated evt_1: value: /),
    });
  });

  it("ignores a deleted tax ID (customer.tax_id.deleted): a replaced VAT ID is gone from file already", () => {
    expect(parsed(event("customer.tax_id.deleted", taxId()))).toMatchObject({ kind: "ignored" });
  });
});

// Auto top-up (AUTO-TOP-UP.md): saved cards and the one-off invoices that charge them.
const ORG = "0b7f3a52-5d2e-4c61-9a43-8f0c2d9e1a11";
const ATTEMPT = "6a1d9c0e-2b3f-4e57-8a19-c4d5e6f70812";

describe("auto top-up: a card saved", () => {
  /** Stripe's example SetupIntent (fixtures3.json), succeeded for one of our setup pages. */
  const setupIntent = (extra: Record<string, unknown> = {}) => ({
    ...stripeFixture("setup_intent"),
    status: "succeeded",
    customer: "cus_1",
    payment_method: "pm_1",
    metadata: { org_id: ORG },
    ...extra,
  });
  /** Stripe's example session in setup mode, as a setup page of ours completes it. */
  const setupSession = (extra: Record<string, unknown> = {}) => ({
    ...stripeFixture("checkout.session"),
    mode: "setup",
    payment_status: "no_payment_required",
    status: "complete",
    customer: "cus_1",
    metadata: { org_id: ORG },
    setup_intent: "seti_1Pgag7B7WZ01zgkWSgwGdb8Z",
    ...extra,
  });

  it("setup_intent.succeeded saves its card for metadata.org_id, made when the intent was", () => {
    expect(parsed(event("setup_intent.succeeded", setupIntent()))).toEqual({
      ...REF("setup_intent.succeeded"),
      kind: "card_saved",
      orgId: ORG,
      customerId: "cus_1",
      setupIntentId: "seti_1Pgag7B7WZ01zgkWSgwGdb8Z",
      setupAt: at(1_234_567_890),
      checkoutSessionId: null,
      paymentMethodId: "pm_1",
      openedBy: null,
    });
  });

  it("names who opened the page from metadata.opened_by, and nobody for a value that is no user id", () => {
    const withOpener = (openedBy: string) =>
      parsed(
        event("setup_intent.succeeded", setupIntent({ metadata: { org_id: ORG, opened_by: openedBy } })),
      );
    expect(withOpener("9b2f0a52-5d2e-4c61-9a43-8f0c2d9e1a22")).toMatchObject({
      kind: "card_saved",
      openedBy: "9b2f0a52-5d2e-4c61-9a43-8f0c2d9e1a22",
    });
    expect(withOpener("not-a-user")).toMatchObject({ kind: "card_saved", openedBy: null });
  });

  it("reads expanded objects by their ids, and an intent of no customer", () => {
    const raw = setupIntent({ customer: null, payment_method: { id: "pm_2", object: "payment_method" } });
    expect(parsed(event("setup_intent.succeeded", raw))).toMatchObject({
      customerId: null,
      paymentMethodId: "pm_2",
    });
  });

  it.each([
    ["no metadata", { metadata: null }],
    ["metadata of something else (a subscription's card)", { metadata: { user_id: ORG } }],
  ])("ignores a setup intent with %s: Stripe's own are not auto top-up's", (_case, extra) => {
    expect(parsed(event("setup_intent.succeeded", setupIntent(extra)))).toEqual({
      ...REF("setup_intent.succeeded"),
      kind: "ignored",
      reason: "setup intent without metadata.org_id: not auto top-up's",
    });
  });

  it.each([
    [
      "no payment method",
      { payment_method: null },
      "setup intent seti_1Pgag7B7WZ01zgkWSgwGdb8Z without a payment_method",
    ],
    [
      "an org_id that is no organisation's id",
      { metadata: { org_id: "org_1" } },
      'metadata.org_id is not an organisation id: "org_1"',
    ],
    ["an empty org_id", { metadata: { org_id: "" } }, 'metadata.org_id is not an organisation id: ""'],
  ])("refuses an intent of ours with %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("setup_intent.succeeded", setupIntent(extra)))).toEqual({
      ok: false,
      error: `setup_intent.succeeded evt_1: ${error}`,
    });
  });

  it.each([
    ["no id", { id: "" }, /^setup_intent\.succeeded evt_1: id: /],
    ["no creation time", { created: undefined }, /^setup_intent\.succeeded evt_1: created: /],
    ["a malformed payment method", { payment_method: 7 }, /^setup_intent\.succeeded evt_1: payment_method: /],
  ])("refuses an unreadable intent: %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("setup_intent.succeeded", setupIntent(extra)))).toEqual({
      ok: false,
      error: expect.stringMatching(error),
    });
  });

  it("a completed setup session naming its intent only is left to setup_intent.succeeded", () => {
    expect(parsed(event("checkout.session.completed", setupSession()))).toEqual({
      ...REF("checkout.session.completed"),
      kind: "ignored",
      reason: "setup-mode session names its setup intent only: setup_intent.succeeded carries the card",
    });
  });

  it("a completed setup session with its intent expanded saves the card, naming the session", () => {
    const raw = setupSession({ setup_intent: setupIntent({ customer: "cus_other" }) });
    expect(parsed(event("checkout.session.completed", raw))).toEqual({
      ...REF("checkout.session.completed"),
      kind: "card_saved",
      orgId: ORG,
      customerId: "cus_1",
      setupIntentId: "seti_1Pgag7B7WZ01zgkWSgwGdb8Z",
      setupAt: at(1_234_567_890),
      checkoutSessionId: "cs_test_a1YS1URlnyQCN5fUUduORoQ7Pw41PJqDWkIVQCpJPqkfIhd6tVY8XB1OLY",
      paymentMethodId: "pm_1",
      openedBy: null,
    });
  });

  it("the session's customer, else its intent's, else none", () => {
    const raw = (customer: string | null, intentCustomer: string | null) =>
      event(
        "checkout.session.completed",
        setupSession({ customer, setup_intent: setupIntent({ customer: intentCustomer }) }),
      );
    expect(parsed(raw(null, "cus_2"))).toMatchObject({ customerId: "cus_2" });
    expect(parsed(raw(null, null))).toMatchObject({ customerId: null });
  });

  it("a setup session's org_id is its own, whatever its intent says", () => {
    const raw = setupSession({ setup_intent: setupIntent({ metadata: null }) });
    expect(parsed(event("checkout.session.completed", raw))).toMatchObject({
      kind: "card_saved",
      orgId: ORG,
    });
  });

  it.each([
    ["no metadata", { metadata: null }],
    ["no org_id", { metadata: { user_id: ORG } }],
  ])("ignores a setup session with %s (not a setup page of ours), even unpaid", (_case, extra) => {
    expect(parsed(event("checkout.session.completed", setupSession(extra)))).toMatchObject({
      kind: "ignored",
      reason: "setup-mode checkout session without metadata.org_id",
    });
  });

  it.each([
    ["no setup intent", { setup_intent: null }, "setup-mode session without a setup_intent"],
    [
      "an expanded intent without a card",
      { setup_intent: { ...setupIntent(), payment_method: null } },
      "setup intent seti_1Pgag7B7WZ01zgkWSgwGdb8Z without a payment_method",
    ],
    [
      "an org_id that is no organisation's id",
      { metadata: { org_id: "x" }, setup_intent: setupIntent() },
      'metadata.org_id is not an organisation id: "x"',
    ],
  ])("refuses a setup session of ours with %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("checkout.session.completed", setupSession(extra)))).toEqual({
      ok: false,
      error: `checkout.session.completed evt_1: ${error}`,
    });
  });

  it("refuses a setup session whose expanded intent is unreadable", () => {
    const raw = setupSession({ setup_intent: { id: "seti_1" } });
    expect(parseStripeEvent(event("checkout.session.completed", raw))).toEqual({
      ok: false,
      error: expect.stringMatching(/^checkout\.session\.completed evt_1: setup_intent: /),
    });
  });
});

describe("auto top-up: the saved card's changes", () => {
  /** Stripe's example PaymentMethod (fixtures3.json): a Visa ending 4242, expiring 8/2030. */
  const paymentMethod = (extra: Record<string, unknown> = {}) => ({
    ...stripeFixture("payment_method"),
    customer: "cus_1",
    ...extra,
  });
  const CARD = {
    paymentMethodId: "pm_1Pgc75B7WZ01zgkWlHVgdEGJ",
    brand: "visa",
    last4: "4242",
    expMonth: 8,
    expYear: 2030,
  };

  it.each(["payment_method.updated", "payment_method.automatically_updated"])(
    "%s: the card's new brand, last 4 and expiry",
    (type) => {
      expect(parsed(event(type, paymentMethod()))).toEqual({
        ...REF(type),
        kind: "card_updated",
        customerId: "cus_1",
        card: CARD,
      });
    },
  );

  it("an updated card of no customer, or an expanded one", () => {
    expect(parsed(event("payment_method.updated", paymentMethod({ customer: null })))).toMatchObject({
      customerId: null,
    });
    expect(
      parsed(
        event("payment_method.updated", paymentMethod({ customer: { id: "cus_2", object: "customer" } })),
      ),
    ).toMatchObject({ customerId: "cus_2" });
  });

  it("ignores an update of a payment method that is not a card", () => {
    const raw = paymentMethod({ type: "sepa_debit", card: undefined, sepa_debit: { last4: "3000" } });
    expect(parsed(event("payment_method.updated", raw))).toEqual({
      ...REF("payment_method.updated"),
      kind: "ignored",
      reason: "payment method of type sepa_debit, not a card",
    });
  });

  it.each([
    ["no id", { id: "" }, /^payment_method\.updated evt_1: id: /],
    ["no type", { type: undefined }, /^payment_method\.updated evt_1: type: /],
    ["a card without its last 4", { card: { brand: "visa", exp_month: 8, exp_year: 2030 } }, /card\.last4: /],
    [
      "a fractional expiry month",
      { card: { brand: "visa", last4: "4242", exp_month: 8.5, exp_year: 2030 } },
      /card\.exp_month: /,
    ],
  ])("refuses an unreadable payment method: %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("payment_method.updated", paymentMethod(extra)))).toEqual({
      ok: false,
      error: expect.stringMatching(error),
    });
  });

  it("payment_method.detached: the card, and its customer from before (a detached one names none)", () => {
    const raw = event("payment_method.detached", paymentMethod({ customer: null }), {});
    const withPrevious = { ...raw, data: { ...raw.data, previous_attributes: { customer: "cus_1" } } };
    expect(parsed(withPrevious)).toEqual({
      ...REF("payment_method.detached"),
      kind: "card_detached",
      customerId: "cus_1",
      paymentMethodId: "pm_1Pgc75B7WZ01zgkWlHVgdEGJ",
    });
  });

  it("a detached card's customer: from before, else its own, else none", () => {
    const detached = (customer: string | null, previous: unknown) => {
      const raw = event("payment_method.detached", paymentMethod({ customer }));
      return parsed({ ...raw, data: { ...raw.data, previous_attributes: previous } });
    };
    expect(detached("cus_now", { customer: "cus_before" })).toMatchObject({ customerId: "cus_before" });
    expect(detached("cus_now", { customer: null })).toMatchObject({ customerId: "cus_now" });
    expect(detached("cus_now", { type: "card" })).toMatchObject({ customerId: "cus_now" });
    expect(detached("cus_now", null)).toMatchObject({ customerId: "cus_now" });
    expect(detached(null, undefined)).toMatchObject({ customerId: null });
  });

  it("a detached payment method of any type is read (the saved card is found by its id)", () => {
    const raw = paymentMethod({ type: "sepa_debit", card: null });
    expect(parsed(event("payment_method.detached", raw))).toMatchObject({ kind: "card_detached" });
  });

  it("refuses a detachment whose previous customer is malformed", () => {
    const raw = event("payment_method.detached", paymentMethod());
    expect(parseStripeEvent({ ...raw, data: { ...raw.data, previous_attributes: { customer: 7 } } })).toEqual(
      {
        ok: false,
        error: expect.stringMatching(/^payment_method\.detached evt_1: previous_attributes: customer: /),
      },
    );
  });

  it("refuses an unreadable detached payment method", () => {
    expect(parseStripeEvent(event("payment_method.detached", { id: "pm_1" }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^payment_method\.detached evt_1: type: /),
    });
  });
});

describe("auto top-up: its invoices", () => {
  /**
   * Stripe's example invoice (fixtures3.json), finalised and paid, as an auto top-up makes it. The
   * example names a subscription under `parent` and is billed "manual": neither may make it a
   * renewal's or a checkout top-up's.
   */
  const autoInvoice = (extra: Record<string, unknown> = {}) => ({
    ...stripeFixture("invoice"),
    status: "paid",
    number: "A1B2C3-0007",
    hosted_invoice_url: "https://invoice.stripe.com/i/acct_1/test_7",
    invoice_pdf: "https://pay.stripe.com/invoice/acct_1/test_7/pdf",
    customer: "cus_1",
    currency: "eur",
    subtotal: 5000,
    total_excluding_tax: 5000,
    total_taxes: [{ amount: 950, taxability_reason: "standard_rated" }],
    total: 5950,
    amount_due: 5950,
    amount_paid: 5950,
    status_transitions: {
      finalized_at: T - 60,
      paid_at: T - 30,
      marked_uncollectible_at: null,
      voided_at: null,
    },
    metadata: { auto_top_up_attempt_id: ATTEMPT },
    ...extra,
  });
  const PAYMENT = {
    net: 5000,
    tax: 950,
    total: 5950,
    currency: "eur",
    reverseCharge: false,
    buyer: { name: null, email: null, country: null, vatId: null },
  };
  const DOCUMENT = {
    invoiceId: "in_1Pgc6tB7WZ01zgkWu9fdqL6I",
    number: "A1B2C3-0007",
    hostedInvoiceUrl: "https://invoice.stripe.com/i/acct_1/test_7",
    invoicePdfUrl: "https://pay.stripe.com/invoice/acct_1/test_7/pdf",
  };

  it("invoice.paid grants the attempt's pack, with the payment and the document", () => {
    expect(parsed(event("invoice.paid", autoInvoice()))).toEqual({
      ...REF("invoice.paid"),
      kind: "auto_top_up_paid",
      attemptId: ATTEMPT,
      customerId: "cus_1",
      invoiceId: "in_1Pgc6tB7WZ01zgkWu9fdqL6I",
      paymentIntentId: null,
      paidAt: at(T - 30),
      payment: PAYMENT,
      document: DOCUMENT,
    });
  });

  it("is never a subscription's or a checkout top-up's invoice, whatever else it says", () => {
    for (const extra of [
      { billing_reason: "subscription_cycle" },
      { billing_reason: "subscription_create", subscription: "sub_1" },
      { parent: null, billing_reason: "manual" },
    ]) {
      expect(parsed(event("invoice.paid", autoInvoice(extra))).kind).toBe("auto_top_up_paid");
      expect(parsed(event("invoice.payment_failed", autoInvoice(extra))).kind).toBe("auto_top_up_failed");
      expect(parsed(event("invoice.voided", autoInvoice(extra))).kind).toBe("auto_top_up_voided");
    }
  });

  it("invoice.voided: nothing can be paid on the attempt's invoice any more, whatever else it says", () => {
    const raw = autoInvoice({ status: "void", amount_paid: 0, total: 5951, payment_intent: "pi_1" });
    expect(parsed(event("invoice.voided", raw))).toEqual({
      ...REF("invoice.voided"),
      kind: "auto_top_up_voided",
      attemptId: ATTEMPT,
      customerId: "cus_1",
      invoiceId: "in_1Pgc6tB7WZ01zgkWu9fdqL6I",
    });
    expect(parsed(event("invoice.voided", autoInvoice({ customer: null })))).toMatchObject({
      customerId: null,
    });
  });

  it("invoice.voided of another invoice (a renewal's, a one-time payment's) is ignored", () => {
    for (const raw of [invoice(), invoice({ subscription: null, parent: null, billing_reason: "manual" })])
      expect(parsed(event("invoice.voided", raw))).toEqual({
        ...REF("invoice.voided"),
        kind: "ignored",
        reason: "invoice not of an auto top-up",
      });
  });

  it("a paid invoice without paid_at was paid when the event says; without a document yet, an empty one", () => {
    const raw = autoInvoice({
      status_transitions: null,
      number: null,
      hosted_invoice_url: null,
      invoice_pdf: null,
    });
    expect(parsed(event("invoice.paid", raw))).toMatchObject({
      paidAt: at(T),
      document: { invoiceId: DOCUMENT.invoiceId, number: null, hostedInvoiceUrl: null, invoicePdfUrl: null },
    });
  });

  it("reads the payment intent before API version 2025-03-31, and from expanded payments", () => {
    expect(parsed(event("invoice.paid", autoInvoice({ payment_intent: "pi_old" })))).toMatchObject({
      paymentIntentId: "pi_old",
    });
    const payments = {
      data: [
        {
          status: "canceled",
          is_default: false,
          payment: { type: "payment_intent", payment_intent: "pi_x" },
        },
        {
          status: "paid",
          is_default: false,
          payment: { type: "payment_intent", payment_intent: { id: "pi_paid", status: "succeeded" } },
        },
      ],
    };
    expect(parsed(event("invoice.paid", autoInvoice({ payments, payment_intent: "pi_old" })))).toMatchObject({
      paymentIntentId: "pi_paid",
    });
  });

  it.each([
    [
      "amounts that do not add up",
      { total: 5951 },
      "amounts do not add up: net 5000 + tax 950 is not the total 5951",
    ],
    [
      "an attempt id that is not ours",
      { metadata: { auto_top_up_attempt_id: "att_1" } },
      'metadata.auto_top_up_attempt_id is not an attempt id: "att_1"',
    ],
    [
      "an empty attempt id",
      { metadata: { auto_top_up_attempt_id: "" } },
      'metadata.auto_top_up_attempt_id is not an attempt id: ""',
    ],
  ])("refuses a paid auto top-up with %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("invoice.paid", autoInvoice(extra)))).toEqual({
      ok: false,
      error: `invoice.paid evt_1: ${error}`,
    });
  });

  it("refuses an unreadable auto top-up invoice with the field", () => {
    expect(parseStripeEvent(event("invoice.payment_failed", autoInvoice({ currency: undefined })))).toEqual({
      ok: false,
      error: expect.stringMatching(/^invoice\.payment_failed evt_1: currency: /),
    });
  });

  it("invoice.payment_failed: a decline, with its page; Stripe's event carries no decline code", () => {
    const raw = autoInvoice({ status: "open", amount_paid: 0, status_transitions: null, attempt_count: 1 });
    expect(parsed(event("invoice.payment_failed", raw))).toEqual({
      ...REF("invoice.payment_failed"),
      kind: "auto_top_up_failed",
      attemptId: ATTEMPT,
      customerId: "cus_1",
      invoiceId: "in_1Pgc6tB7WZ01zgkWu9fdqL6I",
      actionRequired: false,
      code: null,
      payUrl: "https://invoice.stripe.com/i/acct_1/test_7",
    });
  });

  it("invoice.payment_action_required: the bank asks for authentication, paid at the hosted page", () => {
    const raw = autoInvoice({ status: "open", customer: null, hosted_invoice_url: null });
    expect(parsed(event("invoice.payment_action_required", raw))).toMatchObject({
      kind: "auto_top_up_failed",
      customerId: null,
      actionRequired: true,
      payUrl: null,
    });
  });

  it.each([
    [
      "its decline code",
      {
        id: "pi_1",
        status: "requires_payment_method",
        last_payment_error: { code: "card_declined", decline_code: "insufficient_funds" },
      },
      "insufficient_funds",
    ],
    [
      "else the error's code",
      {
        id: "pi_1",
        status: "requires_payment_method",
        last_payment_error: { code: "expired_card", decline_code: null },
      },
      "expired_card",
    ],
    ["else none", { id: "pi_1", status: "requires_payment_method", last_payment_error: null }, null],
    ["else none (not expanded)", "pi_1", null],
  ])("a failure's code from an expanded payment intent: %s", (_case, intent, code) => {
    const raw = autoInvoice({ status: "open", payment_intent: intent });
    expect(parsed(event("invoice.payment_failed", raw))).toMatchObject({ code });
  });

  it("the payment of a failure: the default one, else the first", () => {
    const pay = (id: string, isDefault: boolean | null) => ({
      status: "open",
      is_default: isDefault,
      payment: {
        payment_intent: { id, status: "requires_payment_method", last_payment_error: { code: id } },
      },
    });
    const codeOf = (data: unknown[]) =>
      (
        parsed(event("invoice.payment_failed", autoInvoice({ status: "open", payments: { data } }))) as {
          code: string | null;
        }
      ).code;
    expect(codeOf([pay("first", false), pay("default", true)])).toBe("default");
    expect(codeOf([pay("first", null), pay("second", false)])).toBe("first");
    expect(codeOf([])).toBeNull();
    expect(codeOf([{ status: "open", payment: {} }])).toBeNull();
  });

  it("invoice.payment_action_required of another invoice (a renewal's) is ignored, never read as paid", () => {
    expect(parsed(event("invoice.payment_action_required", invoice()))).toEqual({
      ...REF("invoice.payment_action_required"),
      kind: "ignored",
      reason: "invoice not of an auto top-up",
    });
  });

  it("an invoice with other metadata is read as before", () => {
    expect(parsed(event("invoice.paid", invoice({ metadata: { user_id: "user_1" } })))).toMatchObject({
      kind: "renewal_paid",
    });
  });

  it.each([
    "payment_intent.succeeded",
    "payment_intent.payment_failed",
    "payment_intent.requires_action",
    "payment_intent.created",
  ])("%s never grants, even of an auto top-up's invoice", (type) => {
    const intent = {
      ...stripeFixture("payment_intent"),
      status: "succeeded",
      amount_received: 5950,
      metadata: { auto_top_up_attempt_id: ATTEMPT, org_id: ORG },
    };
    expect(parsed(event(type, intent))).toEqual({
      ...REF(type),
      kind: "ignored",
      reason: `event type ${type} is not used`,
    });
  });
});

describe("auto top-up: reading its invoice as Stripe answers it", () => {
  const NOW = new Date("2030-01-15T10:00:00.000Z");
  const base = (extra: Record<string, unknown> = {}) => ({
    ...stripeFixture("invoice"),
    id: "in_7",
    currency: "eur",
    subtotal: 5000,
    total_excluding_tax: 5000,
    total_taxes: [{ amount: 950, taxability_reason: "standard_rated" }],
    total: 5950,
    amount_due: 5950,
    hosted_invoice_url: "https://invoice.stripe.com/i/acct_1/test_7",
    metadata: { auto_top_up_attempt_id: ATTEMPT },
    ...extra,
  });
  const withIntent = (intent: unknown, extra: Record<string, unknown> = {}) =>
    base({
      status: "open",
      payments: {
        data: [
          { status: "open", is_default: true, payment: { type: "payment_intent", payment_intent: intent } },
        ],
      },
      ...extra,
    });
  const read = (object: unknown) => {
    const result = parseAutoTopUpInvoice(object, NOW);
    if (!result.ok) throw new Error(result.error);
    return result.answer;
  };

  it("paid: the payment, its intent, when it was paid, and the document", () => {
    const paid = base({
      status: "paid",
      amount_paid: 5950,
      number: "A1B2C3-0007",
      status_transitions: { paid_at: 1_900_000_000 },
      payments: {
        data: [
          { status: "paid", is_default: true, payment: { type: "payment_intent", payment_intent: "pi_7" } },
        ],
      },
    });
    expect(read(paid)).toEqual({
      status: "paid",
      invoiceId: "in_7",
      paymentIntentId: "pi_7",
      paidAt: new Date(1_900_000_000_000),
      payment: {
        net: 5000,
        tax: 950,
        total: 5950,
        currency: "eur",
        reverseCharge: false,
        buyer: { name: null, email: null, country: null, vatId: null },
      },
      document: {
        invoiceId: "in_7",
        number: "A1B2C3-0007",
        hostedInvoiceUrl: "https://invoice.stripe.com/i/acct_1/test_7",
        invoicePdfUrl: null,
      },
    });
    expect(read(base({ status: "paid", status_transitions: null }))).toMatchObject({
      paidAt: NOW,
      paymentIntentId: null,
    });
  });

  it("refuses a paid invoice whose amounts do not add up, and one it cannot read", () => {
    expect(parseAutoTopUpInvoice(base({ status: "paid", total: 1 }), NOW)).toEqual({
      ok: false,
      error: "invoice in_7: amounts do not add up: net 5000 + tax 950 is not the total 1",
    });
    expect(parseAutoTopUpInvoice({ id: "in_7" }, NOW)).toEqual({
      ok: false,
      error: expect.stringMatching(/^invoice: currency: /),
    });
  });

  it("void", () => {
    expect(read(base({ status: "void" }))).toEqual({ status: "void", invoiceId: "in_7" });
  });

  it("uncollectible: declined, with the last decline's code", () => {
    const intent = {
      id: "pi_7",
      status: "requires_payment_method",
      last_payment_error: { decline_code: "lost_card" },
    };
    expect(read(withIntent(intent, { status: "uncollectible" }))).toEqual({
      status: "declined",
      invoiceId: "in_7",
      code: "lost_card",
    });
    expect(read(base({ status: "uncollectible" }))).toEqual({
      status: "declined",
      invoiceId: "in_7",
      code: null,
    });
  });

  it("open, its payment waiting for authentication: paid by the customer at the hosted page", () => {
    const intent = { id: "pi_7", status: "requires_action", last_payment_error: null };
    expect(read(withIntent(intent))).toEqual({
      status: "requires_action",
      invoiceId: "in_7",
      payUrl: "https://invoice.stripe.com/i/acct_1/test_7",
    });
    expect(parseAutoTopUpInvoice(withIntent(intent, { hosted_invoice_url: null }), NOW)).toEqual({
      ok: false,
      error: "invoice in_7: no hosted_invoice_url",
    });
  });

  it.each([
    ["decline code", { code: "card_declined", decline_code: "authentication_required" }],
    ["code", { code: "authentication_required", decline_code: null }],
    ["code of invoices.pay", { code: "invoice_payment_intent_requires_action" }],
  ])(
    "open, declined off-session for authentication (as its %s): the customer pays at the hosted page",
    (_case, error) => {
      const intent = { id: "pi_7", status: "requires_payment_method", last_payment_error: error };
      expect(read(withIntent(intent))).toEqual({
        status: "requires_action",
        invoiceId: "in_7",
        payUrl: "https://invoice.stripe.com/i/acct_1/test_7",
      });
    },
  );

  it("an authentication error on an intent that is no longer waiting is not asked again", () => {
    const intent = {
      id: "pi_7",
      status: "processing",
      last_payment_error: { code: "authentication_required" },
    };
    expect(read(withIntent(intent))).toEqual({ status: "open", invoiceId: "in_7" });
  });

  it("open, its last attempt declined: declined with the code", () => {
    const intent = {
      id: "pi_7",
      status: "requires_payment_method",
      last_payment_error: { code: "card_declined", decline_code: "insufficient_funds" },
    };
    expect(read(withIntent(intent))).toEqual({
      status: "declined",
      invoiceId: "in_7",
      code: "insufficient_funds",
    });
  });

  it.each([
    ["not attempted yet", { id: "pi_7", status: "requires_payment_method", last_payment_error: null }],
    ["processing", { id: "pi_7", status: "processing" }],
    ["a payment intent not expanded", "pi_7"],
    [
      "a declined status of another kind",
      { id: "pi_7", status: "canceled", last_payment_error: { code: "x" } },
    ],
  ])("open otherwise: %s", (_case, intent) => {
    expect(read(withIntent(intent))).toEqual({ status: "open", invoiceId: "in_7" });
  });

  it("a draft (made, not finalised yet) and one naming no payment are open", () => {
    expect(read(base({ status: "draft" }))).toEqual({ status: "open", invoiceId: "in_7" });
    expect(read(base({ status: "open" }))).toEqual({ status: "open", invoiceId: "in_7" });
  });
});

describe("asksForAuthentication", () => {
  it.each([
    [{ code: "authentication_required" }, true],
    [{ decline_code: "authentication_required" }, true],
    [{ code: "invoice_payment_intent_requires_action", decline_code: null }, true],
    [{ code: "card_declined", decline_code: "insufficient_funds" }, false],
    [{ code: null, decline_code: null }, false],
    [{}, false],
    [null, false],
    [undefined, false],
  ])("%j: %s", (error, expected) => {
    expect(asksForAuthentication(error)).toBe(expected);
  });
});

describe("a saved card as Stripe answers it", () => {
  it("its brand, last 4, expiry and customer (null: detached); none for a payment method that is not a card", () => {
    expect(parseStripeCard(stripeFixture("payment_method"))).toEqual({
      ok: true,
      card: {
        paymentMethodId: "pm_1Pgc75B7WZ01zgkWlHVgdEGJ",
        customerId: null,
        brand: "visa",
        last4: "4242",
        expMonth: 8,
        expYear: 2030,
      },
    });
    for (const customer of ["cus_1", { id: "cus_1", object: "customer" }]) {
      expect(parseStripeCard({ ...stripeFixture("payment_method"), customer })).toMatchObject({
        ok: true,
        card: { customerId: "cus_1" },
      });
    }
    expect(parseStripeCard({ ...stripeFixture("payment_method"), type: "sepa_debit", card: null })).toEqual({
      ok: true,
      card: null,
    });
  });

  it("refuses one it cannot read, naming the field", () => {
    expect(parseStripeCard({ id: "pm_1" })).toEqual({
      ok: false,
      error: expect.stringMatching(/^payment method: type: /),
    });
  });
});

describe("the auto top-up attempt a retrieved invoice names", () => {
  const attemptId = "6f1c1f0e-8a7b-4c1d-9e2f-3a4b5c6d7e8f";
  it("its metadata.auto_top_up_attempt_id, when it is an attempt's id", () => {
    expect(
      autoTopUpAttemptOf({ ...stripeFixture("invoice"), metadata: { auto_top_up_attempt_id: attemptId } }),
    ).toBe(attemptId);
  });

  it.each([
    ["no such metadata", { metadata: { order_id: "1" } }],
    ["no metadata at all", { metadata: null }],
    ["an id that is no UUID", { metadata: { auto_top_up_attempt_id: "att_1" } }],
    ["metadata that is not Stripe's", { metadata: "odd" }],
  ])("none for %s", (_, extra) => {
    expect(autoTopUpAttemptOf({ ...stripeFixture("invoice"), ...extra })).toBeNull();
  });
});
