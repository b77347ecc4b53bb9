// Auto top-up's provider events arriving late, through the webhook (the local checkout sends them as
// Stripe does, from webhook_deliveries): a card's save event after the card was removed at the
// provider, and a refund or dispute of an auto top-up before its payment is on record.
import { and, eq, inArray, isNull } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import {
  auditLog,
  autoTopUpAttempts,
  billingCustomers,
  creditAdjustments,
  invoices,
  localInvoices,
  localPaymentMethods,
  savedCards,
  webhookDeliveries,
  webhookEvents,
} from "../../db/schema/index.ts";
import { chargeRefundedEvent, disputeEvent } from "../../payments/local/event-builders.ts";
import { seconds } from "../../payments/local/stripe-objects.ts";
import { newStripeId } from "../../payments/stripe/format.ts";
import { staffMember } from "../../testing/admin.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import {
  AUTO_TOP_UP_CARDS,
  openCardSetup,
  saveCard,
  settingsOf,
  settleAll,
  spendAsStaff,
  turnOn,
} from "../../testing/auto-top-up.ts";
import { sendWebhook, subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS, type TestApp } from "../../testing/test-app.ts";
import { NOT_ON_RECORD } from "./routes.ts";

const HOUR_MS = 3_600_000;

/** Holds back the queued deliveries of `types` (their first delivery failed, say) until `release`. */
async function holdQueued(t: TestApp, types: string[]) {
  const held = await t.deps.db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date(t.clock.now().getTime() + HOUR_MS) })
    .where(and(isNull(webhookDeliveries.deliveredAt), inArray(webhookDeliveries.type, types)))
    .returning({ id: webhookDeliveries.id, type: webhookDeliveries.type });
  expect([...new Set(held.map((d) => d.type))].sort()).toEqual([...types].sort());
  return async function release() {
    for (const { id } of held)
      await t.deps.db
        .update(webhookDeliveries)
        .set({ nextAttemptAt: t.clock.now() })
        .where(eq(webhookDeliveries.id, id));
  };
}

/** What the webhook answered each delivery of `type`. */
async function answersTo(t: TestApp, type: string) {
  const rows = await t.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.type, type));
  return rows.map((r) => ({ delivered: r.deliveredAt !== null, status: r.lastStatus }));
}

