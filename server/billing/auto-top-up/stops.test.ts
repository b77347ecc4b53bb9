// What stops auto top-up besides a charge (AUTO-TOP-UP.md, "Off" and "When a charge fails"): staff
// disabling the account or holding its money, the plan ending, the card detached at the provider, a
// newer card (its consent covers the old one), the member who saved the card leaving, and a payment
// left unconfirmed for 7 days. Each is recorded in the activity log and mailed once.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { InvoiceSummary } from "../../../contract/invoices.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import {
  auditLog,
  autoTopUpAttempts,
  billingCustomers,
  invoices,
  organizations,
  savedCards,
} from "../../db/schema/index.ts";
import { PAUSE_REASONS } from "../../domain/auto-top-up.ts";
import { disputeEvent } from "../../payments/local/event-builders.ts";
import { stripeFixture } from "../../payments/local/stripe-fixtures.ts";
import { newStripeId } from "../../payments/stripe/format.ts";
import { adminCall, staffMember } from "../../testing/admin.ts";
import { login, verifiedUser } from "../../testing/api-client.ts";
import {
  AUTO_TOP_UP_CARDS,
  autoTopUpEngineOf,
  frenchDetailsUnseen,
  saveCard,
  settingsOf,
  settleAll,
  spendAsStaff,
  turnOn,
} from "../../testing/auto-top-up.ts";
import { sendWebhook, subscribe } from "../../testing/billing.ts";
import { call, createTeam, member } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS, type TestApp } from "../../testing/test-app.ts";
import { AUTHENTICATION_WINDOW_MS, EXPIRED_AUTHENTICATION_DETAIL } from "./runner.ts";

