// Auto top-up's charges at the local checkout (AUTO-TOP-UP.md): the invoice made once per attempt
// and taxed from the billing details on file, every saved test card's off-session outcome, the
// events Stripe would send for each (read back as billing reads them), reads, voids, and a card
// detached before it is charged.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import type { AutoTopUpCharge } from "../../billing/ports/payment-provider.ts";
import { localInvoices } from "../../db/schema/index.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import {
  billingEventOf,
  CARD,
  chargeFor,
  giveBillingDetails,
  queuedEvents,
  saveCard,
} from "../../testing/local-auto-top-up.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";

const INVOICE_EVENTS = [
  "invoice.paid",
  "invoice.payment_failed",
  "invoice.payment_action_required",
  "invoice.voided",
];

describe.each(TEST_DATABASES)("local auto top-up invoices (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const provider = () => ctx.t.local.provider;
  const db = () => ctx.t.deps.db;

  /** A German consumer's organisation with `card` saved, and a charge of the 500 pack to it. */
  async function orgWithCard(card: string) {
    const ann = await verifiedUser(ctx.t, "ann");
    const pm = await saveCard(ctx.t, ann.id, card);
    await giveBillingDetails(db(), ann.id, { name: "Erika Mustermann", country: "DE" });
    return { orgId: ann.id, pm, charge: await chargeFor(ctx.t, ann.id, pm) };
  }

  async function invoiceRow(id: string) {
    const [row] = await db().select().from(localInvoices).where(eq(localInvoices.id, id));
    if (!row) throw new Error(`no invoice ${id}`);
    return row;
  }

  const invoiceEvents = async () => (await queuedEvents(db())).filter((e) => INVOICE_EVENTS.includes(e.type));

  async function createAndPay(charge: AutoTopUpCharge) {
    const { invoiceId } = await provider().createAutoTopUpInvoice(db(), charge);
    return { invoiceId, answer: await provider().payAutoTopUpInvoice(db(), charge, invoiceId) };
  }

  it("makes one open invoice per attempt, with 19 % VAT for a German consumer", async () => {
    const { orgId, pm, charge } = await orgWithCard(CARD.pays);
    const first = await provider().createAutoTopUpInvoice(db(), charge);
    const again = await provider().createAutoTopUpInvoice(db(), charge);
    expect(again).toEqual(first);
    expect(first.invoiceId).toMatch(/^in_/);
    expect(await db().select().from(localInvoices)).toHaveLength(1);
    const row = await invoiceRow(first.invoiceId);
    expect(row).toMatchObject({
      customerId: charge.customerId,
      orgId,
      attemptId: charge.attemptId,
      paymentMethodId: pm,
      productId: charge.productId,
      description: "Auto top-up: 500 credits",
      currency: charge.currency,
      net: charge.amount,
      tax: Math.round(charge.amount * 0.19),
      total: charge.amount + Math.round(charge.amount * 0.19),
      taxTreatment: "domestic",
      taxRateBasisPoints: 1900,
      buyerName: "Erika Mustermann",
      buyerCountry: "DE",
      buyerVatId: null,
      status: "open",
      lastErrorCode: null,
      paidAt: null,
    });
    expect(row.paymentIntentId).toMatch(/^pi_/);
    // Made, not yet charged: nothing to tell billing.
    expect(await invoiceEvents()).toEqual([]);
    expect(await provider().readAutoTopUpInvoice(db(), first.invoiceId)).toEqual({
      status: "open",
      invoiceId: first.invoiceId,
    });
  });

  it.each([
    { status: "verified" as const, treatment: "reverse_charge", rate: 0, taxed: false },
    { status: "pending" as const, treatment: "eu_consumer", rate: 2100, taxed: true },
    { status: "unverified" as const, treatment: "eu_consumer", rate: 2100, taxed: true },
  ])("a VAT ID that is $status gives $treatment", async ({ status, treatment, rate, taxed }) => {
    const { orgId, charge } = await orgWithCard(CARD.pays);
    await giveBillingDetails(db(), orgId, {
      name: "Voorbeeld BV",
      country: "NL",
      vatId: "NL000099998B57",
      vatIdStatus: status,
    });
    const { invoiceId } = await provider().createAutoTopUpInvoice(db(), charge);
    expect(await invoiceRow(invoiceId)).toMatchObject({
      taxTreatment: treatment,
      taxRateBasisPoints: rate,
      tax: taxed ? Math.round((charge.amount * rate) / 10_000) : 0,
      buyerVatId: "NL000099998B57",
      buyerCountry: "NL",
    });
  });

  it("charges the seller's VAT when no billing details are on file", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const pm = await saveCard(ctx.t, ann.id, CARD.pays);
    const { invoiceId } = await provider().createAutoTopUpInvoice(db(), await chargeFor(ctx.t, ann.id, pm));
    expect(await invoiceRow(invoiceId)).toMatchObject({
      taxTreatment: "domestic",
      taxRateBasisPoints: 1900,
      buyerCountry: null,
    });
  });

  it.each([
    { card: CARD.pays, name: "4242" },
    { card: CARD.authThenPays, name: "3155" },
  ])("pays off-session with $name, and sends invoice.paid as Stripe does", async ({ card }) => {
    const { orgId, charge } = await orgWithCard(card);
    ctx.t.clock.advance(5_000);
    const { invoiceId, answer } = await createAndPay(charge);
    const row = await invoiceRow(invoiceId);
    // Whole seconds, as Stripe's objects say it (the answer and the event agree).
    const paidAt = new Date(Math.floor(ctx.t.clock.now().getTime() / 1000) * 1000);
    const payment = {
      net: row.net,
      tax: row.tax,
      total: row.total,
      currency: row.currency,
      reverseCharge: false,
      buyer: { name: "Erika Mustermann", email: row.buyerEmail, country: "DE", vatId: null },
    };
    expect(answer).toEqual({
      status: "paid",
      invoiceId,
      paymentIntentId: row.paymentIntentId,
      paidAt,
      payment,
      document: { invoiceId, number: null, hostedInvoiceUrl: null, invoicePdfUrl: null },
    });
    expect(row).toMatchObject({ status: "paid", paidAt: ctx.t.clock.now() });

    const [event, ...more] = await invoiceEvents();
    expect(more).toEqual([]);
    if (!event) throw new Error("no event");
    expect(event.type).toBe("invoice.paid");
    expect(event.data.object).toMatchObject({
      id: invoiceId,
      object: "invoice",
      status: "paid",
      billing_reason: "manual",
      collection_method: "charge_automatically",
      customer: charge.customerId,
      default_payment_method: charge.paymentMethodId,
      metadata: { auto_top_up_attempt_id: charge.attemptId, org_id: orgId },
      parent: null,
      subtotal: row.net,
      total: row.total,
      amount_paid: row.total,
      amount_remaining: 0,
      customer_name: "Erika Mustermann",
      customer_address: { country: "DE" },
      customer_tax_exempt: "none",
      total_taxes: [{ amount: row.tax, taxability_reason: "standard_rated", taxable_amount: row.net }],
      hosted_invoice_url: null,
      invoice_pdf: null,
      number: null,
      status_transitions: { paid_at: Math.floor(paidAt.getTime() / 1000) },
      lines: {
        data: [
          {
            amount: row.net,
            description: "Auto top-up: 500 credits",
            pricing: { price_details: { price: charge.priceId, product: charge.productId } },
            parent: { type: "invoice_item_details" },
          },
        ],
      },
    });
    // As billing reads it: the same facts as the answer (except the payment intent, which
    // Stripe's invoice events do not carry).
    expect(billingEventOf(event)).toMatchObject({
      kind: "auto_top_up_paid",
      attemptId: charge.attemptId,
      customerId: charge.customerId,
      invoiceId,
      paymentIntentId: null,
      paidAt,
      payment,
      document: { invoiceId, number: null, hostedInvoiceUrl: null, invoicePdfUrl: null },
    });
  });

  it("asks for authentication on every charge with 3184, at the invoice's own page", async () => {
    const { charge } = await orgWithCard(CARD.alwaysAuth);
    const { invoiceId, answer } = await createAndPay(charge);
    const payUrl = `${TEST_PORTAL_URL}/_checkout/invoice/${invoiceId}`;
    expect(answer).toEqual({ status: "requires_action", invoiceId, payUrl });
    expect(await provider().payAutoTopUpInvoice(db(), charge, invoiceId)).toEqual(answer);
    expect(await provider().readAutoTopUpInvoice(db(), invoiceId)).toEqual(answer);
    expect((await invoiceRow(invoiceId)).status).toBe("open");

    const events = await invoiceEvents();
    expect(events.map((e) => e.type)).toEqual([
      "invoice.payment_action_required",
      "invoice.payment_action_required",
    ]);
    const [event] = events;
    if (!event) throw new Error("no event");
    expect(event.data.object).toMatchObject({
      id: invoiceId,
      status: "open",
      amount_paid: 0,
      hosted_invoice_url: payUrl,
      metadata: { auto_top_up_attempt_id: charge.attemptId },
    });
    expect(billingEventOf(event)).toMatchObject({
      kind: "auto_top_up_failed",
      attemptId: charge.attemptId,
      invoiceId,
      actionRequired: true,
      payUrl,
    });
  });

  it.each([
    { card: CARD.insufficientFunds, code: "insufficient_funds", errorCode: "card_declined" },
    { card: CARD.declinesCharges, code: "card_declined", errorCode: "card_declined" },
  ])("declines $card off-session with $code", async ({ card, code, errorCode }) => {
    const { charge } = await orgWithCard(card);
    const { invoiceId, answer } = await createAndPay(charge);
    expect(answer).toEqual({ status: "declined", invoiceId, code });
    expect(await provider().readAutoTopUpInvoice(db(), invoiceId)).toEqual(answer);
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: "open", lastErrorCode: errorCode });

    const [event, ...more] = await invoiceEvents();
    expect(more).toEqual([]);
    if (!event) throw new Error("no event");
    expect(event.type).toBe("invoice.payment_failed");
    expect(event.data.object).toMatchObject({
      id: invoiceId,
      status: "open",
      attempted: true,
      amount_paid: 0,
      next_payment_attempt: null,
      auto_advance: false,
      hosted_invoice_url: null,
    });
    expect(billingEventOf(event)).toMatchObject({
      kind: "auto_top_up_failed",
      attemptId: charge.attemptId,
      invoiceId,
      actionRequired: false,
      payUrl: null,
    });
  });

  it("names the invoice a payment intent paid, for refunds and disputes", async () => {
    const { charge } = await orgWithCard(CARD.pays);
    const { invoiceId } = await createAndPay(charge);
    const { paymentIntentId } = await invoiceRow(invoiceId);
    expect(await provider().invoiceOfPayment(db(), paymentIntentId)).toBe(invoiceId);
    expect(await provider().invoiceOfPayment(db(), "pi_of_a_checkout")).toBeNull();
  });

  it("answers a paid invoice paid again without charging or telling billing twice", async () => {
    const { charge } = await orgWithCard(CARD.pays);
    const { invoiceId, answer } = await createAndPay(charge);
    ctx.t.clock.advance(60_000);
    expect(await provider().payAutoTopUpInvoice(db(), charge, invoiceId)).toEqual(answer);
    expect(await provider().readAutoTopUpInvoice(db(), invoiceId)).toEqual(answer);
    expect((await invoiceEvents()).map((e) => e.type)).toEqual(["invoice.paid"]);
  });

  it("refuses to pay an invoice for another attempt", async () => {
    const { charge } = await orgWithCard(CARD.pays);
    const { invoiceId } = await provider().createAutoTopUpInvoice(db(), charge);
    const other = { ...charge, attemptId: crypto.randomUUID() };
    await expect(provider().payAutoTopUpInvoice(db(), other, invoiceId)).rejects.toThrow(/not attempt/);
    expect((await invoiceRow(invoiceId)).status).toBe("open");
  });

  it("voids an open invoice once, sending invoice.voided; a void one answers void and is never charged", async () => {
    const { charge } = await orgWithCard(CARD.pays);
    const { invoiceId } = await provider().createAutoTopUpInvoice(db(), charge);
    await provider().voidAutoTopUpInvoice(db(), invoiceId, charge.attemptId);
    await provider().voidAutoTopUpInvoice(db(), invoiceId, charge.attemptId);
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: "void", voidedAt: ctx.t.clock.now() });
    const void_ = { status: "void", invoiceId };
    expect(await provider().payAutoTopUpInvoice(db(), charge, invoiceId)).toEqual(void_);
    expect(await provider().readAutoTopUpInvoice(db(), invoiceId)).toEqual(void_);
    const events = await invoiceEvents();
    expect(events.map((e) => e.type)).toEqual(["invoice.voided"]);
    expect(events[0]?.data.object).toMatchObject({
      id: invoiceId,
      status: "void",
      status_transitions: { voided_at: Math.floor(ctx.t.clock.now().getTime() / 1000) },
    });
  });

  it("leaves a paid invoice paid when asked to void it", async () => {
    const { charge } = await orgWithCard(CARD.pays);
    const { invoiceId, answer } = await createAndPay(charge);
    await provider().voidAutoTopUpInvoice(db(), invoiceId, charge.attemptId);
    expect(await provider().readAutoTopUpInvoice(db(), invoiceId)).toEqual(answer);
    expect((await invoiceEvents()).map((e) => e.type)).toEqual(["invoice.paid"]);
  });

  it("voids an invoice whose payment waits for authentication", async () => {
    const { charge } = await orgWithCard(CARD.alwaysAuth);
    const { invoiceId } = await createAndPay(charge);
    await provider().voidAutoTopUpInvoice(db(), invoiceId, charge.attemptId);
    expect(await provider().readAutoTopUpInvoice(db(), invoiceId)).toEqual({ status: "void", invoiceId });
  });

  it("declines a detached card without an attempt Stripe would send an event for", async () => {
    const { pm, charge } = await orgWithCard(CARD.pays);
    await provider().detachCard(db(), pm);
    const { invoiceId, answer } = await createAndPay(charge);
    expect(answer).toEqual({ status: "declined", invoiceId, code: "payment_method_not_available" });
    expect(await provider().readAutoTopUpInvoice(db(), invoiceId)).toEqual(answer);
    expect(await invoiceEvents()).toEqual([]);
  });
});

