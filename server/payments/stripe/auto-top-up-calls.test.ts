// The Stripe adapter's auto top-up calls against a stand-in for Stripe's API (as provider.test.ts:
// the real SDK pointed at a local server that records each request and answers canned Stripe JSON,
// built on Stripe's own example objects): what each call asks Stripe, with which idempotency key,
// and how each of Stripe's answers (paid, declined, authentication, refused, unreachable) is read.
import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { cardSetupSessions, organizations, users } from "../../db/schema/index.ts";
import { type Answer, on, type Route, useStripeStandIn } from "../../testing/stripe-stand-in.ts";
import { stripeFixture } from "../local/stripe-fixtures.ts";

const CONSENT =
  "By saving this card you allow Example GmbH to charge it for the automatic credit purchases you turn on under Billing.";
const HOSTED = "https://invoice.stripe.com/i/acct_1/test_in_1";

/** Stripe's error answer (HTTP status and body), as its API sends it. */
const failure =
  (status: number, error: Record<string, unknown>): Route =>
  () =>
    ({ status, body: { error } }) satisfies Answer;
const cardError = (code: string, declineCode?: string, extra: Record<string, unknown> = {}) =>
  failure(402, {
    type: "card_error",
    code,
    decline_code: declineCode,
    message: "Your card was declined.",
    ...extra,
  });
const invalidRequest = (message: string, code?: string) =>
  failure(400, { type: "invalid_request_error", code, message });

/** Stripe's example invoice (fixtures3.json), as one of our auto top-ups in state `status`. */
function invoiceOf(status: string, extra: Record<string, unknown> = {}) {
  return {
    ...stripeFixture("invoice"),
    id: "in_1",
    status,
    customer: "cus_1",
    currency: "eur",
    number: "A1B2C3-0001",
    hosted_invoice_url: HOSTED,
    invoice_pdf: "https://pay.stripe.com/invoice/acct_1/test_in_1/pdf",
    subtotal: 5000,
    total_excluding_tax: 5000,
    total_taxes: [{ amount: 950, taxability_reason: "standard_rated" }],
    total: 5950,
    amount_due: 5950,
    amount_paid: status === "paid" ? 5950 : 0,
    metadata: { auto_top_up_attempt_id: "att" },
    ...extra,
  };
}
const withPayment = (status: string, intent: unknown) => ({
  payments: {
    object: "list",
    has_more: false,
    data: [
      {
        id: "inpay_1",
        object: "invoice_payment",
        status,
        is_default: true,
        payment: { type: "payment_intent", payment_intent: intent },
      },
    ],
  },
});

