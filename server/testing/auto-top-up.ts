// Auto top-up in tests: a card saved through the local checkout's setup page and its events (as a
// customer saves one), and settings turned on as PUT /v1/billing/auto-top-up stores them.
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { createAutoTopUp } from "../billing/auto-top-up/auto-top-up.ts";
import { type ChargeDeps, packOf } from "../billing/auto-top-up/charges.ts";
import { storeConsent, vatOnFile } from "../billing/auto-top-up/consents.ts";
import { createBillingMailSender } from "../billing/billing-mails.ts";
import { saveGivenBillingDetails } from "../billing/subscription-store.ts";
import { type AutoTopUpSettingsRow, autoTopUpSettings, savedCards } from "../db/schema/index.ts";
import { CONSENT_TEXT_VERSION } from "../domain/auto-top-up.ts";
import { postJson } from "./api-client.ts";
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

/** A local card-setup page for `orgId`, opened by `openedBy`, as the setup call opens one. */
export function openCardSetup(t: TestApp, orgId: string, openedBy: string) {
  return t.local.provider.createCardSetupSession(t.deps.db, {
    orgId,
    openedBy,
    email: "billing@example.com",
    currency: "eur",
    successUrl: `${TEST_PORTAL_URL}/profile/billing?card=saved`,
    cancelUrl: `${TEST_PORTAL_URL}/profile/billing?card=cancelled`,
    consentText: "By saving this card you allow Test Operator GmbH to charge it.",
  });
}

/** Saves `card` for `orgId` on the local setup page, opened by `openedBy`; answers the saved row. */
export async function saveCard(
  t: TestApp,
  orgId: string,
  openedBy: string,
  card: string = AUTO_TOP_UP_CARDS.pays,
) {
  const setup = await openCardSetup(t, orgId, openedBy);
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

/**
 * PUT /v1/billing/auto-top-up as the member would: the 500 pack below 100 credits, at a limit of
 * one pack, with consent when turning it on. Expects 200.
 */
export async function putAutoTopUp(t: TestApp, token: string, enabled: boolean): Promise<void> {
  const res = await t.app.request("/v1/billing/auto-top-up", {
    method: "PUT",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      enabled,
      threshold: 100,
      product_id: PACK,
      monthly_limit: { amount: PACK_GROSS, currency: "eur" },
      ...(enabled ? { consent: { text_version: CONSENT_TEXT_VERSION, accepted: true } } : {}),
    }),
  });
  expect(res.status).toBe(200);
}

/** Runs `during` while the local checkout cannot be reached to void an invoice. */
export async function whileVoidsFail(t: TestApp, during: () => Promise<void>): Promise<void> {
  const provider = t.local.provider;
  const voidAtProvider = provider.voidAutoTopUpInvoice;
  provider.voidAutoTopUpInvoice = () => Promise.reject(new Error("provider unreachable"));
  try {
    await during();
  } finally {
    provider.voidAutoTopUpInvoice = voidAtProvider;
  }
}

export async function settingsOf(t: TestApp, orgId: string): Promise<AutoTopUpSettingsRow | undefined> {
  const [row] = await t.deps.db.select().from(autoTopUpSettings).where(eq(autoTopUpSettings.orgId, orgId));
  return row;
}

/** What charging and settling an attempt needs, on the test app's database and local checkout. */
export function chargeDepsOf(t: TestApp): ChargeDeps {
  return {
    db: t.deps.db,
    clock: t.clock,
    logger: t.deps.logger,
    catalogue: t.catalogue,
    provider: t.local.provider,
    seller: t.deps.config.seller,
    portalUrl: t.deps.config.portalUrl,
  };
}

/** The engine main.ts makes (a second one on the same database, as the sweep's). */
export function autoTopUpEngineOf(t: TestApp) {
  return createAutoTopUp({
    ...chargeDepsOf(t),
    background: t.tasks,
    mails: createBillingMailSender({ ...t.deps, tasks: t.tasks }),
  });
}

/** Charges `amount` credits to `orgId` as staff would (consume by user id), then waits for what follows. */
export async function spendAsStaff(
  t: TestApp,
  staffToken: string,
  orgId: string,
  amount: number,
  idempotencyKey: string,
): Promise<Response> {
  const res = await postJson(
    t.app,
    "/v1/credits/consume",
    { user_id: orgId, amount, reason: "render", idempotency_key: idempotencyKey },
    { Authorization: `Bearer ${staffToken}` },
  );
  await settleAll(t);
  return res;
}

/** French consumer details written as an older instance (without the auto top-up hook) would have. */
export function frenchDetailsUnseen(t: TestApp, orgId: string): Promise<unknown> {
  return saveGivenBillingDetails(
    t.deps.db,
    orgId,
    {
      name: "Ann Buyer",
      email: "books@example.com",
      address: { line1: "1 Street", line2: null, postal_code: "75001", city: "Paris", country: "FR" },
      vatId: null,
    },
    null,
    t.clock.now(),
  );
}

/** How many "Auto top-up is paused" mails went out (to every recipient) so far. */
export async function pauseMailCount(t: TestApp): Promise<number> {
  return (await t.mails()).filter((m) => m.subject.startsWith("Auto top-up is paused")).length;
}