// Concurrency needs connections that really run side by side: PostgreSQL only (.ci/run has it).
describe.skipIf(!TEST_DATABASES.includes("postgres"))(
  `local auto top-up invoices racing on PostgreSQL (TEST_DATABASE_URL ${process.env.TEST_DATABASE_URL ? "set" : "unset: skipped"})`,
  () => {
    const ctx = useTestApp("postgres");

    it("makes one invoice and charges it once when two instances do both at the same time", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const pm = await saveCard(ctx.t, ann.id, CARD.pays);
      const charge = await chargeFor(ctx.t, ann.id, pm);
      const provider = ctx.t.local.provider;
      const db = ctx.t.deps.db;
      const made = await Promise.all([1, 2, 3].map(() => provider.createAutoTopUpInvoice(db, charge)));
      expect(new Set(made.map((m) => m.invoiceId)).size).toBe(1);
      expect(await db.select().from(localInvoices)).toHaveLength(1);
      const invoiceId = made[0]?.invoiceId ?? "";
      const answers = await Promise.all(
        [1, 2, 3].map(() => provider.payAutoTopUpInvoice(db, charge, invoiceId)),
      );
      expect(answers.map((a) => a.status)).toEqual(["paid", "paid", "paid"]);
      expect(await queuedEvents(db, "invoice.paid")).toHaveLength(1);
    });
  },
);
