// Auto top-up in tests: a card saved through the local checkout's setup page and its events (as a
// customer saves one), and settings turned on as PUT /v1/billing/auto-top-up stores them.
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { packOf } from "../billing/auto-top-up/charges.ts";
import { storeConsent, vatOnFile } from "../billing/auto-top-up/consents.ts";
import { createBillingMailSender } from "../billing/billing-mails.ts";
import { type AutoTopUpSettingsRow, autoTopUpSettings, savedCards } from "../db/schema/index.ts";
import { TOP_UP } from "./billing.ts";
import { TEST_PORTAL_URL, type TestApp } from "./test-app.ts";

/** The contract's test cards (AUTO-TOP-UP.md, "The local checkout"). */
export const AUTO_TOP_UP_CARDS = {
  pays: "4242 4242 4242 4242",
  authenticatesThenPays: "4000 0025 0000 3155",
  alwaysAuthenticates: "4000 0027 6000 3184",
  insufficientFunds: "4000 0082 6000 3178",
  declines: "4000 0000 0000 0341",
} as const;

/** The 500-credit pack: €50.00 net, €59.50 with German VAT. */
export const PACK = TOP_UP("500").product;
export const PACK_GROSS = 5950;

/**
 * Waits for background work and the local checkout's webhook deliveries, until nothing moves, then
 * sends the billing mails still queued (as the billing mails job does: a change made inside another
 * command's transaction is mailed by the job, not at once).
 */
export async function settleAll(t: TestApp): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    await t.tasks.idle();
    t.local.deliverSoon();
    await t.tasks.idle();
  }
  await createBillingMailSender({ ...t.deps, tasks: t.tasks }).sendPending();
  await t.tasks.idle();
}

/** Saves `card` for `orgId` on the local setup page, opened by `openedBy`; answers the saved row. */
export async function saveCard(
  t: TestApp,
  orgId: string,
  openedBy: string,
  card: string = AUTO_TOP_UP_CARDS.pays,
) {
  const setup = await t.local.provider.createCardSetupSession(t.deps.db, {
    orgId,
    openedBy,
    email: "billing@example.com",
    currency: "eur",
    successUrl: `${TEST_PORTAL_URL}/profile/billing?card=saved`,
    cancelUrl: `${TEST_PORTAL_URL}/profile/billing?card=cancelled`,
    consentText: "By saving this card you allow Test Operator GmbH to charge it.",
  });
  expect(await t.local.provider.submitCard(setup.id, card, true)).toMatchObject({ ok: true });
  await settleAll(t);
  const [row] = await t.deps.db.select().from(savedCards).where(eq(savedCards.orgId, orgId));
  expect(row).toMatchObject({ savedBy: openedBy, last4: card.slice(-4) });
  return row as NonNullable<typeof row>;
}

/**
 * Auto top-up on, as a PUT with consent stores it: the 500 pack below `threshold` credits, with
 * the consent to the text these values render at the organisation's VAT today (a charge is made
 * only while that text stands).
 */
export async function turnOn(
  t: TestApp,
  orgId: string,
  paymentMethodId: string,
  settings: { threshold?: number; limit?: number } = {},
): Promise<void> {
  const now = t.clock.now();
  const threshold = settings.threshold ?? 100;
  const monthlyLimit = { amount: settings.limit ?? 100_000, currency: "eur" };
  const [card] = await t.deps.db
    .select()
    .from(savedCards)
    .where(eq(savedCards.paymentMethodId, paymentMethodId));
  const offer = t.catalogue.findTopUp(PACK);
  if (!card || !offer) throw new Error("turnOn needs a saved card and the 500 pack");
  const onFile = await vatOnFile(t.deps.db, orgId, t.deps.config.seller.country, now);
  const consentId = await storeConsent(
    t.deps.db,
    orgId,
    { card, pack: packOf(offer), threshold, monthlyLimit },
    onFile,
    { userId: card.savedBy ?? orgId, email: "billing@example.com", ip: null, userAgent: null },
    now,
  );
  await t.deps.db.insert(autoTopUpSettings).values({
    orgId,
    enabled: true,
    status: "active",
    threshold,
    productId: PACK,
    monthlyLimit: monthlyLimit.amount,
    currency: monthlyLimit.currency,
    cardPaymentMethodId: paymentMethodId,
    consentId,
    updatedAt: now,
  });
}

export async function settingsOf(t: TestApp, orgId: string): Promise<AutoTopUpSettingsRow | undefined> {
  const [row] = await t.deps.db.select().from(autoTopUpSettings).where(eq(autoTopUpSettings.orgId, orgId));
  return row;
}
