// The Stripe adapter against a stand-in for Stripe's API: real Stripe cannot be reached from
// here (no network, no account), so the real `stripe` SDK is pointed (host/port/protocol) at a
// local node:http server that records every request and answers canned Stripe-shaped JSON. The
// tests check what the adapter asks Stripe to do, in Stripe's own wire format.
import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { TIERS, TOP_UPS } from "../../../contract/catalogue.ts";
import type { PaymentProvider } from "../../billing/ports/payment-provider.ts";
import { checkoutSessions, users } from "../../db/schema/index.ts";
import { on, type Route, useStripeStandIn } from "../../testing/stripe-stand-in.ts";
import { stripeFixture } from "../local/stripe-fixtures.ts";
import { loadIdSetFromStripe } from "./provider.ts";

describe("Stripe adapter (SDK pointed at a local stand-in; real Stripe is not reachable here)", () => {
  const ctx = useStripeStandIn();

  let userId: string;
  beforeEach(async () => {
    userId = randomUUID();
    await ctx.database.db.insert(users).values({
      id: userId,
      username: "ann",
      email: "ann@example.com",
      passwordHash: "x",
      emailVerified: true,
    });
  });

  const checkoutRoutes = (): Route[] => {
    let n = 0;
    return [
      on("POST", "/v1/customers", { id: "cus_1", object: "customer" }),
      (req) => {
        if (req.method !== "POST" || req.path !== "/v1/checkout/sessions") return undefined;
        n++;
        return {
          body: {
            id: `cs_test_${n}`,
            object: "checkout.session",
            url: `https://checkout.stripe.com/c/pay/cs_test_${n}`,
            expires_at: 1_900_000_000,
          },
        };
      },
    ];
  };

  it("creates a subscription-mode session with client_reference_id, session and subscription metadata, for a reused customer", async () => {
    ctx.routes = checkoutRoutes();
    const checkout = {
      userId,
      openedBy: userId,
      email: "ann@example.com",
      mode: "subscription" as const,
      productId: "prod_b",
      priceId: "price_b",
      productName: "Tier B",
      amount: 34900,
      currency: "eur",
      successUrl: "https://portal.test/payment/success",
      cancelUrl: "https://portal.test/payment/failed",
    };
    const created = await ctx.provider().createCheckoutSession(ctx.database.db, checkout);
    expect(created).toEqual({ id: "cs_test_1", url: "https://checkout.stripe.com/c/pay/cs_test_1" });
    const session = ctx.requests.find((r) => r.path === "/v1/checkout/sessions");
    expect(Object.fromEntries(session?.body ?? [])).toMatchObject({
      mode: "subscription",
      customer: "cus_1",
      client_reference_id: userId,
      "line_items[0][price]": "price_b",
      "line_items[0][quantity]": "1",
      success_url: checkout.successUrl,
      cancel_url: checkout.cancelUrl,
      "metadata[user_id]": userId,
      "metadata[product_id]": "prod_b",
      "metadata[kind]": "subscription",
      "subscription_data[metadata][user_id]": userId,
      "subscription_data[metadata][product_id]": "prod_b",
      // VAT by Stripe Tax, from a required address, with the VAT ID, saved on the customer; cards only.
      "automatic_tax[enabled]": "true",
      billing_address_collection: "required",
      "tax_id_collection[enabled]": "true",
      "customer_update[address]": "auto",
      "customer_update[name]": "auto",
      "allowed_payment_method_types[0]": "card",
    });
    // invoice_creation is for one-time payments only (a subscription has its invoices anyway).
    expect(session?.body.has("invoice_creation[enabled]")).toBe(false);
    // The second checkout reuses the customer: no second POST /v1/customers.
    await ctx.provider().createCheckoutSession(ctx.database.db, {
      ...checkout,
      mode: "payment",
      productId: "prod_500",
      priceId: "price_500",
    });
    expect(ctx.requests.filter((r) => r.path === "/v1/customers")).toHaveLength(1);
    const payment = ctx.requests.filter((r) => r.path === "/v1/checkout/sessions")[1];
    expect(payment?.body.get("mode")).toBe("payment");
    expect(payment?.body.get("customer")).toBe("cus_1");
    expect(payment?.body.get("payment_intent_data[metadata][user_id]")).toBe(userId);
    expect(payment?.body.has("subscription_data[metadata][user_id]")).toBe(false);
    expect(payment?.body.get("invoice_creation[enabled]")).toBe("true");
    expect(payment?.body.get("invoice_creation[invoice_data][metadata][user_id]")).toBe(userId);
    expect(payment?.body.get("automatic_tax[enabled]")).toBe("true");
    // Both sessions are on record, for tracing a later grant back to its checkout.
    expect(await ctx.database.db.select().from(checkoutSessions)).toHaveLength(2);
  });

  it("puts the organisation's billing details on its customer, made with metadata.org_id when it has none, and answers the VAT ID's verification", async () => {
    ctx.routes = [
      on("POST", "/v1/customers", { id: "cus_9", object: "customer" }),
      on("POST", "/v1/customers/cus_9", { id: "cus_9", object: "customer" }),
      on("GET", "/v1/customers/cus_9/tax_ids", {
        object: "list",
        has_more: false,
        data: [
          { id: "txi_old", object: "tax_id", type: "eu_vat", value: "DE111111111" },
          {
            id: "txi_same",
            object: "tax_id",
            type: "eu_vat",
            value: "FR40303265045",
            verification: { status: "verified", verified_address: null, verified_name: null },
          },
        ],
      }),
      on("DELETE", "/v1/customers/cus_9/tax_ids/txi_old", { id: "txi_old", object: "tax_id", deleted: true }),
    ];
    const details = {
      name: "Exemple SARL",
      email: "compta@example.fr",
      address: { line1: "1 rue de Rivoli", line2: null, postal_code: "75001", city: "Paris", country: "FR" },
      vatId: "FR40303265045",
    };
    // The VAT ID kept answers its verification as Stripe has it.
    expect(await ctx.provider().saveCustomerDetails(ctx.database.db, userId, details)).toEqual({
      customerId: "cus_9",
      vatIdStatus: "verified",
    });
    const created = ctx.requests.find((r) => r.method === "POST" && r.path === "/v1/customers");
    expect(Object.fromEntries(created?.body ?? [])).toEqual({
      email: "compta@example.fr",
      "metadata[user_id]": userId,
      "metadata[org_id]": userId,
    });
    const updated = ctx.requests.find((r) => r.path === "/v1/customers/cus_9");
    expect(Object.fromEntries(updated?.body ?? [])).toEqual({
      name: "Exemple SARL",
      email: "compta@example.fr",
      "address[line1]": "1 rue de Rivoli",
      "address[line2]": "",
      "address[postal_code]": "75001",
      "address[city]": "Paris",
      "address[country]": "FR",
    });
    // The other VAT ID goes; the one given is there already, so none is added.
    expect(ctx.requests.map((r) => `${r.method} ${r.path}`)).toContain(
      "DELETE /v1/customers/cus_9/tax_ids/txi_old",
    );
    expect(ctx.requests.some((r) => r.method === "POST" && r.path === "/v1/customers/cus_9/tax_ids")).toBe(
      false,
    );
    expect(ctx.requests.some((r) => r.path.endsWith("txi_same"))).toBe(false);

    // A new VAT ID is added to the customer saved now (no second customer).
    ctx.standIn.reset();
    ctx.routes = [
      on("POST", "/v1/customers/cus_9", { id: "cus_9", object: "customer" }),
      on("GET", "/v1/customers/cus_9/tax_ids", { object: "list", has_more: false, data: [] }),
      // Stripe's example tax ID, as made now: VIES did not answer this time.
      on("POST", "/v1/customers/cus_9/tax_ids", {
        ...stripeFixture("tax_id"),
        id: "txi_new",
        customer: "cus_9",
        value: "FR40303265045",
        verification: { status: "unavailable", verified_address: null, verified_name: null },
      }),
    ];
    expect(
      await ctx
        .provider()
        .saveCustomerDetails(ctx.database.db, userId, { ...details, vatId: "FR40303265045" }),
    ).toEqual({ customerId: "cus_9", vatIdStatus: "unavailable" });
    expect(ctx.requests.some((r) => r.method === "POST" && r.path === "/v1/customers")).toBe(false);
    const taxId = ctx.requests.find((r) => r.method === "POST" && r.path === "/v1/customers/cus_9/tax_ids");
    expect(Object.fromEntries(taxId?.body ?? [])).toEqual({ type: "eu_vat", value: "FR40303265045" });

    // Without a VAT ID: the customer keeps none, and there is no state.
    ctx.standIn.reset();
    ctx.routes = [
      on("POST", "/v1/customers/cus_9", { id: "cus_9", object: "customer" }),
      on("GET", "/v1/customers/cus_9/tax_ids", {
        object: "list",
        has_more: false,
        data: [{ ...stripeFixture("tax_id"), id: "txi_new", customer: "cus_9", value: "FR40303265045" }],
      }),
      on("DELETE", "/v1/customers/cus_9/tax_ids/txi_new", { id: "txi_new", object: "tax_id", deleted: true }),
    ];
    expect(
      await ctx.provider().saveCustomerDetails(ctx.database.db, userId, { ...details, vatId: null }),
    ).toEqual({
      customerId: "cus_9",
      vatIdStatus: null,
    });
    expect(ctx.requests.map((r) => `${r.method} ${r.path}`)).toContain(
      "DELETE /v1/customers/cus_9/tax_ids/txi_new",
    );
  });

  const refundOf = (over: Partial<Parameters<PaymentProvider["refundPayment"]>[1]>) => ({
    userId,
    invoiceId: "6f1c2d3e-0000-4000-8000-000000000001",
    paymentReference: null,
    providerInvoiceId: null,
    currency: "eur",
    total: 11_900,
    refundedBefore: 0,
    amount: 5_000,
    reason: "Bought by mistake",
    idempotencyKey: "k-1",
    ...over,
  });

  it("refunds a top-up on its payment intent, once per idempotency key, with the reason in metadata", async () => {
    ctx.routes = [on("POST", "/v1/refunds", { id: "re_1", object: "refund", status: "succeeded" })];
    const answer = await ctx
      .provider()
      .refundPayment(ctx.database.db, refundOf({ paymentReference: "pi_1" }));
    expect(answer).toEqual({ refundId: "re_1", status: "succeeded" });
    const [request] = ctx.requests;
    expect(request?.path).toBe("/v1/refunds");
    expect(request?.body.get("payment_intent")).toBe("pi_1");
    expect(request?.body.get("amount")).toBe("5000");
    expect(request?.body.get("metadata[reason]")).toBe("Bought by mistake");
    expect(request?.headers["idempotency-key"]).toBe("refund:6f1c2d3e-0000-4000-8000-000000000001:k-1");
  });

  it("refunds a subscription invoice through the payment intent that paid it, and nothing it cannot find", async () => {
    ctx.routes = [
      on("GET", "/v1/invoice_payments", {
        object: "list",
        data: [
          {
            id: "inpay_1",
            object: "invoice_payment",
            payment: { type: "payment_intent", payment_intent: "pi_9" },
          },
        ],
        has_more: false,
      }),
      on("POST", "/v1/refunds", { id: "re_2", object: "refund", status: "pending" }),
    ];
    const answer = await ctx
      .provider()
      .refundPayment(ctx.database.db, refundOf({ providerInvoiceId: "in_1" }));
    expect(answer).toEqual({ refundId: "re_2", status: "pending" });
    expect(ctx.requests[0]?.query.get("invoice")).toBe("in_1");
    expect(ctx.requests[0]?.query.get("status")).toBe("paid");
    expect(ctx.requests[1]?.body.get("payment_intent")).toBe("pi_9");

    ctx.routes = [on("GET", "/v1/invoice_payments", { object: "list", data: [], has_more: false })];
    ctx.standIn.reset();
    expect(
      await ctx.provider().refundPayment(ctx.database.db, refundOf({ providerInvoiceId: "in_2" })),
    ).toBeNull();
    expect(ctx.requests.some((r) => r.path === "/v1/refunds")).toBe(false);
  });

  it("cancels at period end", async () => {
    ctx.routes = [
      on("GET", "/v1/subscriptions/sub_1", {
        id: "sub_1",
        object: "subscription",
        status: "active",
        cancel_at_period_end: false,
        schedule: null,
        items: { data: [] },
      }),
      on("POST", "/v1/subscriptions/sub_1", {
        id: "sub_1",
        object: "subscription",
        cancel_at_period_end: true,
      }),
    ];
    await ctx.provider().setCancelAtPeriodEnd(ctx.database.db, "sub_1", true);
    const update = ctx.requests.find((r) => r.method === "POST");
    expect(update?.path).toBe("/v1/subscriptions/sub_1");
    expect(update?.body.get("cancel_at_period_end")).toBe("true");
  });

  it("schedules a plan change for the period end with a subscription schedule", async () => {
    ctx.routes = [
      on("GET", "/v1/subscriptions/sub_1", {
        id: "sub_1",
        object: "subscription",
        status: "active",
        schedule: null,
        metadata: { user_id: "user_1", product_id: "prod_a" },
        items: { data: [{ price: { id: "price_a", product: "prod_a" } }] },
      }),
      on("GET", "/v1/products/prod_c", { id: "prod_c", object: "product", default_price: "price_c" }),
      on("POST", "/v1/subscription_schedules", {
        id: "sub_sched_1",
        object: "subscription_schedule",
        current_phase: { start_date: 1_000, end_date: 2_000 },
        phases: [],
      }),
      on("POST", "/v1/subscription_schedules/sub_sched_1", {
        id: "sub_sched_1",
        object: "subscription_schedule",
      }),
    ];
    await ctx.provider().scheduleChange(ctx.database.db, "sub_1", "prod_c");
    const created = ctx.requests.find((r) => r.path === "/v1/subscription_schedules");
    expect(created?.body.get("from_subscription")).toBe("sub_1");
    const update = ctx.requests.find((r) => r.path === "/v1/subscription_schedules/sub_sched_1");
    expect(Object.fromEntries(update?.body ?? [])).toMatchObject({
      end_behavior: "release",
      "phases[0][items][0][price]": "price_a",
      "phases[0][start_date]": "1000",
      "phases[0][end_date]": "2000",
      "phases[0][metadata][product_id]": "prod_a",
      "phases[0][metadata][user_id]": "user_1",
      "phases[1][items][0][price]": "price_c",
      "phases[1][duration][interval]": "month",
      // When the new phase starts, the subscription's metadata names the new product.
      "phases[1][metadata][product_id]": "prod_c",
      "phases[1][metadata][user_id]": "user_1",
    });
  });

  it("expires the user's open sessions at Stripe, leaves one Stripe has completed, and stops on any other failure", async () => {
    const session = (id: string, status: "open" | "complete" | "expired", expiresAt: Date) => ({
      id,
      provider: "stripe" as const,
      userId,
      mode: "payment" as const,
      productId: "prod_pack",
      priceId: "price_pack",
      amount: 1000,
      currency: "eur",
      status,
      url: `https://checkout.stripe.com/c/pay/${id}`,
      successUrl: "http://localhost/ok",
      cancelUrl: "http://localhost/cancel",
      customerId: "cus_1",
      createdAt: ctx.clock.now(),
      expiresAt,
    });
    const later = new Date(ctx.clock.now().getTime() + 3_600_000);
    await ctx.database.db
      .insert(checkoutSessions)
      .values([
        session("cs_open", "open", later),
        session("cs_paid_meanwhile", "open", later),
        session("cs_done", "complete", later),
        session("cs_lapsed", "open", new Date(ctx.clock.now().getTime() - 1000)),
      ]);
    const closed = (id: string, status: string) => ({ id, object: "checkout.session", status });
    ctx.routes = [
      on("POST", "/v1/checkout/sessions/cs_open/expire", closed("cs_open", "expired")),
      (req) =>
        req.path === "/v1/checkout/sessions/cs_paid_meanwhile/expire"
          ? { status: 400, body: { error: { type: "invalid_request_error", message: "Only open sessions" } } }
          : undefined,
      on("GET", "/v1/checkout/sessions/cs_paid_meanwhile", closed("cs_paid_meanwhile", "complete")),
    ];
    // A member's removal asks only about the sessions they opened: none of these.
    await ctx.provider().expireOpenCheckouts(ctx.database.db, userId, randomUUID());
    expect(ctx.requests).toEqual([]);
    await ctx.provider().expireOpenCheckouts(ctx.database.db, userId);
    // Only the open ones still within their lifetime are asked about.
    expect(ctx.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/checkout/sessions/cs_open/expire",
      "POST /v1/checkout/sessions/cs_paid_meanwhile/expire",
      "GET /v1/checkout/sessions/cs_paid_meanwhile",
    ]);
    const rows = await ctx.database.db
      .select({ id: checkoutSessions.id, status: checkoutSessions.status })
      .from(checkoutSessions);
    // The one paid meanwhile stays open here until its event says complete.
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      cs_open: "expired",
      cs_paid_meanwhile: "open",
      cs_done: "complete",
      cs_lapsed: "open",
    });

    // Stripe unreachable for a session still open there: the deletion must not go on.
    ctx.standIn.reset();
    ctx.routes = [
      (req) => (req.method === "POST" ? { status: 500, body: { error: { type: "api_error" } } } : undefined),
      on("GET", "/v1/checkout/sessions/cs_paid_meanwhile", closed("cs_paid_meanwhile", "open")),
    ];
    await expect(ctx.provider().expireOpenCheckouts(ctx.database.db, userId)).rejects.toThrow();
  });

  it("expires only the subscription sessions still open once a subscription has started", async () => {
    const later = new Date(ctx.clock.now().getTime() + 3_600_000);
    const session = (id: string, mode: "subscription" | "payment") => ({
      id,
      provider: "stripe" as const,
      userId,
      mode,
      productId: "prod_x",
      priceId: "price_x",
      amount: 1000,
      currency: "eur",
      status: "open" as const,
      url: `https://checkout.stripe.com/c/pay/${id}`,
      successUrl: "http://localhost/ok",
      cancelUrl: "http://localhost/cancel",
      customerId: "cus_1",
      createdAt: ctx.clock.now(),
      expiresAt: later,
    });
    await ctx.database.db
      .insert(checkoutSessions)
      .values([session("cs_other_plan", "subscription"), session("cs_pack", "payment")]);
    ctx.routes = [
      on("POST", "/v1/checkout/sessions/cs_other_plan/expire", {
        id: "cs_other_plan",
        object: "checkout.session",
        status: "expired",
      }),
    ];
    await ctx.provider().expireSubscriptionCheckouts(ctx.database.db, userId);
    // A top-up's checkout stays payable, and no card-setup page is asked about.
    expect(ctx.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/checkout/sessions/cs_other_plan/expire",
    ]);
    const rows = await ctx.database.db
      .select({ id: checkoutSessions.id, status: checkoutSessions.status })
      .from(checkoutSessions);
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      cs_other_plan: "expired",
      cs_pack: "open",
    });
  });

  describe("retrieves a subscription when an event may be stale", () => {
    // Stripe's own example subscription (its fixtures), with the facts this test names.
    const example = (fields: Record<string, unknown>) => ({ ...stripeFixture("subscription"), ...fields });

    it("reads it as customer.subscription.updated is read", async () => {
      const sub = example({ id: "sub_1", status: "active", cancel_at_period_end: false });
      ctx.routes = [on("GET", "/v1/subscriptions/sub_1", sub)];
      const item = (sub.items as { data: { current_period_start: number; current_period_end: number }[] })
        .data[0];
      expect(await ctx.provider().retrieveSubscription(ctx.database.db, "sub_1")).toEqual({
        status: "active",
        cancelAtPeriodEnd: false,
        productId: "prod_QXg1hqf4jFNsqG",
        period: {
          start: new Date((item?.current_period_start ?? 0) * 1000),
          end: new Date((item?.current_period_end ?? 0) * 1000),
        },
      });
      expect(ctx.requests).toMatchObject([{ method: "GET", path: "/v1/subscriptions/sub_1" }]);
    });

    it("answers null for a subscription Stripe does not have, and throws for one it cannot read", async () => {
      expect(await ctx.provider().retrieveSubscription(ctx.database.db, "sub_gone")).toBeNull();
      ctx.routes = [on("GET", "/v1/subscriptions/sub_odd", { id: "sub_odd", object: "subscription" })];
      await expect(ctx.provider().retrieveSubscription(ctx.database.db, "sub_odd")).rejects.toThrow(
        /sub_odd could not be read: subscription: status/,
      );
      ctx.routes = [() => ({ status: 500, body: { error: { type: "api_error" } } })];
      await expect(ctx.provider().retrieveSubscription(ctx.database.db, "sub_1")).rejects.toThrow();
    });
  });

  it("cancels a subscription now without proration and voids its invoices still open", async () => {
    ctx.routes = [
      on("DELETE", "/v1/subscriptions/sub_1", { id: "sub_1", object: "subscription", status: "canceled" }),
      on("GET", "/v1/invoices", {
        object: "list",
        data: [{ id: "in_open", object: "invoice", status: "open" }],
        has_more: false,
      }),
      on("POST", "/v1/invoices/in_open/void", { id: "in_open", object: "invoice", status: "void" }),
    ];
    await ctx.provider().cancelNow(ctx.database.db, "sub_1", false);
    expect(ctx.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "DELETE /v1/subscriptions/sub_1",
      "GET /v1/invoices",
      "POST /v1/invoices/in_open/void",
    ]);
    expect(ctx.requests[0]?.query.get("prorate")).toBe("false");
    expect(ctx.requests[1]?.query.get("subscription")).toBe("sub_1");
    expect(ctx.requests[1]?.query.get("status")).toBe("open");
  });

  describe("refunds a payment that arrived for a deleted organisation", () => {
    const unclaimed = (over: { paymentIntentId?: string | null; providerInvoiceId?: string | null }) => ({
      orgId: userId,
      customerId: "cus_1",
      paymentIntentId: null,
      providerInvoiceId: null,
      total: 9_401,
      currency: "eur",
      reason: "Paid for an organisation that was deleted",
      ...over,
    });

    it("in full, on its payment intent, once per payment", async () => {
      ctx.routes = [on("POST", "/v1/refunds", { id: "re_1", object: "refund", status: "succeeded" })];
      expect(
        await ctx.provider().refundUnclaimedPayment(ctx.database.db, unclaimed({ paymentIntentId: "pi_1" })),
      ).toBe(true);
      const [request] = ctx.requests;
      expect(request?.path).toBe("/v1/refunds");
      expect(request?.body.get("payment_intent")).toBe("pi_1");
      // No amount: all of it.
      expect(request?.body.has("amount")).toBe(false);
      expect(request?.body.get("metadata[org_id]")).toBe(userId);
      // One key per payment and reason: Stripe refuses a key sent again with other parameters.
      const key = request?.headers["idempotency-key"] ?? "";
      expect(key).toMatch(/^unclaimed-refund:pi_1:[0-9a-f]{16}$/);
      await ctx.provider().refundUnclaimedPayment(ctx.database.db, unclaimed({ paymentIntentId: "pi_1" }));
      expect(ctx.requests[1]?.headers["idempotency-key"]).toBe(key);
      await ctx.provider().refundUnclaimedPayment(ctx.database.db, {
        ...unclaimed({ paymentIntentId: "pi_1" }),
        reason: "A second subscription was paid while another was live",
      });
      expect(ctx.requests[2]?.headers["idempotency-key"]).not.toBe(key);
    });

    it("tells the reason billing gave for a charge's refund from the refunds' metadata; others: none", async () => {
      const refunds = (...metadata: Record<string, string>[]) =>
        on("GET", "/v1/refunds", {
          object: "list",
          has_more: false,
          url: "/v1/refunds",
          data: metadata.map((m, i) => ({ id: `re_${i}`, object: "refund", metadata: m })),
        });
      // A console refund names its invoice; billing's unclaimed refunds name the organisation.
      ctx.routes = [
        refunds(
          { invoice_id: "inv_1", reason: "Goodwill" },
          { org_id: userId, reason: "A second subscription was paid while another was live" },
        ),
      ];
      expect(await ctx.provider().unclaimedRefundReason(ctx.database.db, "ch_1")).toBe(
        "A second subscription was paid while another was live",
      );
      expect(ctx.requests[0]?.query.get("charge")).toBe("ch_1");

      ctx.standIn.reset();
      ctx.routes = [refunds({ invoice_id: "inv_1", reason: "Goodwill" }, { org_id: userId })];
      expect(await ctx.provider().unclaimedRefundReason(ctx.database.db, "ch_2")).toBeNull();
      ctx.standIn.reset();
      ctx.routes = [refunds()];
      expect(await ctx.provider().unclaimedRefundReason(ctx.database.db, "ch_3")).toBeNull();
    });

    it("through the payment intent that paid a subscription's invoice; none found: not refunded", async () => {
      ctx.routes = [
        on("GET", "/v1/invoice_payments", {
          object: "list",
          data: [
            {
              id: "inpay_1",
              object: "invoice_payment",
              payment: { type: "payment_intent", payment_intent: "pi_9" },
            },
          ],
          has_more: false,
        }),
        on("POST", "/v1/refunds", { id: "re_2", object: "refund", status: "pending" }),
      ];
      expect(
        await ctx
          .provider()
          .refundUnclaimedPayment(ctx.database.db, unclaimed({ providerInvoiceId: "in_1" })),
      ).toBe(true);
      expect(ctx.requests[0]?.query.get("invoice")).toBe("in_1");
      expect(ctx.requests[0]?.query.get("status")).toBe("paid");
      expect(ctx.requests[1]?.body.get("payment_intent")).toBe("pi_9");

      ctx.standIn.reset();
      ctx.routes = [on("GET", "/v1/invoice_payments", { object: "list", data: [], has_more: false })];
      expect(
        await ctx
          .provider()
          .refundUnclaimedPayment(ctx.database.db, unclaimed({ providerInvoiceId: "in_2" })),
      ).toBe(false);
      expect(await ctx.provider().refundUnclaimedPayment(ctx.database.db, unclaimed({}))).toBe(false);
      expect(ctx.requests.some((r) => r.path === "/v1/refunds")).toBe(false);
    });

    it("counts a payment refunded already as done, one refused for good as not refunded, and throws otherwise", async () => {
      const refusal = (code: string) => () => ({
        status: 400,
        body: { error: { type: "invalid_request_error", code, message: code } },
      });
      ctx.routes = [refusal("charge_already_refunded")];
      expect(
        await ctx.provider().refundUnclaimedPayment(ctx.database.db, unclaimed({ paymentIntentId: "pi_1" })),
      ).toBe(true);
      for (const code of ["charge_disputed", "refund_disputed_payment", "charge_not_refundable"]) {
        ctx.routes = [refusal(code)];
        expect(
          await ctx
            .provider()
            .refundUnclaimedPayment(ctx.database.db, unclaimed({ paymentIntentId: "pi_1" })),
          code,
        ).toBe(false);
      }
      ctx.routes = [refusal("resource_missing")];
      await expect(
        ctx.provider().refundUnclaimedPayment(ctx.database.db, unclaimed({ paymentIntentId: "pi_1" })),
      ).rejects.toThrow();
    });
  });

  it("treats cancelling a subscription Stripe has cancelled already as done, and still voids its open invoices", async () => {
    ctx.routes = [
      on("GET", "/v1/invoices", {
        object: "list",
        data: [{ id: "in_left_open", object: "invoice", status: "open" }],
        has_more: false,
      }),
      on("POST", "/v1/invoices/in_left_open/void", { id: "in_left_open", object: "invoice", status: "void" }),
    ];
    await expect(ctx.provider().cancelNow(ctx.database.db, "sub_gone", true)).resolves.toBeUndefined();
    // Cancelled before (an earlier try, or Stripe after its retries): what it left open is voided.
    expect(ctx.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "DELETE /v1/subscriptions/sub_gone",
      "GET /v1/invoices",
      "POST /v1/invoices/in_left_open/void",
    ]);
  });

  const product = (id: string, metadata: Record<string, string>, unitAmount: number, currency: string) => ({
    id,
    object: "product",
    metadata,
    default_price: {
      id: `price_${id}`,
      object: "price",
      unit_amount: unitAmount,
      currency,
      tax_behavior: "exclusive",
      ...(metadata.tier
        ? {
            type: "recurring",
            recurring: { interval: "month", interval_count: 1 } as Record<string, unknown> | null,
          }
        : { type: "one_time", recurring: null as Record<string, unknown> | null }),
    } as Record<string, unknown>,
  });
  type CatalogueProduct = ReturnType<typeof product>;
  /** Every tier and pack, as the operator sets them up (see the README). */
  const catalogue = (): CatalogueProduct[] => [
    ...TIERS.map((t) => product(`prod_tier_${t.key}`, { tier: t.key }, t.unitAmount, t.currency)),
    ...TOP_UPS.map((t) => product(`prod_pack_${t.key}`, { top_up: t.key }, t.unitAmount, t.currency)),
  ];

  it("reads the catalogue's ids from the Stripe account and refuses a price that differs from the portal's", async () => {
    const products = [...catalogue(), product("prod_other", {}, 1, "eur")];
    ctx.routes = [
      on("GET", "/v1/products", { object: "list", data: products, has_more: false, url: "/v1/products" }),
    ];
    const ids = await loadIdSetFromStripe(ctx.stripe);
    expect(ids.tiers.B).toEqual({ product: "prod_tier_B", price: "price_prod_tier_B" });
    expect(ids.topUps["1000"]).toEqual({ product: "prod_pack_1000", price: "price_prod_pack_1000" });
    expect(ctx.requests[0]?.query.get("active")).toBe("true");

    const wrong = products.map((p) =>
      p.id === "prod_tier_A" ? { ...p, default_price: { ...p.default_price, unit_amount: 1 } } : p,
    );
    ctx.routes = [
      on("GET", "/v1/products", { object: "list", data: wrong, has_more: false, url: "/v1/products" }),
    ];
    await expect(loadIdSetFromStripe(ctx.stripe)).rejects.toThrow(/prod_tier_A: Stripe price 1 /);
  });

  it.each([
    [
      "a tier billed yearly",
      (p: CatalogueProduct) =>
        p.id === "prod_tier_B"
          ? {
              ...p,
              default_price: { ...p.default_price, recurring: { interval: "year", interval_count: 1 } },
            }
          : p,
      /prod_tier_B: a tier's price must recur every month \(it is recurring every 1 year\)/,
    ],
    [
      "a pack billed monthly",
      (p: CatalogueProduct) =>
        p.id === "prod_pack_500"
          ? {
              ...p,
              default_price: {
                ...p.default_price,
                type: "recurring",
                recurring: { interval: "month", interval_count: 1 },
              },
            }
          : p,
      /prod_pack_500: a top-up pack's price must be one-time/,
    ],
    [
      "a price that includes VAT",
      (p: CatalogueProduct) =>
        p.id === "prod_tier_C"
          ? { ...p, default_price: { ...p.default_price, tax_behavior: "inclusive" } }
          : p,
      /prod_tier_C: the price's tax_behavior must be "exclusive" \(prices are net; it is inclusive\)/,
    ],
  ])("refuses to start with %s, saying why", async (_case, change, message) => {
    ctx.routes = [
      on("GET", "/v1/products", {
        object: "list",
        data: catalogue().map(change),
        has_more: false,
        url: "/v1/products",
      }),
    ];
    await expect(loadIdSetFromStripe(ctx.stripe)).rejects.toThrow(message);
  });

  it("refuses two products that claim the same tier", async () => {
    const products = catalogue();
    const twin = { ...products[0], id: "prod_tier_A_twin" } as CatalogueProduct;
    ctx.routes = [
      on("GET", "/v1/products", {
        object: "list",
        data: [...products, twin],
        has_more: false,
        url: "/v1/products",
      }),
    ];
    await expect(loadIdSetFromStripe(ctx.stripe)).rejects.toThrow(
      /prod_tier_A_twin and prod_tier_A both claim tier=A/,
    );
  });
});
