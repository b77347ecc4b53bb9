// Every request the Stripe adapter makes, checked against Stripe's published API description as the
// installed `stripe` package states it (its parameter types are generated from Stripe's OpenAPI
// file for the SDK's API version): the adapter runs against the stand-in with a recording wrapper
// around the SDK, and each call's actual arguments are type-checked, as literals, against the SDK's
// parameter type for that call. A parameter Stripe would reject (unknown, misspelt, misplaced, of
// the wrong type, or gone in this API version) fails here first.
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TIERS, TOP_UPS } from "../../../contract/catalogue.ts";
import { openTestDatabase, type TestDatabase } from "../../../tests/fixtures/test-db.ts";
import { customerStore } from "../../billing/subscription-store.ts";
import { ManualClock } from "../../clock.ts";
import { organizations, users } from "../../db/schema/index.ts";
import { on, type Route, type StripeStandIn, startStripeStandIn } from "../../testing/stripe-stand-in.ts";
import { TEST_WEBHOOK_SECRET } from "../../testing/test-app.ts";
import { stripeFixture } from "../local/stripe-fixtures.ts";
import { createStripeProvider, loadIdSetFromStripe } from "./provider.ts";

interface Call {
  method: string;
  args: unknown[];
}

/** The SDK with every resource method call recorded (path and arguments) before it is made. */
function recording<T extends object>(target: T, calls: Call[], path: string[] = []): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof property !== "string" || property.startsWith("_")) return value;
      if (typeof value === "function") {
        return (...args: unknown[]) => {
          calls.push({ method: [...path, property].join("."), args: structuredClone(args) });
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      }
      if (value !== null && typeof value === "object") return recording(value, calls, [...path, property]);
      return value;
    },
  });
}

/** The SDK's parameter type of each argument of each call the adapter makes. */
const PARAMETER_TYPES: Record<string, string[]> = {
  "customers.create": ["Stripe.CustomerCreateParams", "Stripe.RequestOptions"],
  "checkout.sessions.create": ["Stripe.Checkout.SessionCreateParams"],
  "subscriptions.retrieve": ["string"],
  "subscriptions.update": ["string", "Stripe.SubscriptionUpdateParams"],
  "subscriptions.cancel": ["string", "Stripe.SubscriptionCancelParams"],
  "subscriptionSchedules.create": ["Stripe.SubscriptionScheduleCreateParams"],
  "subscriptionSchedules.retrieve": ["string"],
  "subscriptionSchedules.update": ["string", "Stripe.SubscriptionScheduleUpdateParams"],
  "subscriptionSchedules.release": ["string"],
  "products.retrieve": ["string"],
  "products.list": ["Stripe.ProductListParams"],
  "billingPortal.sessions.create": ["Stripe.BillingPortal.SessionCreateParams"],
  "invoicePayments.list": ["Stripe.InvoicePaymentListParams"],
  "invoices.list": ["Stripe.InvoiceListParams"],
  "invoices.voidInvoice": ["string", "Stripe.InvoiceVoidInvoiceParams", "Stripe.RequestOptions"],
  "refunds.create": ["Stripe.RefundCreateParams", "Stripe.RequestOptions"],
  "refunds.list": ["Stripe.RefundListParams"],
  // Auto top-up (auto-top-up-calls.ts).
  "checkout.sessions.expire": ["string"],
  "paymentMethods.retrieve": ["string"],
  "paymentMethods.detach": ["string"],
  "invoices.create": ["Stripe.InvoiceCreateParams", "Stripe.RequestOptions"],
  "invoiceItems.create": ["Stripe.InvoiceItemCreateParams", "Stripe.RequestOptions"],
  "invoices.finalizeInvoice": ["string", "Stripe.InvoiceFinalizeInvoiceParams", "Stripe.RequestOptions"],
  "invoices.pay": ["string", "Stripe.InvoicePayParams", "Stripe.RequestOptions"],
  "invoices.retrieve": ["string", "Stripe.InvoiceRetrieveParams"],
};