describe("Stripe adapter: auto top-up (SDK pointed at a local stand-in)", () => {
  const ctx = useStripeStandIn();

  let orgId: string;
  let memberA: string;
  let memberB: string;
  beforeEach(async () => {
    [orgId, memberA, memberB] = [randomUUID(), randomUUID(), randomUUID()];
    await ctx.database.db.insert(users).values(
      [memberA, memberB].map((id, i) => ({
        id,
        username: `member${i}`,
        email: `member${i}@example.com`,
        passwordHash: "x",
        emailVerified: true,
      })),
    );
    await ctx.database.db
      .insert(organizations)
      .values({ id: orgId, name: "Example GmbH", createdBy: memberA });
  });

  const asked = () => ctx.requests.map((r) => `${r.method} ${r.path}`);
  const attemptId = "6a1d9c0e-2b3f-4e57-8a19-c4d5e6f70812";
  const charge = {
    attemptId,
    orgId: "",
    customerId: "cus_1",
    paymentMethodId: "pm_1",
    productId: "prod_500",
    priceId: "price_500",
    description: "Auto top-up: 500 credits",
    amount: 5000,
    currency: "eur",
  };

  describe("the card-setup page", () => {
    const setupRoutes = (): Route[] => {
      let n = 0;
      return [
        on("POST", "/v1/customers", { id: "cus_1", object: "customer" }),
        (req) => {
          if (req.method !== "POST" || req.path !== "/v1/checkout/sessions") return undefined;
          n++;
          return {
            body: {
              ...stripeFixture("checkout.session"),
              id: `cs_test_setup${n}`,
              mode: "setup",
              url: `https://checkout.stripe.com/c/pay/cs_test_setup${n}`,
              expires_at: 1_900_000_000 + n,
            },
          };
        },
      ];
    };
    const setup = (openedBy: string) => ({
      orgId,
      openedBy,
      email: "billing@example.com",
      currency: "eur",
      successUrl: "https://portal.test/profile/billing?card=saved",
      cancelUrl: "https://portal.test/profile/billing?card=cancelled",
      consentText: CONSENT,
    });

    it("is a setup-mode session for the organisation's customer, cards only, with the consent, recorded with its opener", async () => {
      ctx.routes = setupRoutes();
      expect(await ctx.provider().createCardSetupSession(ctx.database.db, setup(memberA))).toEqual({
        id: "cs_test_setup1",
        url: "https://checkout.stripe.com/c/pay/cs_test_setup1",
      });
      expect(asked()).toEqual(["POST /v1/customers", "POST /v1/checkout/sessions"]);
      // The customer is the organisation's, made with its billing e-mail (never the member's).
      expect(Object.fromEntries(ctx.requests[0]?.body ?? [])).toEqual({
        email: "billing@example.com",
        "metadata[user_id]": orgId,
        "metadata[org_id]": orgId,
      });
      expect(Object.fromEntries(ctx.requests[1]?.body ?? [])).toEqual({
        mode: "setup",
        customer: "cus_1",
        currency: "eur",
        "allowed_payment_method_types[0]": "card",
        "setup_intent_data[metadata][org_id]": orgId,
        "setup_intent_data[metadata][opened_by]": memberA,
        "metadata[org_id]": orgId,
        "metadata[opened_by]": memberA,
        success_url: "https://portal.test/profile/billing?card=saved",
        cancel_url: "https://portal.test/profile/billing?card=cancelled",
        "custom_text[submit][message]": CONSENT,
      });
      const rows = await ctx.database.db.select().from(cardSetupSessions);
      expect(rows).toEqual([
        {
          id: "cs_test_setup1",
          provider: "stripe",
          orgId,
          openedBy: memberA,
          customerId: "cus_1",
          currency: "eur",
          status: "open",
          url: "https://checkout.stripe.com/c/pay/cs_test_setup1",
          successUrl: "https://portal.test/profile/billing?card=saved",
          cancelUrl: "https://portal.test/profile/billing?card=cancelled",
          consentText: CONSENT,
          setupIntentId: null,
          createdAt: ctx.clock.now(),
          expiresAt: new Date(1_900_000_001_000),
          completedAt: null,
        },
      ]);

      // A second page reuses the customer.
      await ctx.provider().createCardSetupSession(ctx.database.db, setup(memberB));
      expect(ctx.requests.filter((r) => r.path === "/v1/customers")).toHaveLength(1);
      expect(ctx.requests.at(-1)?.body.get("customer")).toBe("cus_1");
    });

    it("refuses a session Stripe answers without a URL, recording nothing", async () => {
      ctx.routes = [
        on("POST", "/v1/customers", { id: "cus_1", object: "customer" }),
        on("POST", "/v1/checkout/sessions", {
          id: "cs_test_x",
          object: "checkout.session",
          url: null,
          expires_at: 1,
        }),
      ];
      await expect(ctx.provider().createCardSetupSession(ctx.database.db, setup(memberA))).rejects.toThrow(
        "Stripe returned setup session cs_test_x without a URL",
      );
      expect(await ctx.database.db.select().from(cardSetupSessions)).toEqual([]);
    });

    it("removing a member expires the setup pages they opened; deleting the organisation, all still open", async () => {
      ctx.routes = setupRoutes();
      await ctx.provider().createCardSetupSession(ctx.database.db, setup(memberA));
      await ctx.provider().createCardSetupSession(ctx.database.db, setup(memberB));
      await ctx.provider().createCardSetupSession(ctx.database.db, setup(memberB));
      // A page whose lifetime is over, and one completed, are not asked about.
      await ctx.database.db.insert(cardSetupSessions).values([
        { ...row("cs_test_lapsed", memberA), expiresAt: new Date(ctx.clock.now().getTime() - 1000) },
        { ...row("cs_test_done", memberA), status: "complete" },
      ]);
      const closed = (id: string, status: string) => ({
        id,
        object: "checkout.session",
        mode: "setup",
        status,
      });
      ctx.routes = [
        on("POST", "/v1/checkout/sessions/cs_test_setup1/expire", closed("cs_test_setup1", "expired")),
        on("POST", "/v1/checkout/sessions/cs_test_setup2/expire", closed("cs_test_setup2", "expired")),
        // Completed meanwhile (the card arrives as its event): left open here until that event.
        (req) =>
          req.path === "/v1/checkout/sessions/cs_test_setup3/expire"
            ? invalidRequest("Only Checkout Sessions with a status of `open` can be expired.")(req)
            : undefined,
        on("GET", "/v1/checkout/sessions/cs_test_setup3", closed("cs_test_setup3", "complete")),
      ];
      ctx.standIn.reset();
      await ctx.provider().expireOpenCheckouts(ctx.database.db, orgId, memberA);
      expect(asked()).toEqual(["POST /v1/checkout/sessions/cs_test_setup1/expire"]);

      ctx.standIn.reset();
      await ctx.provider().expireOpenCheckouts(ctx.database.db, orgId);
      expect(asked()).toEqual([
        "POST /v1/checkout/sessions/cs_test_setup2/expire",
        "POST /v1/checkout/sessions/cs_test_setup3/expire",
        "GET /v1/checkout/sessions/cs_test_setup3",
      ]);
      const rows = await ctx.database.db
        .select({ id: cardSetupSessions.id, status: cardSetupSessions.status })
        .from(cardSetupSessions);
      expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
        cs_test_setup1: "expired",
        cs_test_setup2: "expired",
        cs_test_setup3: "open",
        cs_test_lapsed: "open",
        cs_test_done: "complete",
      });

      // Stripe unreachable for a page still open there: the removal must not go on.
      ctx.standIn.reset();
      ctx.routes = [
        (req) =>
          req.method === "POST" ? { status: 500, body: { error: { type: "api_error" } } } : undefined,
        on("GET", "/v1/checkout/sessions/cs_test_setup3", closed("cs_test_setup3", "open")),
      ];
      await expect(ctx.provider().expireOpenCheckouts(ctx.database.db, orgId)).rejects.toThrow();
    });

    const row = (id: string, openedBy: string) => ({
      id,
      provider: "stripe" as const,
      orgId,
      openedBy,
      customerId: "cus_1",
      currency: "eur",
      status: "open" as const,
      url: `https://checkout.stripe.com/c/pay/${id}`,
      successUrl: "https://portal.test/ok",
      cancelUrl: "https://portal.test/cancel",
      consentText: CONSENT,
      createdAt: ctx.clock.now(),
      expiresAt: new Date(ctx.clock.now().getTime() + 3_600_000),
    });

    it("leaves another organisation's pages, and the local checkout's, alone", async () => {
      const other = randomUUID();
      await ctx.database.db.insert(organizations).values({ id: other, name: "Other" });
      await ctx.database.db.insert(cardSetupSessions).values([
        { ...row("cs_test_other", memberA), orgId: other },
        { ...row("cs_local_1", memberA), provider: "local" },
      ]);
      await ctx.provider().expireOpenCheckouts(ctx.database.db, orgId);
      expect(ctx.requests).toEqual([]);
    });
  });

  describe("the saved card", () => {
    it("reads its brand, last 4, expiry and customer; null when Stripe does not know it", async () => {
      ctx.routes = [
        on("GET", "/v1/payment_methods/pm_1", {
          ...stripeFixture("payment_method"),
          id: "pm_1",
          customer: "cus_1",
        }),
      ];
      expect(await ctx.provider().retrieveCard(ctx.database.db, "pm_1")).toEqual({
        paymentMethodId: "pm_1",
        customerId: "cus_1",
        brand: "visa",
        last4: "4242",
        expMonth: 8,
        expYear: 2030,
      });
      expect(await ctx.provider().retrieveCard(ctx.database.db, "pm_gone")).toBeNull();
    });

    // Removed in the Billing Portal, a card is still there, detached: `customer` is null.
    it("answers a detached card as attached to no customer", async () => {
      ctx.routes = [
        on("GET", "/v1/payment_methods/pm_1", { ...stripeFixture("payment_method"), id: "pm_1" }),
      ];
      expect(await ctx.provider().retrieveCard(ctx.database.db, "pm_1")).toMatchObject({
        paymentMethodId: "pm_1",
        customerId: null,
      });
    });

    it("throws for a payment method it cannot read, and when Stripe fails", async () => {
      ctx.routes = [on("GET", "/v1/payment_methods/pm_odd", { id: "pm_odd", object: "payment_method" })];
      await expect(ctx.provider().retrieveCard(ctx.database.db, "pm_odd")).rejects.toThrow(
        /pm_odd could not be read: payment method: type/,
      );
      ctx.routes = [failure(500, { type: "api_error" })];
      await expect(ctx.provider().retrieveCard(ctx.database.db, "pm_1")).rejects.toThrow();
    });

    it("detaches it", async () => {
      ctx.routes = [
        on("POST", "/v1/payment_methods/pm_1/detach", { ...stripeFixture("payment_method"), id: "pm_1" }),
      ];
      await ctx.provider().detachCard(ctx.database.db, "pm_1");
      expect(asked()).toEqual(["POST /v1/payment_methods/pm_1/detach"]);
    });

    it("counts a card detached already, or gone, as detached", async () => {
      // Gone at Stripe.
      await expect(ctx.provider().detachCard(ctx.database.db, "pm_gone")).resolves.toBeUndefined();
      // Attached to no customer any more: Stripe refuses, and the card says why.
      ctx.routes = [
        (req) =>
          req.method === "POST"
            ? invalidRequest("The payment method you provided is not attached to a customer")(req)
            : undefined,
        on("GET", "/v1/payment_methods/pm_1", {
          ...stripeFixture("payment_method"),
          id: "pm_1",
          customer: null,
        }),
      ];
      ctx.standIn.reset();
      await expect(ctx.provider().detachCard(ctx.database.db, "pm_1")).resolves.toBeUndefined();
      expect(asked()).toEqual(["POST /v1/payment_methods/pm_1/detach", "GET /v1/payment_methods/pm_1"]);
      // Refused, and gone by the time it is read.
      ctx.routes = [(req) => (req.method === "POST" ? invalidRequest("refused")(req) : undefined)];
      await expect(ctx.provider().detachCard(ctx.database.db, "pm_1")).resolves.toBeUndefined();
    });

    it("throws when a card still attached is refused, or Stripe fails", async () => {
      ctx.routes = [
        (req) => (req.method === "POST" ? invalidRequest("refused")(req) : undefined),
        on("GET", "/v1/payment_methods/pm_1", {
          ...stripeFixture("payment_method"),
          id: "pm_1",
          customer: "cus_1",
        }),
      ];
      await expect(ctx.provider().detachCard(ctx.database.db, "pm_1")).rejects.toThrow("refused");
      ctx.routes = [
        (req) => (req.method === "POST" ? invalidRequest("refused")(req) : undefined),
        failure(500, { type: "api_error", message: "down" }),
      ];
      await expect(ctx.provider().detachCard(ctx.database.db, "pm_1")).rejects.toThrow("down");
      ctx.routes = [failure(500, { type: "api_error", message: "down" })];
      await expect(ctx.provider().detachCard(ctx.database.db, "pm_1")).rejects.toThrow("down");
    });
  });

  describe("an attempt's invoice", () => {
    /** Stripe's example invoice item (fixtures3.json), at the pack's price. */
    const item = (extra: Record<string, unknown> = {}) => ({
      ...stripeFixture("invoiceitem"),
      id: "ii_1",
      invoice: "in_1",
      amount: 5000,
      currency: "eur",
      ...extra,
    });

    it("is made for the customer with the saved card, Stripe Tax and the attempt, one item at the pack's price, then finalised, each step under its own key", async () => {
      ctx.routes = [
        on("POST", "/v1/invoices", invoiceOf("draft", { id: "in_1" })),
        on("POST", "/v1/invoiceitems", item()),
        on("POST", "/v1/invoices/in_1/finalize", invoiceOf("open")),
      ];
      const orgCharge = { ...charge, orgId };
      // The total is the finalised invoice's (Stripe Tax's VAT), for the runner to compare.
      expect(await ctx.provider().createAutoTopUpInvoice(ctx.database.db, orgCharge)).toEqual({
        invoiceId: "in_1",
        total: 5950,
      });
      expect(asked()).toEqual([
        "POST /v1/invoices",
        "POST /v1/invoiceitems",
        "POST /v1/invoices/in_1/finalize",
      ]);
      expect(ctx.requests.map((r) => r.headers["idempotency-key"])).toEqual([
        `auto-top-up:${attemptId}:invoice`,
        `auto-top-up:${attemptId}:item`,
        `auto-top-up:${attemptId}:finalize`,
      ]);
      expect(Object.fromEntries(ctx.requests[0]?.body ?? [])).toEqual({
        customer: "cus_1",
        currency: "eur",
        collection_method: "charge_automatically",
        auto_advance: "false",
        "automatic_tax[enabled]": "true",
        default_payment_method: "pm_1",
        pending_invoice_items_behavior: "exclude",
        "metadata[auto_top_up_attempt_id]": attemptId,
        "metadata[org_id]": orgId,
      });
      expect(Object.fromEntries(ctx.requests[1]?.body ?? [])).toEqual({
        customer: "cus_1",
        invoice: "in_1",
        "pricing[price]": "price_500",
        quantity: "1",
        description: "Auto top-up: 500 credits",
        "metadata[auto_top_up_attempt_id]": attemptId,
        "metadata[org_id]": orgId,
      });
      expect(Object.fromEntries(ctx.requests[2]?.body ?? [])).toEqual({ auto_advance: "false" });

      // Asked again (a crash before the attempt stored it): the same requests under the same
      // keys, so Stripe answers the same invoice and makes no second one.
      const first = ctx.requests.map((r) => [r.path, r.headers["idempotency-key"], r.body.toString()]);
      ctx.standIn.reset();
      // The total is the finalised invoice's (Stripe Tax's VAT), for the runner to compare.
      expect(await ctx.provider().createAutoTopUpInvoice(ctx.database.db, orgCharge)).toEqual({
        invoiceId: "in_1",
        total: 5950,
      });
      expect(ctx.requests.map((r) => [r.path, r.headers["idempotency-key"], r.body.toString()])).toEqual(
        first,
      );
    });

    it.each([
      ["another amount", { amount: 5500 }, "5500 eur"],
      ["another currency", { currency: "usd" }, "5000 usd"],
    ])(
      "is not finalised when Stripe prices the pack at %s than was consented to",
      async (_case, extra, priced) => {
        ctx.routes = [
          on("POST", "/v1/invoices", invoiceOf("draft")),
          on("POST", "/v1/invoiceitems", item(extra)),
        ];
        await expect(ctx.provider().createAutoTopUpInvoice(ctx.database.db, charge)).rejects.toThrow(
          `Stripe prices price_500 at ${priced}, not the 5000 eur consented to: auto top-up invoice in_1 left unfinalised`,
        );
        expect(asked()).toEqual(["POST /v1/invoices", "POST /v1/invoiceitems"]);
      },
    );

    it("throws when a step fails, so the attempt makes it again later under the same keys", async () => {
      ctx.routes = [
        on("POST", "/v1/invoices", invoiceOf("draft")),
        failure(500, { type: "api_error", message: "down" }),
      ];
      await expect(ctx.provider().createAutoTopUpInvoice(ctx.database.db, charge)).rejects.toThrow("down");
      expect(asked()).toEqual(["POST /v1/invoices", "POST /v1/invoiceitems"]);
    });
  });

  describe("paying it off-session", () => {
    const pay = () => ctx.provider().payAutoTopUpInvoice(ctx.database.db, charge, "in_1");
    const PAID = {
      status: "paid",
      invoiceId: "in_1",
      paymentIntentId: "pi_1",
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
        invoiceId: "in_1",
        number: "A1B2C3-0001",
        hostedInvoiceUrl: HOSTED,
        invoicePdfUrl: "https://pay.stripe.com/invoice/acct_1/test_in_1/pdf",
      },
    };
    const paidInvoice = () =>
      invoiceOf("paid", {
        status_transitions: { paid_at: 1_900_000_000 },
        ...withPayment("paid", {
          id: "pi_1",
          object: "payment_intent",
          status: "succeeded",
          last_payment_error: null,
        }),
      });

    it("pays with the saved card, off-session, under the attempt's pay key: paid, with the payment and the document", async () => {
      ctx.routes = [on("POST", "/v1/invoices/in_1/pay", paidInvoice())];
      expect(await pay()).toEqual(PAID);
      expect(asked()).toEqual(["POST /v1/invoices/in_1/pay"]);
      expect(ctx.requests[0]?.headers["idempotency-key"]).toBe(`auto-top-up:${attemptId}:pay`);
      expect(Object.fromEntries(ctx.requests[0]?.body ?? [])).toEqual({
        off_session: "true",
        payment_method: "pm_1",
        "expand[0]": "payments.data.payment.payment_intent",
      });
    });

    it.each([
      ["a decline for authentication", cardError("card_declined", "authentication_required")],
      ["authentication required as the code", cardError("authentication_required")],
      ["invoices.pay's own word for it", cardError("invoice_payment_intent_requires_action")],
      [
        "a payment intent waiting for the customer",
        cardError("card_declined", undefined, {
          payment_intent: { id: "pi_1", object: "payment_intent", status: "requires_action" },
        }),
      ],
    ])("%s: the customer pays at the invoice's hosted page", async (_case, answer) => {
      ctx.routes = [
        (req) => (req.method === "POST" ? answer(req) : undefined),
        on("GET", "/v1/invoices/in_1", invoiceOf("open")),
      ];
      expect(await pay()).toEqual({ status: "requires_action", invoiceId: "in_1", payUrl: HOSTED });
      expect(asked()).toEqual(["POST /v1/invoices/in_1/pay", "GET /v1/invoices/in_1"]);
    });

    it("throws when the invoice asking for authentication has no page to send the customer to", async () => {
      ctx.routes = [
        (req) => (req.method === "POST" ? cardError("authentication_required")(req) : undefined),
        on("GET", "/v1/invoices/in_1", invoiceOf("open", { hosted_invoice_url: null })),
      ];
      await expect(pay()).rejects.toThrow("Stripe invoice in_1 has no hosted page");
    });

    it.each([
      ["insufficient funds", cardError("card_declined", "insufficient_funds"), "insufficient_funds"],
      ["a plain decline", cardError("card_declined"), "card_declined"],
      ["an expired card", cardError("expired_card", "expired_card"), "expired_card"],
      ["a lost card", cardError("card_declined", "lost_card"), "lost_card"],
      ["a processing error", cardError("processing_error"), "processing_error"],
    ])("%s is a decline with its code, never a throw", async (_case, answer, code) => {
      ctx.routes = [answer];
      expect(await pay()).toEqual({ status: "declined", invoiceId: "in_1", code });
      // Nothing more is asked: no retry against a declined card.
      expect(asked()).toEqual(["POST /v1/invoices/in_1/pay"]);
    });

    it("a card error without any code is still a decline", async () => {
      ctx.routes = [failure(402, { type: "card_error", message: "Your card was declined." })];
      expect(await pay()).toEqual({ status: "declined", invoiceId: "in_1", code: null });
    });

    it.each([
      ["Stripe failing (500)", failure(500, { type: "api_error", message: "Stripe failed" })],
      [
        "rate limiting (429)",
        failure(429, { type: "invalid_request_error", code: "rate_limit", message: "Too many requests" }),
      ],
      [
        "a reused key (idempotency error)",
        failure(400, { type: "idempotency_error", message: "Keys for idempotent requests" }),
      ],
    ])("throws on %s: the attempt is then read, never paid again", async (_case, answer) => {
      ctx.routes = [answer];
      await expect(pay()).rejects.toThrow();
      expect(asked()).toEqual(["POST /v1/invoices/in_1/pay"]);
    });

    it("throws when Stripe cannot be reached", async () => {
      await ctx.unreachable(async () => {
        await expect(pay()).rejects.toThrow();
      });
    });

    it("an invoice paid already (by an earlier try, or at its page) is paid, read as Stripe has it", async () => {
      ctx.routes = [
        (req) =>
          req.method === "POST"
            ? invalidRequest("Invoice is already paid", "invoice_already_paid")(req)
            : undefined,
        on("GET", "/v1/invoices/in_1", paidInvoice()),
      ];
      expect(await pay()).toEqual(PAID);
      expect(asked()).toEqual(["POST /v1/invoices/in_1/pay", "GET /v1/invoices/in_1"]);
      expect(ctx.requests[1]?.query.get("expand[0]")).toBe("payments.data.payment.payment_intent");
    });

    it("an invoice voided meanwhile is void; one still open after a refusal throws", async () => {
      const refused = (req: Parameters<Route>[0]) =>
        req.method === "POST" ? invalidRequest("This invoice can no longer be paid")(req) : undefined;
      ctx.routes = [refused, on("GET", "/v1/invoices/in_1", invoiceOf("void"))];
      expect(await pay()).toEqual({ status: "void", invoiceId: "in_1" });
      ctx.routes = [refused, on("GET", "/v1/invoices/in_1", invoiceOf("open"))];
      await expect(pay()).rejects.toThrow("This invoice can no longer be paid");
    });

    it("a payment still processing is open: its event, or the next read, settles it", async () => {
      ctx.routes = [
        on(
          "POST",
          "/v1/invoices/in_1/pay",
          invoiceOf(
            "open",
            withPayment("open", { id: "pi_1", object: "payment_intent", status: "processing" }),
          ),
        ),
      ];
      expect(await pay()).toEqual({ status: "open", invoiceId: "in_1" });
    });

    it("throws for a paid invoice it cannot read", async () => {
      ctx.routes = [on("POST", "/v1/invoices/in_1/pay", { id: "in_1", object: "invoice", status: "paid" })];
      await expect(pay()).rejects.toThrow(/Stripe invoice in_1 could not be read: invoice: currency/);
    });
  });

  describe("reading it (a restart settles an attempt without paying again)", () => {
    const read = () => ctx.provider().readAutoTopUpInvoice(ctx.database.db, "in_1");

    it("asks for the invoice with its payments' intents", async () => {
      ctx.routes = [on("GET", "/v1/invoices/in_1", invoiceOf("void"))];
      expect(await read()).toEqual({ status: "void", invoiceId: "in_1" });
      expect(asked()).toEqual(["GET /v1/invoices/in_1"]);
      expect(ctx.requests[0]?.query.getAll("expand[0]")).toEqual(["payments.data.payment.payment_intent"]);
    });

    it.each([
      [
        "paid",
        invoiceOf("paid", { status_transitions: { paid_at: 1_900_000_000 }, ...withPayment("paid", "pi_1") }),
        { status: "paid", invoiceId: "in_1", paymentIntentId: "pi_1", paidAt: new Date(1_900_000_000_000) },
      ],
      [
        "declined, with the last decline's code",
        invoiceOf(
          "open",
          withPayment("open", {
            id: "pi_1",
            object: "payment_intent",
            status: "requires_payment_method",
            last_payment_error: {
              type: "card_error",
              code: "card_declined",
              decline_code: "insufficient_funds",
            },
          }),
        ),
        { status: "declined", invoiceId: "in_1", code: "insufficient_funds" },
      ],
      [
        "waiting for authentication",
        invoiceOf(
          "open",
          withPayment("open", {
            id: "pi_1",
            object: "payment_intent",
            status: "requires_payment_method",
            last_payment_error: {
              type: "card_error",
              code: "authentication_required",
              decline_code: "authentication_required",
            },
          }),
        ),
        { status: "requires_action", invoiceId: "in_1", payUrl: HOSTED },
      ],
      ["open, not paid yet", invoiceOf("open"), { status: "open", invoiceId: "in_1" }],
    ])("%s", async (_case, invoice, answer) => {
      ctx.routes = [on("GET", "/v1/invoices/in_1", invoice)];
      expect(await read()).toMatchObject(answer);
    });

    it("throws when Stripe fails, or does not know the invoice", async () => {
      ctx.routes = [failure(500, { type: "api_error" })];
      await expect(read()).rejects.toThrow();
      ctx.routes = [];
      await expect(read()).rejects.toThrow();
    });
  });

  describe("voiding it", () => {
    const voidIt = () => ctx.provider().voidAutoTopUpInvoice(ctx.database.db, "in_1", attemptId);
    const refused = (req: Parameters<Route>[0]) =>
      req.method === "POST" ? invalidRequest("You can only void open invoices")(req) : undefined;

    it("voids under the attempt's void key", async () => {
      ctx.routes = [on("POST", "/v1/invoices/in_1/void", invoiceOf("void"))];
      await voidIt();
      expect(asked()).toEqual(["POST /v1/invoices/in_1/void"]);
      expect(ctx.requests[0]?.headers["idempotency-key"]).toBe(`auto-top-up:${attemptId}:void`);
    });

    it.each(["paid", "void", "draft"])("an invoice %s already is left as it is", async (status) => {
      ctx.routes = [refused, on("GET", "/v1/invoices/in_1", invoiceOf(status))];
      await expect(voidIt()).resolves.toBeUndefined();
      expect(asked()).toEqual(["POST /v1/invoices/in_1/void", "GET /v1/invoices/in_1"]);
    });

    it("throws when an open invoice is refused, or Stripe fails", async () => {
      ctx.routes = [refused, on("GET", "/v1/invoices/in_1", invoiceOf("open"))];
      await expect(voidIt()).rejects.toThrow("You can only void open invoices");
      ctx.routes = [failure(500, { type: "api_error", message: "down" })];
      await expect(voidIt()).rejects.toThrow("down");
      expect(asked().at(-1)).toBe("POST /v1/invoices/in_1/void");
    });
  });

  // A refund or dispute of a payment not on record: the invoice the payment intent paid names its
  // attempt in its metadata (neither the charge nor the payment intent carries it).
  describe("the attempt an invoice was made for", () => {
    const attemptOf = () => ctx.provider().autoTopUpAttemptOfInvoice(ctx.database.db, "in_1");

    it("reads the invoice's metadata.auto_top_up_attempt_id", async () => {
      ctx.routes = [
        on(
          "GET",
          "/v1/invoices/in_1",
          invoiceOf("paid", { metadata: { auto_top_up_attempt_id: attemptId } }),
        ),
      ];
      expect(await attemptOf()).toBe(attemptId);
      expect(asked()).toEqual(["GET /v1/invoices/in_1"]);
    });

    it.each([
      ["another invoice (a Checkout top-up's, a renewal's)", { metadata: {} }],
      ["an id that is no attempt's", { metadata: { auto_top_up_attempt_id: "att" } }],
    ])("none for %s", async (_, extra) => {
      ctx.routes = [on("GET", "/v1/invoices/in_1", invoiceOf("paid", extra))];
      expect(await attemptOf()).toBeNull();
    });

    it("none for an invoice Stripe does not know; thrown when Stripe fails", async () => {
      expect(await attemptOf()).toBeNull();
      ctx.routes = [failure(500, { type: "api_error", message: "down" })];
      await expect(attemptOf()).rejects.toThrow("down");
    });
  });
});
