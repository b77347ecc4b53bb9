// A subscription's and a one-time payment's invoices as the parser reads them: the payment, the
// document, and which invoice each is (event-parser.test.ts says how these files are laid out).
import { describe, expect, it } from "vitest";
import { event, invoice, parsed, REF, T, topUpSession } from "../../testing/stripe-events.ts";
import { parseStripeEvent } from "./event-parser.ts";

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