describe.each(TEST_DATABASES)("auto top-up's events arriving late (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  // The card removed in Stripe's Billing Portal while the save events wait: payment_method.detached
  // is processed first and finds no saved card; saving it after would show a card every charge is
  // refused on.
  it("a card removed at the provider before its save event arrives is not saved", async () => {
    const t = ctx.t;
    const ann = await verifiedUser(t, "ann");
    const setup = await openCardSetup(t, ann.id, ann.id);
    expect(await t.local.provider.submitCard(setup.id, AUTO_TOP_UP_CARDS.pays, true)).toMatchObject({
      ok: true,
    });
    const release = await holdQueued(t, ["checkout.session.completed", "setup_intent.succeeded"]);
    const [pm] = await t.deps.db
      .select()
      .from(localPaymentMethods)
      .where(eq(localPaymentMethods.orgId, ann.id));
    await t.local.provider.detachCard(t.deps.db, pm?.id ?? "");
    await settleAll(t);
    expect(await answersTo(t, "payment_method.detached")).toEqual([{ delivered: true, status: 200 }]);

    await release();
    await settleAll(t);
    expect(await answersTo(t, "setup_intent.succeeded")).toEqual([{ delivered: true, status: 200 }]);
    expect(await answersTo(t, "checkout.session.completed")).toEqual([{ delivered: true, status: 200 }]);
    expect(await t.deps.db.select().from(savedCards).where(eq(savedCards.orgId, ann.id))).toEqual([]);
    const saved = await t.deps.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subjectOrgId, ann.id), eq(auditLog.action, "auto_top_up.card_saved")));
    expect(saved).toEqual([]);
    expect(t.logs.some((l) => l.includes("no longer attached to the organisation's customer"))).toBe(true);
    // Billing shows no card, so auto top-up cannot be turned on with it.
    const res = await getJson(t.app, "/v1/billing/auto-top-up", ann.accessToken);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ card: null });
  });

  it("a card still attached when its late save event arrives is saved", async () => {
    const t = ctx.t;
    const ann = await verifiedUser(t, "ann");
    const setup = await openCardSetup(t, ann.id, ann.id);
    expect(await t.local.provider.submitCard(setup.id, AUTO_TOP_UP_CARDS.pays, true)).toMatchObject({
      ok: true,
    });
    const release = await holdQueued(t, ["checkout.session.completed", "setup_intent.succeeded"]);
    t.clock.advance(HOUR_MS);
    await release();
    await settleAll(t);
    const [card] = await t.deps.db.select().from(savedCards).where(eq(savedCards.orgId, ann.id));
    expect(card).toMatchObject({ last4: "4242", savedBy: ann.id });
  });

  /**
   * An auto top-up paid at the provider whose payment is not on record yet: the charge's answer was
   * lost (a crash, a timeout) and invoice.paid's first delivery failed, so its attempt is still
   * processing until the sweep or the redelivered event settles it.
   */
  async function autoTopUpPaidNotRecorded(t: TestApp) {
    const ann = await verifiedUser(t, "ann");
    await subscribe(t, ann.accessToken, "A");
    const saved = await saveCard(t, ann.id, ann.id);
    await turnOn(t, ann.id, saved.paymentMethodId);
    const provider = t.local.provider;
    const pay = provider.payAutoTopUpInvoice.bind(provider);
    let release: (() => Promise<void>) | undefined;
    vi.spyOn(provider, "payAutoTopUpInvoice").mockImplementationOnce(async (db, charge, invoiceId) => {
      expect(await pay(db, charge, invoiceId)).toMatchObject({ status: "paid" });
      release = await holdQueued(t, ["invoice.paid"]);
      throw new Error("connection lost");
    });
    const admin = await staffMember(t, "boss", "admin");
    await spendAsStaff(t, admin.accessToken, ann.id, 1000, "big");
    const [attempt] = await t.deps.db
      .select()
      .from(autoTopUpAttempts)
      .where(eq(autoTopUpAttempts.orgId, ann.id));
    expect(attempt).toMatchObject({ status: "processing" });
    const [paid] = await t.deps.db
      .select()
      .from(localInvoices)
      .where(eq(localInvoices.attemptId, attempt?.id ?? ""));
    expect(paid).toMatchObject({ status: "paid" });
    expect(await recordOf(t, attempt?.id ?? "")).toBeUndefined();
    const [customer] = await t.deps.db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.userId, ann.id));
    if (!attempt || !paid || !customer || !release) throw new Error("no auto top-up paid");
    return { ann, attempt, paid, customerId: customer.customerId, release };
  }

  async function recordOf(t: TestApp, attemptId: string) {
    const [row] = await t.deps.db
      .select()
      .from(invoices)
      .where(eq(invoices.fulfilmentKey, `auto_top_up:${attemptId}`));
    return row;
  }

  const kept = async (t: TestApp, eventId: string) =>
    t.deps.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, eventId));

  // A chargeback of an auto top-up before its record: dropped, the pack's credits stayed usable
  // once granted, and auto top-up went on charging the disputed card.
  it("a dispute of an auto top-up whose attempt is still open is answered 503, and applies when sent again", async () => {
    const t = ctx.t;
    const { ann, attempt, paid, release } = await autoTopUpPaidNotRecorded(t);
    const created = seconds(t.clock.now());
    const dispute = disputeEvent({ eventId: newStripeId("evt"), created }, "created", {
      id: "dp_auto",
      chargeId: "ch_auto",
      paymentIntentId: paid.paymentIntentId,
      amount: paid.total,
      currency: "eur",
      status: "needs_response",
      created,
    });
    const first = await sendWebhook(t, dispute);
    expect(first.status).toBe(503);
    expect(await first.json()).toEqual({ detail: NOT_ON_RECORD });
    expect(await kept(t, dispute.id)).toEqual([]);

    // The payment's event delivered again settles the attempt and writes its record.
    await release();
    await settleAll(t);
    expect(await recordOf(t, attempt.id)).toMatchObject({ status: "paid" });
    const again = await sendWebhook(t, dispute);
    expect(again.status).toBe(200);
    expect(await recordOf(t, attempt.id)).toMatchObject({ status: "disputed" });
    const held = await t.deps.db
      .select()
      .from(creditAdjustments)
      .where(eq(creditAdjustments.reference, "dispute:dp_auto:created"));
    expect(held).toHaveLength(1);
    expect(await settingsOf(t, ann.id)).toMatchObject({ status: "off", reason: "dispute_hold" });
  });

  it("a refund of an auto top-up whose attempt is still open is answered 503, and applies when sent again", async () => {
    const t = ctx.t;
    const { attempt, paid, customerId, release } = await autoTopUpPaidNotRecorded(t);
    const refunded = chargeRefundedEvent(
      { eventId: newStripeId("evt"), created: seconds(t.clock.now()) },
      {
        id: "ch_auto",
        paymentIntentId: paid.paymentIntentId,
        invoiceId: null,
        customerId,
        amount: paid.total,
        amountRefunded: paid.total,
        currency: "eur",
        created: seconds(t.clock.now()),
      },
    );
    const first = await sendWebhook(t, refunded);
    expect(first.status).toBe(503);
    expect(await kept(t, refunded.id)).toEqual([]);

    await release();
    await settleAll(t);
    expect((await sendWebhook(t, refunded)).status).toBe(200);
    expect(await recordOf(t, attempt.id)).toMatchObject({ status: "refunded", refunded: paid.total });
  });

  // Decision 007: no record of it is on its way, so it is logged for an operator, not waited for.
  it("a dispute of a payment that is no auto top-up, and not on record, is answered 200 as before", async () => {
    const t = ctx.t;
    const created = seconds(t.clock.now());
    const dispute = disputeEvent({ eventId: newStripeId("evt"), created }, "created", {
      id: "dp_other",
      chargeId: "ch_other",
      paymentIntentId: newStripeId("pi"),
      amount: 5950,
      currency: "eur",
      status: "needs_response",
      created,
    });
    expect((await sendWebhook(t, dispute)).status).toBe(200);
    expect(await kept(t, dispute.id)).toEqual([]);
  });
});