const HERE = dirname(fileURLToPath(import.meta.url));
const VIRTUAL_FILE = join(HERE, "__adapter_requests__.ts");

/** Type-checks `source` as a file of this folder with the project's compiler options. */
function typeErrors(source: string): string[] {
  const configPath = ts.findConfigFile(HERE, ts.sys.fileExists, "tsconfig.json");
  if (!configPath) throw new Error("no tsconfig.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error("tsconfig.json could not be read");
  const options = { ...parsed.options, noEmit: true, skipLibCheck: true };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, onError) =>
    name === VIRTUAL_FILE
      ? ts.createSourceFile(name, source, language, true)
      : getSourceFile(name, language, onError);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === VIRTUAL_FILE || fileExists(name);
  const program = ts.createProgram([VIRTUAL_FILE], options, host);
  const file = program.getSourceFile(VIRTUAL_FILE);
  return ts.getPreEmitDiagnostics(program, file).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
}

describe("every request of the Stripe adapter against the SDK's published parameter types", () => {
  let standIn: StripeStandIn;
  let database: TestDatabase;
  const calls: Call[] = [];
  let routes: Route[] = [];

  beforeAll(async () => {
    standIn = await startStripeStandIn(() => routes);
    database = await openTestDatabase("pglite");
  });
  afterAll(async () => {
    await standIn.close();
    await database?.close();
  });

  it("asks only what Stripe's API (version of the installed SDK) accepts", { timeout: 120_000 }, async () => {
    const stripe = recording(standIn.stripe, calls);
    const provider = createStripeProvider({
      stripe,
      clock: new ManualClock("2030-01-15T10:00:00.000Z"),
      webhookSecret: TEST_WEBHOOK_SECRET,
      customers: customerStore,
    });
    const userId = randomUUID();
    await database.db.insert(users).values({
      id: userId,
      username: "ann",
      email: "ann@example.com",
      passwordHash: "x",
      emailVerified: true,
    });
    await database.db.insert(organizations).values({ id: userId, personal: true }).onConflictDoNothing();
    const subscription = (schedule: string | null) => ({
      id: "sub_1",
      object: "subscription",
      status: "active",
      cancel_at_period_end: false,
      schedule,
      metadata: { user_id: userId, product_id: "prod_a" },
      items: { data: [{ price: { id: "price_a", product: "prod_a" } }] },
    });
    const price = (type: "recurring" | "one_time", unitAmount: number) => ({
      id: `price_${randomUUID()}`,
      object: "price",
      unit_amount: unitAmount,
      currency: "eur",
      type,
      tax_behavior: "exclusive",
      recurring: type === "recurring" ? { interval: "month", interval_count: 1 } : null,
    });
    routes = [
      on("POST", "/v1/customers", { id: "cus_1", object: "customer" }),
      (req) => {
        if (req.method !== "POST" || req.path !== "/v1/checkout/sessions") return undefined;
        const id = `cs_test_${randomUUID()}`;
        return {
          body: {
            id,
            object: "checkout.session",
            url: `https://checkout.stripe.com/c/pay/${id}`,
            expires_at: 1_900_000_000,
          },
        };
      },
      on("GET", "/v1/subscriptions/sub_1", subscription(null)),
      on("GET", "/v1/subscriptions/sub_2", { ...subscription("sub_sched_2"), id: "sub_2" }),
      on("POST", /^\/v1\/subscriptions\/sub_\d$/, subscription(null)),
      on("DELETE", "/v1/subscriptions/sub_1", { ...subscription(null), status: "canceled" }),
      on("GET", "/v1/products/prod_c", { id: "prod_c", object: "product", default_price: "price_c" }),
      on("POST", "/v1/subscription_schedules", {
        id: "sub_sched_1",
        object: "subscription_schedule",
        current_phase: { start_date: 1_000, end_date: 2_000 },
        phases: [],
      }),
      on("GET", "/v1/subscription_schedules/sub_sched_2", {
        id: "sub_sched_2",
        object: "subscription_schedule",
        current_phase: { start_date: 1_000, end_date: 2_000 },
        phases: [],
      }),
      on("POST", /^\/v1\/subscription_schedules\/sub_sched_\d(\/release)?$/, {
        id: "sub_sched_1",
        object: "subscription_schedule",
      }),
      on("GET", "/v1/invoice_payments", {
        object: "list",
        has_more: false,
        url: "/v1/invoice_payments",
        data: [{ id: "inpay_1", object: "invoice_payment", invoice: "in_1" }],
      }),
      on("GET", "/v1/invoices", {
        object: "list",
        has_more: false,
        url: "/v1/invoices",
        data: [{ id: "in_open", object: "invoice", status: "open" }],
      }),
      on("POST", "/v1/invoices/in_open/void", { id: "in_open", object: "invoice", status: "void" }),
      on("POST", /^\/v1\/checkout\/sessions\/cs_test_[^/]+\/expire$/, {
        id: "cs_test_1",
        object: "checkout.session",
        status: "expired",
      }),
      on("GET", "/v1/payment_methods/pm_1", { ...stripeFixture("payment_method"), id: "pm_1" }),
      on("POST", "/v1/payment_methods/pm_1/detach", { ...stripeFixture("payment_method"), id: "pm_1" }),
      on("POST", "/v1/invoices", { ...stripeFixture("invoice"), id: "in_at" }),
      on("POST", "/v1/invoiceitems", {
        ...stripeFixture("invoiceitem"),
        invoice: "in_at",
        amount: 1000,
        currency: "eur",
      }),
      on("POST", "/v1/invoices/in_at/finalize", { ...stripeFixture("invoice"), id: "in_at", status: "open" }),
      on("POST", "/v1/invoices/in_at/pay", { ...stripeFixture("invoice"), id: "in_at", status: "paid" }),
      on("GET", "/v1/invoices/in_at", { ...stripeFixture("invoice"), id: "in_at", status: "paid" }),
      on("POST", "/v1/invoices/in_at/void", { ...stripeFixture("invoice"), id: "in_at", status: "void" }),
      on("POST", "/v1/refunds", { id: "re_1", object: "refund", status: "succeeded" }),
      on("GET", "/v1/refunds", {
        object: "list",
        has_more: false,
        url: "/v1/refunds",
        data: [{ id: "re_1", object: "refund", metadata: { org_id: "org_1", reason: "A reason" } }],
      }),
      on("POST", "/v1/billing_portal/sessions", {
        id: "bps_1",
        object: "billing_portal.session",
        url: "https://billing.stripe.com/p/session/test_1",
      }),
      on("GET", "/v1/products", {
        object: "list",
        has_more: false,
        url: "/v1/products",
        data: [
          ...TIERS.map((t) => ({
            id: `prod_${t.key}`,
            object: "product",
            metadata: { tier: t.key },
            default_price: price("recurring", t.unitAmount),
          })),
          ...TOP_UPS.map((t) => ({
            id: `prod_${t.key}`,
            object: "product",
            metadata: { top_up: t.key },
            default_price: price("one_time", t.unitAmount),
          })),
        ],
      }),
    ];

    // Every call of the adapter, in every variant.
    const checkout = {
      userId,
      openedBy: userId,
      email: "ann@example.com",
      productName: "Tier B",
      amount: 34900,
      currency: "eur",
      successUrl: "https://portal.test/payment/success",
      cancelUrl: "https://portal.test/payment/failed",
    };
    await provider.createCheckoutSession(database.db, {
      ...checkout,
      mode: "subscription",
      productId: "prod_B",
      priceId: "price_b",
    });
    await provider.createCheckoutSession(database.db, {
      ...checkout,
      mode: "payment",
      productId: "prod_500",
      priceId: "price_500",
    });
    await provider.setCancelAtPeriodEnd(database.db, "sub_1", true);
    await provider.setCancelAtPeriodEnd(database.db, "sub_2", true);
    await provider.scheduleChange(database.db, "sub_1", "prod_c");
    await provider.scheduleChange(database.db, "sub_2", "prod_c");
    await provider.scheduleChange(database.db, "sub_2", null);
    await provider.cancelNow(database.db, "sub_1", false);
    const unclaimed = {
      orgId: userId,
      customerId: "cus_1",
      total: 9401,
      currency: "eur",
      reason: "Paid for an organisation that was deleted",
    };
    await provider.refundUnclaimedPayment(database.db, {
      ...unclaimed,
      paymentIntentId: "pi_1",
      providerInvoiceId: null,
    });
    await provider.refundUnclaimedPayment(database.db, {
      ...unclaimed,
      paymentIntentId: null,
      providerInvoiceId: "in_1",
    });
    expect(await provider.unclaimedRefundReason(database.db, "ch_1")).toBe("A reason");
    await provider.createPortalSession(database.db, {
      userId,
      openedBy: userId,
      customerId: "cus_1",
      returnUrl: "https://portal.test/profile/billing",
    });
    expect(await provider.invoiceOfPayment(database.db, "pi_1")).toBe("in_1");
    await provider.retrieveSubscription(database.db, "sub_1");
    await loadIdSetFromStripe(stripe);
    // Auto top-up: the setup page (expired again), the card, and an attempt's invoice.
    await provider.createCardSetupSession(database.db, {
      orgId: userId,
      openedBy: userId,
      email: "ann@example.com",
      currency: "eur",
      successUrl: "https://portal.test/profile/billing?card=saved",
      cancelUrl: "https://portal.test/profile/billing?card=cancelled",
      consentText: "By saving this card you allow Example GmbH to charge it.",
    });
    await provider.expireOpenCheckouts(database.db, userId, userId);
    await provider.retrieveCard(database.db, "pm_1");
    await provider.detachCard(database.db, "pm_1");
    const charge = {
      attemptId: randomUUID(),
      orgId: userId,
      customerId: "cus_1",
      paymentMethodId: "pm_1",
      productId: "prod_500",
      priceId: "price_500",
      description: "Auto top-up: 500 credits",
      amount: 1000,
      currency: "eur",
    };
    await provider.createAutoTopUpInvoice(database.db, charge);
    expect(await provider.payAutoTopUpInvoice(database.db, charge, "in_at")).toMatchObject({
      status: "paid",
    });
    await provider.readAutoTopUpInvoice(database.db, "in_at");
    await provider.autoTopUpAttemptOfInvoice(database.db, "in_at");
    await provider.voidAutoTopUpInvoice(database.db, "in_at", charge.attemptId);

    const made = new Set(calls.map((c) => c.method));
    for (const method of Object.keys(PARAMETER_TYPES))
      expect(made, `the test exercises ${method}`).toContain(method);

    // Each argument as a literal of its parameter type; and one known-bad literal as a control.
    const lines = ['import type Stripe from "stripe";'];
    calls.forEach((call, i) => {
      const types = PARAMETER_TYPES[call.method];
      expect(types, `a parameter type is declared for ${call.method}`).toBeDefined();
      call.args.forEach((arg, j) => {
        if (arg === undefined) return;
        lines.push(`export const call${i}_${j}: ${types?.[j] ?? "never"} = ${JSON.stringify(arg)};`);
      });
    });
    const CONTROL =
      'export const control: Stripe.Checkout.SessionCreateParams = { payment_method_types: ["card"] };';
    lines.push(CONTROL);
    const errors = typeErrors(lines.join("\n"));
    const controlLine = `line ${lines.length}:`;
    // The control proves the check bites: this API version has no payment_method_types on create.
    expect(errors.filter((e) => e.startsWith(controlLine))).not.toEqual([]);
    expect(errors.filter((e) => !e.startsWith(controlLine))).toEqual([]);
  });
});
