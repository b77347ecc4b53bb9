// The local checkout's card-setup page behind the scenes (Stripe Checkout in setup mode): a session
// opened for billing, a test card saved on it (after a simulated 3-D Secure step for the cards that
// ask for one), and the saved cards retrieved and detached. Saving tells billing as Stripe does:
// checkout.session.completed (mode setup) and setup_intent.succeeded, queued in the same
// transaction; billing saves the card from those, never from the redirect.
import { and, eq, isNull } from "drizzle-orm";
import type {
  CreatedCheckout,
  CustomerStore,
  NewCardSetup,
  RetrievedCard,
} from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import {
  type CardSetupSessionRow,
  cardSetupSessions,
  type LocalPaymentMethodRow,
  localPaymentMethods,
} from "../../db/schema/index.ts";
import type { Db, DbOrTx, Tx } from "../../db/types.ts";
import { newStripeId } from "../stripe/format.ts";
import { type SetupCardOutcome, setupCardOutcome } from "./cards.ts";
import { enqueueEvent } from "./deliveries.ts";
import { SESSION_LIFETIME_MS } from "./hosted-checkout.ts";
import {
  type PaymentMethodInput,
  paymentMethodDetachedEvent,
  setupIntentSucceededEvent,
  setupSessionCompletedEvent,
} from "./saved-card-events.ts";
import { type LocalStripeObjects, seconds } from "./stripe-objects.ts";

/** Every test card is a Visa. */
const BRAND = "visa";
/** Test cards have no expiry of their own: each is saved as valid for three more years. */
const YEARS_VALID = 3;

type Gone = { ok: false; reason: "not_found" | "expired" | "complete" };

export type SetupPage = { ok: true; session: CardSetupSessionRow } | Gone;

export type SaveCardResult =
  | { ok: true; redirectTo: string }
  /** The card asks for 3-D Secure: the page shows the authentication step first. */
  | { ok: false; reason: "authenticate"; session: CardSetupSessionRow; cardNumber: string }
  | {
      ok: false;
      reason: "card";
      card: Extract<SetupCardOutcome, { ok: false }>;
      session: CardSetupSessionRow;
    }
  | Gone;

const isExpired = (s: CardSetupSessionRow, now: Date) =>
  s.status === "expired" || (s.status === "open" && s.expiresAt.getTime() <= now.getTime());

export function paymentMethodInput(pm: LocalPaymentMethodRow): PaymentMethodInput {
  return {
    id: pm.id,
    customerId: pm.detachedAt ? null : pm.customerId,
    brand: pm.brand,
    last4: pm.last4,
    expMonth: pm.expMonth,
    expYear: pm.expYear,
    created: seconds(pm.createdAt),
  };
}

