// Test helpers for the local provider's side of auto top-up: a card saved through its setup page,
// billing details on file, a charge for a pack, and the events the provider queued (read back as
// Stripe sent them, and as billing reads them).
import { randomUUID } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { expect } from "vitest";
import type { VatIdStatus } from "../../contract/vat-id-verification.ts";
import type { AutoTopUpCharge } from "../billing/ports/payment-provider.ts";
import {
  billingCustomers,
  cardSetupSessions,
  localPaymentMethods,
  vatIdChecks,
  webhookDeliveries,
} from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { parseStripeEvent } from "../payments/stripe/event-parser.ts";
import { TOP_UP } from "./billing.ts";
import type { TestApp } from "./test-app.ts";

export const CONSENT =
  "By saving this card you allow Test Operator GmbH to charge it for the automatic credit purchases you turn on under Billing.";

/** The contract's cards, by what they do (AUTO-TOP-UP.md, "The local checkout"). */
export const CARD = {
  pays: "4242 4242 4242 4242",
  authThenPays: "4000 0025 0000 3155",
  alwaysAuth: "4000 0027 6000 3184",
  insufficientFunds: "4000 0082 6000 3178",
  declinesCharges: "4000 0000 0000 0341",
  declined: "4000 0000 0000 0002",
} as const;

/** Opens a card-setup page for the organisation, as billing would. */
export async function openSetup(t: TestApp, orgId: string, openedBy: string) {
  return t.local.provider.createCardSetupSession(t.deps.db, {
    orgId,
    openedBy,
    email: "billing@example.com",
    currency: "eur",
    successUrl: "https://portal.test/profile/billing?card=saved",
    cancelUrl: "https://portal.test/profile/billing?card=cancelled",
    consentText: CONSENT,
  });
}

/** Saves `card` through a new setup page (authenticating when it asks); answers the card's pm_ id. */
export async function saveCard(t: TestApp, orgId: string, card: string): Promise<string> {
  const { id } = await openSetup(t, orgId, orgId);
  const saved = await t.local.provider.submitCard(id, card, true);
  expect(saved.ok).toBe(true);
  const [session] = await t.deps.db.select().from(cardSetupSessions).where(eq(cardSetupSessions.id, id));
  const [pm] = await t.deps.db
    .select()
    .from(localPaymentMethods)
    .where(eq(localPaymentMethods.setupIntentId, session?.setupIntentId ?? ""));
  if (!pm) throw new Error("no card saved");
  return pm.id;
}

/** Puts billing details on the organisation's customer (made by opening a setup page first). */
export async function giveBillingDetails(
  db: Db,
  orgId: string,
  details: { name: string; country: string; vatId?: string; vatIdStatus?: VatIdStatus },
) {
  const [customer] = await db
    .update(billingCustomers)
    .set({
      name: details.name,
      country: details.country,
      vatId: details.vatId ?? null,
      detailsUpdatedAt: new Date(),
    })
    .where(eq(billingCustomers.userId, orgId))
    .returning();
  if (!customer) throw new Error("the organisation has no customer yet");
  if (details.vatId && details.vatIdStatus)
    await db.insert(vatIdChecks).values({
      customerId: customer.customerId,
      vatId: details.vatId,
      status: details.vatIdStatus,
      checkedAt: new Date(),
    });
}

/** A charge of the 500-credit pack to `paymentMethodId`, as billing would ask for it. */
export async function chargeFor(
  t: TestApp,
  orgId: string,
  paymentMethodId: string,
): Promise<AutoTopUpCharge> {
  const pack = t.catalogue.findTopUp(TOP_UP("500").product);
  if (!pack) throw new Error("no 500 pack");
  const [customer] = await t.deps.db
    .select()
    .from(billingCustomers)
    .where(eq(billingCustomers.userId, orgId));
  return {
    attemptId: randomUUID(),
    orgId,
    customerId: customer?.customerId ?? "",
    paymentMethodId,
    productId: pack.productId,
    priceId: pack.priceId,
    description: "Auto top-up: 500 credits",
    amount: pack.topUp.unitAmount,
    currency: pack.topUp.currency,
  };
}

export interface QueuedEvent {
  id: string;
  type: string;
  created: number;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
}

/** The events the provider queued (optionally of one type), oldest first. */
export async function queuedEvents(db: Db, type?: string): Promise<QueuedEvent[]> {
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(type ? eq(webhookDeliveries.type, type) : undefined)
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
  return rows.map((r) => JSON.parse(r.payload) as QueuedEvent);
}

/** The event as billing reads it (the Stripe event parser). */
export function billingEventOf(event: QueuedEvent) {
  const parsed = parseStripeEvent(event);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.event;
}
