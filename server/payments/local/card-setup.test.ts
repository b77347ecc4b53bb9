// The local checkout's card-setup sessions and saved cards (AUTO-TOP-UP.md): every test card's
// saving, the two events Stripe sends for a saved card, expiry by opener, retrieve and detach.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { customerStore } from "../../billing/subscription-store.ts";
import { billingCustomers, cardSetupSessions, localPaymentMethods } from "../../db/schema/index.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import {
  billingEventOf,
  CARD,
  CONSENT,
  openSetup,
  queuedEvents,
  saveCard,
} from "../../testing/local-auto-top-up.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";
import { CARD_DECLINED_MESSAGE, CARD_MISSING_MESSAGE, SETUP_CARD_UNKNOWN_MESSAGE } from "./cards.ts";

const HOUR_MS = 3_600_000;

describe.each(TEST_DATABASES)("local card setup (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const provider = () => ctx.t.local.provider;
  const db = () => ctx.t.deps.db;

  async function session(id: string) {
    const [row] = await db().select().from(cardSetupSessions).where(eq(cardSetupSessions.id, id));
    if (!row) throw new Error(`no setup session ${id}`);
    return row;
  }

  it("opens a setup page for the organisation's customer, open for 24 hours, with the consent text", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const first = await openSetup(ctx.t, ann.id, ann.id);
    const second = await openSetup(ctx.t, ann.id, ann.id);
    expect(first.url).toBe(`${TEST_PORTAL_URL}/_checkout/setup/${first.id}`);
    expect(first.id).toMatch(/^cs_test_/);
    const row = await session(first.id);
    const [customer] = await db().select().from(billingCustomers).where(eq(billingCustomers.userId, ann.id));
    expect(row).toMatchObject({
      provider: "local",
      orgId: ann.id,
      openedBy: ann.id,
      customerId: customer?.customerId,
      currency: "eur",
      status: "open",
      url: first.url,
      consentText: CONSENT,
      setupIntentId: null,
    });
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(24 * HOUR_MS);
    // The customer is made once and reused.
    expect((await session(second.id)).customerId).toBe(customer?.customerId);
  });

  it.each([
    { card: CARD.pays, authentication: false, last4: "4242" },
    { card: CARD.authThenPays, authentication: true, last4: "3155" },
    { card: CARD.alwaysAuth, authentication: true, last4: "3184" },
    { card: CARD.insufficientFunds, authentication: true, last4: "3178" },
    { card: CARD.declinesCharges, authentication: false, last4: "0341" },
  ])("saves $card (authentication first: $authentication)", async ({ card, authentication, last4 }) => {
    const ann = await verifiedUser(ctx.t, "ann");
    const { id } = await openSetup(ctx.t, ann.id, ann.id);
    const first = await provider().submitCard(id, card, false);
    if (authentication) {
      expect(first).toMatchObject({
        ok: false,
        reason: "authenticate",
        cardNumber: card.replaceAll(" ", ""),
      });
      expect(await db().select().from(localPaymentMethods)).toEqual([]);
      expect((await session(id)).status).toBe("open");
      expect(await provider().submitCard(id, card, true)).toEqual({
        ok: true,
        redirectTo: "https://portal.test/profile/billing?card=saved",
      });
    } else {
      expect(first).toEqual({ ok: true, redirectTo: "https://portal.test/profile/billing?card=saved" });
    }
    const [pm] = await db().select().from(localPaymentMethods);
    const now = ctx.t.clock.now();
    expect(pm).toMatchObject({
      customerId: (await session(id)).customerId,
      orgId: ann.id,
      cardNumber: card.replaceAll(" ", ""),
      brand: "visa",
      last4,
      expMonth: 12,
      expYear: now.getUTCFullYear() + 3,
      detachedAt: null,
    });
    expect(pm?.id).toMatch(/^pm_/);
    expect(await session(id)).toMatchObject({
      status: "complete",
      setupIntentId: pm?.setupIntentId,
      completedAt: now,
    });
  });

  it.each([
    { card: CARD.declined, message: CARD_DECLINED_MESSAGE, status: "declined" },
    { card: "4111 1111 1111 1111", message: SETUP_CARD_UNKNOWN_MESSAGE, status: "invalid" },
    { card: "  ", message: CARD_MISSING_MESSAGE, status: "invalid" },
  ])("refuses $card: $message", async ({ card, message, status }) => {
    const ann = await verifiedUser(ctx.t, "ann");
    const { id } = await openSetup(ctx.t, ann.id, ann.id);
    // Even after an authentication step: these cards are never saved.
    const result = await provider().submitCard(id, card, true);
    expect(result).toMatchObject({ ok: false, reason: "card", card: { ok: false, message, status } });
    expect(await db().select().from(localPaymentMethods)).toEqual([]);
    expect(await queuedEvents(db())).toEqual([]);
    expect((await session(id)).status).toBe("open");
  });

  it("names every test card in the message for an unknown number", () => {
    for (const card of Object.values(CARD)) expect(SETUP_CARD_UNKNOWN_MESSAGE).toContain(card);
  });

  it("sends checkout.session.completed in setup mode and setup_intent.succeeded, as Stripe does", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const { id } = await openSetup(ctx.t, ann.id, ann.id);
    ctx.t.clock.advance(60_000);
    expect((await provider().submitCard(id, CARD.pays, false)).ok).toBe(true);
    const row = await session(id);
    const [pm] = await db().select().from(localPaymentMethods);
    if (!pm) throw new Error("no card");
    const created = Math.floor(ctx.t.clock.now().getTime() / 1000);

    const [completed, ...moreCompleted] = await queuedEvents(db(), "checkout.session.completed");
    expect(moreCompleted).toEqual([]);
    expect(completed?.data.object).toMatchObject({
      id,
      object: "checkout.session",
      mode: "setup",
      status: "complete",
      payment_status: "no_payment_required",
      setup_intent: pm.setupIntentId,
      customer: row.customerId,
      client_reference_id: ann.id,
      metadata: { org_id: ann.id },
      currency: "eur",
      payment_intent: null,
      subscription: null,
      custom_text: { submit: { message: CONSENT } },
      success_url: row.successUrl,
      cancel_url: row.cancelUrl,
    });
    expect(pm.setupIntentId).toMatch(/^seti_/);

    const [succeeded, ...moreSucceeded] = await queuedEvents(db(), "setup_intent.succeeded");
    expect(moreSucceeded).toEqual([]);
    expect(succeeded).toMatchObject({ object: "event", type: "setup_intent.succeeded", created });
    expect(succeeded?.data.object).toMatchObject({
      id: pm.setupIntentId,
      object: "setup_intent",
      status: "succeeded",
      usage: "off_session",
      payment_method: pm.id,
      customer: row.customerId,
      metadata: { org_id: ann.id },
      created,
      last_setup_error: null,
      next_action: null,
    });

    // As billing reads them: the session names its SetupIntent only, the SetupIntent saves the card.
    if (!completed || !succeeded) throw new Error("events missing");
    expect(billingEventOf(completed)).toMatchObject({ kind: "ignored" });
    expect(billingEventOf(succeeded)).toEqual({
      eventId: succeeded.id,
      eventType: "setup_intent.succeeded",
      created: new Date(created * 1000),
      livemode: false,
      kind: "card_saved",
      orgId: ann.id,
      customerId: row.customerId,
      setupIntentId: pm.setupIntentId,
      setupAt: new Date(created * 1000),
      checkoutSessionId: null,
      paymentMethodId: pm.id,
      // Who opened the page (the card's saver), as the SetupIntent's metadata carries it.
      openedBy: ann.id,
    });
  });

  it("keeps the older card attached when a newer one is saved (billing replaces it in its own table)", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const older = await saveCard(ctx.t, ann.id, CARD.pays);
    const newer = await saveCard(ctx.t, ann.id, CARD.declinesCharges);
    expect(newer).not.toBe(older);
    const cards = await db().select().from(localPaymentMethods);
    expect(cards.map((c) => [c.id, c.detachedAt]).sort()).toEqual(
      [
        [older, null],
        [newer, null],
      ].sort(),
    );
    expect(await queuedEvents(db(), "payment_method.detached")).toEqual([]);
  });

  it("saves nothing on a page that expired, or on one that saved a card already", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const done = await openSetup(ctx.t, ann.id, ann.id);
    expect((await provider().submitCard(done.id, CARD.pays, false)).ok).toBe(true);
    expect(await provider().submitCard(done.id, CARD.pays, false)).toEqual({ ok: false, reason: "complete" });
    expect(await provider().findSetupPage(done.id)).toEqual({ ok: false, reason: "complete" });

    const late = await openSetup(ctx.t, ann.id, ann.id);
    ctx.t.clock.advance(24 * HOUR_MS);
    expect(await provider().findSetupPage(late.id)).toEqual({ ok: false, reason: "expired" });
    expect(await provider().submitCard(late.id, CARD.pays, false)).toEqual({ ok: false, reason: "expired" });
    expect((await session(late.id)).status).toBe("expired");
    expect(await provider().findSetupPage("cs_test_unknown")).toEqual({ ok: false, reason: "not_found" });
    expect(await db().select().from(localPaymentMethods)).toHaveLength(1);
  });

  it("expires the organisation's open setup pages with its checkouts, only the opener's when named", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const annOpened = await openSetup(ctx.t, ann.id, ann.id);
    const bobOpened = await openSetup(ctx.t, ann.id, bob.id);
    const bobDone = await openSetup(ctx.t, ann.id, bob.id);
    expect((await provider().submitCard(bobDone.id, CARD.pays, false)).ok).toBe(true);
    const otherOrg = await openSetup(ctx.t, bob.id, bob.id);

    await provider().expireOpenCheckouts(db(), ann.id, bob.id);
    expect((await session(bobOpened.id)).status).toBe("expired");
    expect((await session(annOpened.id)).status).toBe("open");
    expect((await session(bobDone.id)).status).toBe("complete");
    expect(await provider().submitCard(bobOpened.id, CARD.pays, false)).toEqual({
      ok: false,
      reason: "expired",
    });

    await provider().expireOpenCheckouts(db(), ann.id);
    expect((await session(annOpened.id)).status).toBe("expired");
    expect((await session(bobDone.id)).status).toBe("complete");
    expect((await session(otherOrg.id)).status).toBe("open");
  });

  it("retrieves a saved card's details and customer (none once detached), and null for a card it does not know", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const pm = await saveCard(ctx.t, ann.id, CARD.authThenPays);
    const customerId = await customerStore.findCustomerId(db(), ann.id);
    expect(customerId).toMatch(/^cus_/);
    expect(await provider().retrieveCard(db(), pm)).toEqual({
      paymentMethodId: pm,
      customerId,
      brand: "visa",
      last4: "3155",
      expMonth: 12,
      expYear: ctx.t.clock.now().getUTCFullYear() + 3,
    });
    await provider().detachCard(db(), pm);
    expect(await provider().retrieveCard(db(), pm)).toMatchObject({ paymentMethodId: pm, customerId: null });
    expect(await provider().retrieveCard(db(), "pm_unknown")).toBeNull();
  });

  it("detaches a card once, and tells billing with payment_method.detached as Stripe does", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const pm = await saveCard(ctx.t, ann.id, CARD.pays);
    const [card] = await db().select().from(localPaymentMethods).where(eq(localPaymentMethods.id, pm));
    ctx.t.clock.advance(1_000);
    await provider().detachCard(db(), pm);
    await provider().detachCard(db(), pm);
    await provider().detachCard(db(), "pm_unknown");
    const [after] = await db().select().from(localPaymentMethods).where(eq(localPaymentMethods.id, pm));
    expect(after?.detachedAt).toEqual(ctx.t.clock.now());

    const events = await queuedEvents(db(), "payment_method.detached");
    expect(events).toHaveLength(1);
    const [detached] = events;
    if (!detached) throw new Error("no event");
    expect(detached.data.object).toMatchObject({
      id: pm,
      object: "payment_method",
      type: "card",
      customer: null,
      card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: ctx.t.clock.now().getUTCFullYear() + 3 },
    });
    expect(detached.data.previous_attributes).toEqual({ customer: card?.customerId });
    expect(billingEventOf(detached)).toMatchObject({
      kind: "card_detached",
      customerId: card?.customerId,
      paymentMethodId: pm,
    });
  });
});
