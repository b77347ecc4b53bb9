// A refund's charge.refunded can reach us before the payment it refunds is on record: billing
// refunds a second subscription's payment while the invoice's event is still being written
// (subscription-changes.ts), and Stripe answers the refund with its event at once. The record's
// transaction holds the organisation's lock; the refund's event waits for it and then finds the
// payment, instead of logging "a payment we do not know" and dropping the refund from the invoice.
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { lockUser } from "../../billing/ledger-store.ts";
import { SECOND_SUBSCRIPTION_REFUND_REASON } from "../../billing/subscription-changes.ts";
import { findCustomerId } from "../../billing/subscription-store.ts";
import { creditNotes, invoices, webhookEvents } from "../../db/schema/index.ts";
import { chargeRefundedEvent } from "../../payments/local/event-builders.ts";
import { seconds } from "../../payments/local/stripe-objects.ts";
import { newStripeId } from "../../payments/stripe/format.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { sendWebhook, subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NOT_ON_RECORD } from "../webhooks/routes.ts";

describe.each(TEST_DATABASES)(
  "a refund's event that arrives before its payment's record commits (%s)",
  (kind) => {
    const ctx = useTestApp(kind);
    afterEach(() => {
      vi.restoreAllMocks();
    });

    /** Ann's paid plan, its invoice as if not written yet: what is committed does not name the payment. */
    async function paidPlanNotOnRecord() {
      const db = ctx.t.deps.db;
      const ann = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, ann.accessToken, "A");
      const [paid] = await db.select().from(invoices).where(eq(invoices.userId, ann.id));
      if (!paid?.providerInvoiceId) throw new Error("the plan left no invoice");
      const customerId = await findCustomerId(db, ann.id);
      if (!customerId) throw new Error("the plan left no provider customer");
      await db
        .update(invoices)
        .set({ paymentReference: null, providerInvoiceId: "in_not_this_one" })
        .where(eq(invoices.id, paid.id));
      return { ann, paid: { ...paid, providerInvoiceId: paid.providerInvoiceId }, customerId };
    }

    // Before Stripe API 2025-03-31 a charge names its invoice; after it, only its payment intent,
    // whose invoice the provider is asked for (here a spy answers as Stripe would).
    it.each([
      ["its invoice", "invoice"],
      ["only its payment intent", "payment intent"],
    ] as const)(
      "waits for the record's transaction when the event names %s, then applies the refund",
      async (_, names) => {
        const t = ctx.t;
        const db = t.deps.db;
        const { ann, paid, customerId } = await paidPlanNotOnRecord();

        const paymentIntentId = newStripeId("pi");
        const invoiceOfPayment = vi
          .spyOn(t.deps.payments.provider, "invoiceOfPayment")
          .mockImplementation(async (_db, pi) => (pi === paymentIntentId ? paid.providerInvoiceId : null));
        const refunded = chargeRefundedEvent(
          { eventId: newStripeId("evt"), created: seconds(t.clock.now()) },
          {
            id: newStripeId("ch"),
            paymentIntentId: names === "invoice" ? null : paymentIntentId,
            invoiceId: names === "invoice" ? paid.providerInvoiceId : null,
            customerId,
            amount: paid.total,
            amountRefunded: paid.total,
            currency: paid.currency,
            created: seconds(t.clock.now()),
          },
        );
        let answer: Promise<Response> | undefined;
        await db.transaction(async (tx) => {
          // The record's transaction: the organisation's lock, the payment written, and, before the
          // commit, the provider's refund event arriving.
          await lockUser(tx, ann.id);
          await tx
            .update(invoices)
            .set({ paymentReference: paid.paymentReference, providerInvoiceId: paid.providerInvoiceId })
            .where(eq(invoices.id, paid.id));
          answer = Promise.resolve(sendWebhook(t, refunded));
          await new Promise((resolve) => setTimeout(resolve, 300));
        });
        expect((await answer)?.status).toBe(200);
        if (names === "payment intent")
          expect(invoiceOfPayment).toHaveBeenCalledWith(expect.anything(), paymentIntentId);

        const [after] = await db.select().from(invoices).where(eq(invoices.id, paid.id));
        expect(after).toMatchObject({ status: "refunded", refunded: paid.total });
        expect(await db.select().from(creditNotes).where(eq(creditNotes.invoiceId, paid.id))).toHaveLength(1);
      },
    );

    // The record's transaction rolled back after the provider made the refund (a crash, a lost
    // connection): the payment is recorded only when the provider delivers its event again.
    it("answers 503 to a refund of its customer's payment not on record, and applies it when sent again", async () => {
      const t = ctx.t;
      const db = t.deps.db;
      const { paid, customerId } = await paidPlanNotOnRecord();
      const refunded = chargeRefundedEvent(
        { eventId: newStripeId("evt"), created: seconds(t.clock.now()) },
        {
          id: newStripeId("ch"),
          paymentIntentId: null,
          invoiceId: paid.providerInvoiceId,
          customerId,
          amount: paid.total,
          amountRefunded: paid.total,
          currency: paid.currency,
          created: seconds(t.clock.now()),
        },
      );

      // The provider's word that billing asked for this refund, for a second subscription (at
      // Stripe, the refund's metadata; the stand-in's refunds are never ahead of their record).
      const reasonAsked = vi
        .spyOn(t.deps.payments.provider, "unclaimedRefundReason")
        .mockImplementation(async (_db, charge) =>
          charge === refunded.data.object.id ? SECOND_SUBSCRIPTION_REFUND_REASON : null,
        );
      const first = await sendWebhook(t, refunded);
      expect(reasonAsked).toHaveBeenCalledWith(expect.anything(), refunded.data.object.id);
      expect(first.status).toBe(503);
      expect(await first.json()).toEqual({ detail: NOT_ON_RECORD });
      const kept = await db.select().from(webhookEvents).where(eq(webhookEvents.eventId, refunded.id));
      expect(kept).toEqual([]);
      const [untouched] = await db.select().from(invoices).where(eq(invoices.id, paid.id));
      expect(untouched).toMatchObject({ status: "paid", refunded: 0 });

      // The payment's event delivered again has written its record.
      await db
        .update(invoices)
        .set({ paymentReference: paid.paymentReference, providerInvoiceId: paid.providerInvoiceId })
        .where(eq(invoices.id, paid.id));
      const again = await sendWebhook(t, refunded);
      expect(again.status).toBe(200);
      const [after] = await db.select().from(invoices).where(eq(invoices.id, paid.id));
      expect(after).toMatchObject({ status: "refunded", refunded: paid.total });
      expect(await db.select().from(creditNotes).where(eq(creditNotes.invoiceId, paid.id))).toHaveLength(1);
    });

    // A payment taken outside the portal (a Dashboard invoice, a payment link), or a refund an
    // operator made: no record of it is on its way, so waiting for one would only repeat the alarm.
    it.each([
      ["for another reason", "An organisation deleted meanwhile"],
      ["not at all", null],
    ])(
      "answers 200 to a refund of its customer's payment not on record that billing asked for %s",
      async (_, reason) => {
        const t = ctx.t;
        const db = t.deps.db;
        const { customerId } = await paidPlanNotOnRecord();
        vi.spyOn(t.deps.payments.provider, "unclaimedRefundReason").mockResolvedValue(reason);
        const refunded = chargeRefundedEvent(
          { eventId: newStripeId("evt"), created: seconds(t.clock.now()) },
          {
            id: newStripeId("ch"),
            paymentIntentId: newStripeId("pi"),
            invoiceId: null,
            customerId,
            amount: 5000,
            amountRefunded: 5000,
            currency: "eur",
            created: seconds(t.clock.now()),
          },
        );
        expect((await sendWebhook(t, refunded)).status).toBe(200);
        const kept = await db.select().from(webhookEvents).where(eq(webhookEvents.eventId, refunded.id));
        expect(kept).toEqual([]);
      },
    );

    it("answers 200 to a refund of a customer nobody knows: nothing to wait for", async () => {
      const t = ctx.t;
      const refunded = chargeRefundedEvent(
        { eventId: newStripeId("evt"), created: seconds(t.clock.now()) },
        {
          id: newStripeId("ch"),
          paymentIntentId: newStripeId("pi"),
          invoiceId: null,
          customerId: "cus_nobody",
          amount: 1000,
          amountRefunded: 1000,
          currency: "eur",
          created: seconds(t.clock.now()),
        },
      );
      expect((await sendWebhook(t, refunded)).status).toBe(200);
    });
  },
);