export function cardSetups(deps: {
  db: Db;
  clock: Clock;
  customers: CustomerStore;
  /** Origin the browser reaches this server on (the hosted page's URLs are built from it). */
  checkoutBaseUrl: string;
  objects: Pick<LocalStripeObjects, "meta">;
}) {
  const { db, clock, customers } = deps;
  const { meta } = deps.objects;

  /** The session, locked, if a card can still be saved on it; an expired one is marked so. */
  async function openSetup(tx: Tx, id: string, now: Date): Promise<SetupPage> {
    const [session] = await tx
      .select()
      .from(cardSetupSessions)
      .where(and(eq(cardSetupSessions.id, id), eq(cardSetupSessions.provider, "local")))
      .for("update");
    if (!session) return { ok: false, reason: "not_found" };
    if (session.status === "complete") return { ok: false, reason: "complete" };
    if (isExpired(session, now)) {
      await tx.update(cardSetupSessions).set({ status: "expired" }).where(eq(cardSetupSessions.id, id));
      return { ok: false, reason: "expired" };
    }
    return { ok: true, session };
  }

  /** Saves the card on the session and queues the two events Stripe sends for it. */
  async function saveCard(tx: Tx, session: CardSetupSessionRow, digits: string, now: Date) {
    const setupIntentId = newStripeId("seti");
    const [pm] = await tx
      .insert(localPaymentMethods)
      .values({
        id: newStripeId("pm"),
        customerId: session.customerId,
        orgId: session.orgId,
        cardNumber: digits,
        brand: BRAND,
        last4: digits.slice(-4),
        expMonth: 12,
        expYear: now.getUTCFullYear() + YEARS_VALID,
        setupIntentId,
        createdAt: now,
      })
      .returning();
    if (!pm) throw new Error("local payment method was not saved");
    await tx
      .update(cardSetupSessions)
      .set({ status: "complete", setupIntentId, completedAt: now })
      .where(eq(cardSetupSessions.id, session.id));
    // Stripe sends these in no guaranteed order; billing saves the card once per SetupIntent.
    await enqueueEvent(
      tx,
      setupSessionCompletedEvent(meta(now), {
        id: session.id,
        orgId: session.orgId,
        customerId: session.customerId,
        email: await customers.findBillingEmail(tx, session.orgId),
        currency: session.currency,
        consentText: session.consentText,
        created: seconds(session.createdAt),
        expiresAt: seconds(session.expiresAt),
        successUrl: session.successUrl,
        cancelUrl: session.cancelUrl,
        setupIntentId,
      }),
      now,
    );
    await enqueueEvent(
      tx,
      setupIntentSucceededEvent(meta(now), {
        id: setupIntentId,
        orgId: session.orgId,
        openedBy: session.openedBy,
        customerId: session.customerId,
        paymentMethodId: pm.id,
        created: seconds(now),
      }),
      now,
    );
  }

  /**
   * Saves a test card: `authenticated` is the page's simulated 3-D Secure step, passed; a card
   * that asks for it is not saved without it.
   */
  async function submitCard(id: string, cardNumber: string, authenticated: boolean): Promise<SaveCardResult> {
    return db.transaction(async (tx): Promise<SaveCardResult> => {
      const now = clock.now();
      const open = await openSetup(tx, id, now);
      if (!open.ok) return open;
      const { session } = open;
      const card = setupCardOutcome(cardNumber);
      if (!card.ok) return { ok: false, reason: "card", card, session };
      if (card.authentication && !authenticated)
        return { ok: false, reason: "authenticate", session, cardNumber: card.digits };
      await saveCard(tx, session, card.digits, now);
      return { ok: true, redirectTo: session.successUrl };
    });
  }

  return {
    async createCardSetupSession(tx: DbOrTx, setup: NewCardSetup): Promise<CreatedCheckout> {
      const now = clock.now();
      const id = newStripeId("cs_test");
      const url = `${deps.checkoutBaseUrl}/_checkout/setup/${id}`;
      const customerId =
        (await customers.findCustomerId(tx, setup.orgId)) ??
        (await customers.saveCustomerId(tx, setup.orgId, newStripeId("cus")));
      await tx.insert(cardSetupSessions).values({
        id,
        provider: "local",
        orgId: setup.orgId,
        openedBy: setup.openedBy,
        customerId,
        currency: setup.currency,
        status: "open",
        url,
        successUrl: setup.successUrl,
        cancelUrl: setup.cancelUrl,
        consentText: setup.consentText,
        createdAt: now,
        expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
      });
      return { id, url };
    },

    /** The setup page's session as it stands (not locked: a page view changes nothing). */
    async findSetupPage(id: string): Promise<SetupPage> {
      const [session] = await db.select().from(cardSetupSessions).where(eq(cardSetupSessions.id, id));
      if (session?.provider !== "local") return { ok: false, reason: "not_found" };
      if (session.status === "complete") return { ok: false, reason: "complete" };
      if (isExpired(session, clock.now())) return { ok: false, reason: "expired" };
      return { ok: true, session };
    },

    submitCard,

    /** Closes the organisation's open setup pages (only those `openedBy` opened, when given). */
    async expireOpenSetups(tx: DbOrTx, orgId: string, openedBy?: string): Promise<void> {
      await tx
        .update(cardSetupSessions)
        .set({ status: "expired" })
        .where(
          and(
            eq(cardSetupSessions.orgId, orgId),
            openedBy === undefined ? undefined : eq(cardSetupSessions.openedBy, openedBy),
            eq(cardSetupSessions.provider, "local"),
            eq(cardSetupSessions.status, "open"),
          ),
        );
    },

    /** The card as Stripe answers it: detached, it names no customer any more (paymentMethodInput). */
    async retrieveCard(tx: DbOrTx, paymentMethodId: string): Promise<RetrievedCard | null> {
      const [pm] = await tx
        .select()
        .from(localPaymentMethods)
        .where(eq(localPaymentMethods.id, paymentMethodId));
      if (!pm) return null;
      return {
        paymentMethodId: pm.id,
        customerId: paymentMethodInput(pm).customerId,
        brand: pm.brand,
        last4: pm.last4,
        expMonth: pm.expMonth,
        expYear: pm.expYear,
      };
    },

    /** Detaches the card once: only the first call finds it attached, and only it tells billing. */
    async detachCard(tx: DbOrTx, paymentMethodId: string): Promise<void> {
      const now = clock.now();
      const [detached] = await tx
        .update(localPaymentMethods)
        .set({ detachedAt: now })
        .where(and(eq(localPaymentMethods.id, paymentMethodId), isNull(localPaymentMethods.detachedAt)))
        .returning();
      if (!detached) return;
      await enqueueEvent(
        tx,
        paymentMethodDetachedEvent(meta(now), paymentMethodInput(detached), detached.customerId),
        now,
      );
    },
  };
}
