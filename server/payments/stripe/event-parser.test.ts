// The parser's rules one field at a time, on the smallest events Stripe could send: what each event
// family becomes, which fallback each field takes on an older API version or a sparse object, and
// what is refused. (events.test.ts reads the local checkout's full events back, end to end.)
import { describe, expect, it } from "vitest";
import { stripeFixture } from "../local/stripe-fixtures.ts";
import { parseStripeEvent, parseStripeSubscription } from "./event-parser.ts";

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
