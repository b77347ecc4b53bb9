// Auto top-up's invoices as the parser reads them: in their events, and as Stripe answers a charge
// (event-parser.test.ts says how these files are laid out).
import { describe, expect, it } from "vitest";
import { ATTEMPT, at, event, invoice, ORG, parsed, REF, T } from "../../testing/stripe-events.ts";
import { stripeFixture } from "../local/stripe-fixtures.ts";
import { asksForAuthentication, autoTopUpAttemptOf, parseAutoTopUpInvoice } from "./auto-top-up-invoices.ts";
import { parseStripeEvent } from "./event-parser.ts";

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