describe.each(TEST_DATABASES)("what stops auto top-up (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  async function subscriberWithAutoTopUp(t: TestApp, card: string = AUTO_TOP_UP_CARDS.pays) {
    const user = await verifiedUser(t, "ann");
    await subscribe(t, user.accessToken, "A");
    const saved = await saveCard(t, user.id, user.id, card);
    await turnOn(t, user.id, saved.paymentMethodId);
    return { user, saved };
  }

  const actionsAbout = async (t: TestApp, orgId: string) =>
    (await t.deps.db.select().from(auditLog).where(eq(auditLog.subjectOrgId, orgId)))
      .map((r) => r.action)
      .filter((a) => a.startsWith("auto_top_up."));

  const stoppedMails = async (t: TestApp) =>
    (await t.mails()).filter((m) => m.subject.startsWith("Auto top-up is"));

  it("staff disabling the account turns it off, audited and mailed once", async () => {
    const t = ctx.t;
    const { user } = await subscriberWithAutoTopUp(t);
    const admin = await staffMember(t, "boss", "admin");
    const res = await adminCall(t, `/v1/admin/customers/${user.id}/disable`, admin.accessToken, {
      reason: "Chargeback fraud",
    });
    expect(res.status).toBe(200);
    await settleAll(t);
    expect(await settingsOf(t, user.id)).toMatchObject({
      status: "off",
      reason: "organisation_disabled",
      enabled: false,
    });
    expect(await actionsAbout(t, user.id)).toContain("auto_top_up.turned_off");
    const mails = await stoppedMails(t);
    expect(mails.map((m) => m.subject)).toEqual(["Auto top-up is turned off for your personal account"]);
    // The first test also builds the OpenAPI document the suite checks traffic against.
  }, 90_000);

  it("the plan ending turns it off", async () => {
    const t = ctx.t;
    const { user } = await subscriberWithAutoTopUp(t);
    const admin = await staffMember(t, "boss", "admin");
    const res = await adminCall(t, `/v1/admin/customers/${user.id}/subscription/cancel`, admin.accessToken, {
      at: "now",
      reason: "Customer asked by phone",
    });
    expect(res.status).toBe(200);
    await settleAll(t);
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "off", reason: "plan_ended" });
  });

  it("a dispute opened on an automatic payment turns it off", async () => {
    const t = ctx.t;
    const { user } = await subscriberWithAutoTopUp(t);
    const admin = await staffMember(t, "boss", "admin");
    await spendAsStaff(t, admin.accessToken, user.id, 1000, "big");
    const [attemptInvoice] = await t.deps.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.userId, user.id), eq(invoices.description, "Auto top-up: 500 credit pack")));
    expect(attemptInvoice?.paymentReference).toMatch(/^pi_/);
    const created = Math.floor(t.clock.now().getTime() / 1000);
    const res = await sendWebhook(
      t,
      disputeEvent({ eventId: newStripeId("evt"), created }, "created", {
        id: "dp_auto",
        chargeId: "ch_auto",
        paymentIntentId: attemptInvoice?.paymentReference as string,
        amount: attemptInvoice?.total as number,
        currency: "eur",
        status: "needs_response",
        created,
      }),
    );
    expect(res.status).toBe(200);
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "off", reason: "dispute_hold" });
    // No hold (the dispute is open, nothing lost): consent turns it on again.
    await settleAll(t);
    const [mail] = await stoppedMails(t);
    expect(mail?.text.replace(/\s+/g, " ")).toContain(
      "Turning it on again asks for your consent to the charges again.",
    );
  });

  it("a lost dispute of another payment that puts the account on hold turns it off", async () => {
    const t = ctx.t;
    const { user } = await subscriberWithAutoTopUp(t);
    const admin = await staffMember(t, "boss", "admin");
    // The plan's credits spent: a dispute of its payment lost now takes money back for credits gone.
    await spendAsStaff(t, admin.accessToken, user.id, 900, "big");
    await settleAll(t);
    const [planInvoice] = await t.deps.db
      .select()
      .from(invoices)
      .where(eq(invoices.userId, user.id))
      .orderBy(invoices.createdAt)
      .limit(1);
    expect(planInvoice?.description).not.toMatch(/^Auto top-up/);
    const created = Math.floor(t.clock.now().getTime() / 1000);
    const dispute = (phase: "created" | "closed", status: "needs_response" | "lost") =>
      disputeEvent({ eventId: newStripeId("evt"), created }, phase, {
        id: "dp_plan",
        chargeId: "ch_plan",
        paymentIntentId: planInvoice?.paymentReference as string,
        amount: planInvoice?.total as number,
        currency: "eur",
        status,
        created,
      });
    expect((await sendWebhook(t, dispute("created", "needs_response"))).status).toBe(200);
    // Opened on a payment that was not automatic: auto top-up goes on.
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "active" });
    expect((await sendWebhook(t, dispute("closed", "lost"))).status).toBe(200);
    const [held] = await t.deps.db
      .select({ at: organizations.disputeHoldAt })
      .from(organizations)
      .where(eq(organizations.id, user.id));
    expect(held?.at).not.toBeNull();
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "off", reason: "dispute_hold" });
    const [mail, ...more] = await stoppedMails(t);
    expect(more).toEqual([]);
    expect(mail?.subject).toBe("Auto top-up is turned off for your personal account");
    // On hold it cannot be turned on: the mail says so, not that consent would turn it on again.
    const text = mail?.text.replace(/\s+/g, " ") ?? "";
    expect(text).toContain("Auto top-up is off because a payment of this organisation was disputed.");
    expect(text).toContain(
      "It can be turned on again, with your consent to the charges, once our support team clears the hold.",
    );
    expect(text).toContain("Until then, API calls with its keys are refused: see our e-mail about the hold.");
    expect(text).not.toContain("Turning it on again asks");
  });

  it("the card detached at the provider turns it off and forgets the card", async () => {
    const t = ctx.t;
    const { user, saved } = await subscriberWithAutoTopUp(t);
    await t.local.provider.detachCard(t.deps.db, saved.paymentMethodId);
    await settleAll(t);
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "off", reason: "card_removed" });
    expect(await t.deps.db.select().from(savedCards).where(eq(savedCards.orgId, user.id))).toEqual([]);
  });

  it("a newer card replaces the saved one and pauses until it is consented to", async () => {
    const t = ctx.t;
    const { user, saved } = await subscriberWithAutoTopUp(t);
    t.clock.advance(1000);
    const newer = await saveCard(t, user.id, user.id, AUTO_TOP_UP_CARDS.authenticatesThenPays);
    expect(newer.paymentMethodId).not.toBe(saved.paymentMethodId);
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "paused", reason: "card_replaced" });
    expect(await actionsAbout(t, user.id)).toEqual(
      expect.arrayContaining(["auto_top_up.card_saved", "auto_top_up.paused"]),
    );
  });

  it("a card saved in the same second as the one before replaces it (Stripe's times are whole seconds)", async () => {
    const t = ctx.t;
    const { user, saved } = await subscriberWithAutoTopUp(t);
    const newer = await saveCard(t, user.id, user.id, AUTO_TOP_UP_CARDS.declines);
    expect(newer.paymentMethodId).not.toBe(saved.paymentMethodId);
    expect(newer.setupAt.getTime()).toBe(saved.setupAt.getTime());
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "paused", reason: "card_replaced" });
  });

  it("a late event of the older card of the same second does not undo the newer one", async () => {
    const t = ctx.t;
    // 100 ms into a second: both cards' pages open within it.
    t.clock.set(new Date(Math.ceil(t.clock.now().getTime() / 1000) * 1000 + 100));
    const { user, saved } = await subscriberWithAutoTopUp(t);
    t.clock.advance(50); // the second card's page opens 50 ms later, in the same second
    const newer = await saveCard(t, user.id, user.id, AUTO_TOP_UP_CARDS.declines);
    expect(newer.setupAt.getTime()).toBe(saved.setupAt.getTime());
    // The first card's event again, late (a redelivery after the second's).
    const engine = autoTopUpEngineOf(t);
    await t.deps.db.transaction((tx) =>
      engine.handleEvent(
        tx,
        {
          eventId: "evt_late",
          eventType: "setup_intent.succeeded",
          created: t.clock.now(),
          livemode: false,
          kind: "card_saved",
          orgId: user.id,
          customerId: null,
          setupIntentId: saved.setupIntentId,
          setupAt: saved.setupAt,
          checkoutSessionId: null,
          paymentMethodId: saved.paymentMethodId,
          openedBy: user.id,
        },
        t.clock.now(),
      ),
    );
    const [card] = await t.deps.db.select().from(savedCards).where(eq(savedCards.orgId, user.id));
    expect(card?.paymentMethodId).toBe(newer.paymentMethodId);
  });

  /** PUT /v1/billing/details as the customer gives them (a French consumer pays 20 % VAT, not 19 %). */
  const giveDetails = async (t: TestApp, token: string, country: string) => {
    const res = await t.app.request("/v1/billing/details", {
      method: "PUT",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "Ann Buyer",
        email: "books@example.com",
        address: { line1: "1 Street", postal_code: "75001", city: "Paris", country },
      }),
    });
    expect(res.status, await res.text()).toBe(200);
  };

  it("billing details that change a pack's price pause it until a member agrees anew; changed back, it resumes", async () => {
    const t = ctx.t;
    const { user } = await subscriberWithAutoTopUp(t);
    await giveDetails(t, user.accessToken, "FR");
    const paused = await settingsOf(t, user.id);
    expect(paused).toMatchObject({ status: "paused", reason: "consent_changed" });
    await settleAll(t);
    // Mailed once to each address (the owner, and the invoice address given with the details).
    const mails = await stoppedMails(t);
    expect(mails.map((m) => m.to).sort()).toEqual(["books@example.com", user.email].sort());
    for (const mail of mails) expect(mail.text).toContain(PAUSE_REASONS.consent_changed.sentence);
    // A spend below the threshold meanwhile charges nothing.
    const admin = await staffMember(t, "boss", "admin");
    const spend = await spendAsStaff(t, admin.accessToken, user.id, 1000, "spend-1");
    expect(spend.status).toBe(200);
    await settleAll(t);
    expect(
      await t.deps.db.select().from(autoTopUpAttempts).where(eq(autoTopUpAttempts.orgId, user.id)),
    ).toEqual([]);
    // German details again: the price the consent words stands, and auto top-up resumes.
    await giveDetails(t, user.accessToken, "DE");
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "active", reason: null });
  });

  it("Stripe withdrawing the check of the VAT ID on file pauses it at once: the pack now costs VAT", async () => {
    const t = ctx.t;
    const user = await verifiedUser(t, "ann");
    await subscribe(t, user.accessToken, "A");
    // A French business: reverse charge, one pack €50.00, agreed to at that price.
    const res = await t.app.request("/v1/billing/details", {
      method: "PUT",
      headers: { Authorization: `Bearer ${user.accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "Acme SAS",
        email: "books@example.com",
        address: { line1: "1 rue de Rivoli", postal_code: "75001", city: "Paris", country: "FR" },
        vat_id: "FR40303265045",
      }),
    });
    expect(res.status, await res.text()).toBe(200);
    const saved = await saveCard(t, user.id, user.id);
    await turnOn(t, user.id, saved.paymentMethodId);
    const [customer] = await t.deps.db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.userId, user.id));
    const checked = await sendWebhook(t, {
      id: "evt_vat_withdrawn",
      object: "event",
      type: "customer.tax_id.updated",
      created: Math.floor(t.clock.now().getTime() / 1000) + 1,
      livemode: false,
      data: {
        object: {
          ...stripeFixture("tax_id"),
          customer: customer?.customerId,
          value: "FR40303265045",
          verification: { status: "unverified", verified_address: null, verified_name: null },
        },
      },
    });
    expect(checked.status).toBe(200);
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "paused", reason: "consent_changed" });
  });

  it("a price changed where no hook saw it is caught before the charge: paused, not charged, in the history", async () => {
    const t = ctx.t;
    const { user } = await subscriberWithAutoTopUp(t);
    // French details written as an older instance (without the hook) would have.
    await frenchDetailsUnseen(t, user.id);
    const admin = await staffMember(t, "boss", "admin");
    await spendAsStaff(t, admin.accessToken, user.id, 1000, "spend-1");
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "paused", reason: "consent_changed" });
    expect(
      await t.deps.db.select().from(autoTopUpAttempts).where(eq(autoTopUpAttempts.orgId, user.id)),
    ).toEqual([]);
    const held = await t.deps.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.userId, user.id), eq(invoices.status, "not_charged")));
    // The pack at the price it would have cost: €50.00 and 20 % French VAT.
    expect(held).toEqual([
      expect.objectContaining({ kind: "topup", net: 5000, tax: 1000, total: 6000, number: null }),
    ]);
  });

  it("the member who saved the team's card leaving pauses it; another member's leaving does not", async () => {
    const t = ctx.t;
    const owner = await verifiedUser(t, "olga");
    const team = await createTeam(t, owner);
    const payer = await member(t, team, owner, "bob", "billing");
    const other = await member(t, team, owner, "cid", "developer");
    const saved = await saveCard(t, team.id, payer.id);
    await turnOn(t, team.id, saved.paymentMethodId);
    const remove = (who: string) =>
      call(t, "DELETE", `/v1/orgs/${team.id}/members/${who}`, owner.accessToken);
    expect((await remove(other.id)).status).toBe(200);
    expect(await settingsOf(t, team.id)).toMatchObject({ status: "active" });
    expect((await remove(payer.id)).status).toBe(200);
    await settleAll(t);
    expect(await settingsOf(t, team.id)).toMatchObject({ status: "paused", reason: "member_left" });
    expect((await stoppedMails(t)).map((m) => m.subject)).toContain("Auto top-up is paused for Acme Labs");
  });

  it("a payment left unconfirmed for 7 days is cancelled, its invoice voided, and the pause says so", async () => {
    const t = ctx.t;
    const { user } = await subscriberWithAutoTopUp(t, AUTO_TOP_UP_CARDS.alwaysAuthenticates);
    const admin = await staffMember(t, "boss", "admin");
    await spendAsStaff(t, admin.accessToken, user.id, 1000, "big");
    const [waiting] = await t.deps.db
      .select()
      .from(autoTopUpAttempts)
      .where(eq(autoTopUpAttempts.orgId, user.id));
    expect(waiting).toMatchObject({ status: "authentication_required" });
    t.clock.advance(AUTHENTICATION_WINDOW_MS + 60_000);
    const engine = autoTopUpEngineOf(t);
    expect(await engine.runDue()).toBeGreaterThan(0);
    await settleAll(t);
    const [cancelled] = await t.deps.db
      .select()
      .from(autoTopUpAttempts)
      .where(and(eq(autoTopUpAttempts.orgId, user.id), eq(autoTopUpAttempts.status, "cancelled")));
    expect(cancelled?.detail).toBe(EXPIRED_AUTHENTICATION_DETAIL);
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "paused", reason: "declined" });
    const page = await t.local.provider.findInvoicePage(waiting?.providerInvoiceId ?? "");
    expect(JSON.stringify(page)).toContain("void");
    // The billing history's row of that payment says how it ended, not that it waits.
    const rows = await t.deps.db.select().from(invoices).where(eq(invoices.userId, user.id));
    expect(rows.filter((r) => r.kind === "topup")).toEqual([
      expect.objectContaining({
        status: "failed",
        description: `Auto top-up: 500 credit pack. ${EXPIRED_AUTHENTICATION_DETAIL}`,
        buyer: expect.objectContaining({ name: null, email: null }),
      }),
    ]);
    // Read by the customer, it is cancelled, with no payment page left to open.
    // (Signed in again: a week later the first access token has expired.)
    const signIn = (await (await login(t, "ann")).json()) as { access_token: string };
    const res = await call(t, "GET", "/v1/billing/invoices", signIn.access_token);
    expect(res.status).toBe(200);
    const listed = ((await res.json()) as { data: InvoiceSummary[] }).data.filter((r) => r.kind === "topup");
    expect(listed).toEqual([expect.objectContaining({ status: "cancelled", number: null })]);
    expect(listed[0]).not.toHaveProperty("pay_url");
    // Its own page (the invoice view) alike: nothing left to pay there either.
    const one = await call(t, "GET", `/v1/billing/invoices/${listed[0]?.id}`, signIn.access_token);
    expect(one.status).toBe(200);
    const read = (await one.json()) as InvoiceSummary;
    expect(read).toMatchObject({ status: "cancelled", number: null });
    expect(read).not.toHaveProperty("pay_url");
  });

  it("a card renewed in place by the card updater (new last four digits) keeps auto top-up charging", async () => {
    const t = ctx.t;
    const { user, saved } = await subscriberWithAutoTopUp(t);
    // What payment_method.automatically_updated does to the saved card (events.ts).
    await t.deps.db
      .update(savedCards)
      .set({ last4: "9999", expYear: 2031 })
      .where(eq(savedCards.paymentMethodId, saved.paymentMethodId));
    const admin = await staffMember(t, "boss", "admin");
    await spendAsStaff(t, admin.accessToken, user.id, 1000, "spend-1");
    expect(await settingsOf(t, user.id)).toMatchObject({ status: "active" });
    expect(
      (await t.deps.db.select().from(autoTopUpAttempts).where(eq(autoTopUpAttempts.orgId, user.id))).map(
        (a) => a.status,
      ),
    ).toEqual(["paid"]);
  });
});
