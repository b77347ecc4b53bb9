// The local checkout's hosted page behind the scenes: a session is created for billing, shown,
// given the buyer's details (which decide the VAT), and paid with a test card. Paying completes
// it and queues the events Stripe would send: checkout.session.completed, and for a subscription
// its first invoice.paid; a pack paid with the dispute card is then disputed (disputes.ts).
import { and, eq, type SQL } from "drizzle-orm";
import type {
  CreatedCheckout,
  CustomerDetails,
  CustomerStore,
  NewCheckout,
  SavedCustomerDetails,
} from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import { type CheckoutSessionRow, checkoutSessions, localSubscriptions } from "../../db/schema/index.ts";
import type { Db, DbOrTx, Tx } from "../../db/types.ts";
import { addMonths } from "../../domain/ledger.ts";
import { vatOf } from "../../domain/vat.ts";
import { newStripeId } from "../stripe/format.ts";
import { type BuyerDetailsErrors, type BuyerDetailsForm, readBuyerDetails } from "./buyer-details.ts";
import { type CardOutcome, cardOutcome } from "./cards.ts";
import { enqueueEvent } from "./deliveries.ts";
import { openDispute } from "./disputes.ts";
import {
  type CheckoutSessionInput,
  checkoutSessionCompletedEvent,
  invoicePaidEvent,
} from "./event-builders.ts";
import { type LocalStripeObjects, seconds, sessionHasDetails } from "./stripe-objects.ts";

/** Stripe's default: a hosted checkout session expires 24 hours after it is created. */
export const SESSION_LIFETIME_MS = 24 * 3_600_000;

type Unpayable = { ok: false; reason: "not_found" | "expired" | "already_paid" };

export type PayResult =
  | { ok: true; redirectTo: string }
  | Unpayable
  | { ok: false; reason: "details_missing"; session: CheckoutSessionRow }
  | { ok: false; reason: "card"; card: Extract<CardOutcome, { ok: false }>; session: CheckoutSessionRow };

export type DetailsResult =
  | { ok: true }
  | Unpayable
  | { ok: false; reason: "invalid"; errors: BuyerDetailsErrors; session: CheckoutSessionRow };

/** The session, locked, if it can still be paid; an expired one is marked so. */
async function openSession(
  tx: Tx,
  sessionId: string,
  now: Date,
): Promise<{ ok: true; session: CheckoutSessionRow } | Unpayable> {
  const [session] = await tx
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.provider, "local")))
    .for("update");
  if (!session) return { ok: false, reason: "not_found" };
  if (session.status === "complete") return { ok: false, reason: "already_paid" };
  if (session.status === "expired" || session.expiresAt.getTime() <= now.getTime()) {
    await tx.update(checkoutSessions).set({ status: "expired" }).where(eq(checkoutSessions.id, sessionId));
    return { ok: false, reason: "expired" };
  }
  return { ok: true, session };
}

/**
 * A paid session: completed, and the events Stripe would send queued (for a subscription, its
 * first period starts now and its first invoice is paid).
 */
async function completeSession(
  tx: Tx,
  session: CheckoutSessionRow,
  card: { renewalsDecline: boolean; disputed: boolean },
  now: Date,
  objects: LocalStripeObjects,
): Promise<void> {
  const { invoiceInput, meta, sessionTax } = objects;
  const tax = await sessionTax(tx, session);
  const input: CheckoutSessionInput = {
    id: session.id,
    mode: session.mode,
    userId: session.userId,
    customerId: session.customerId,
    productId: session.productId,
    priceId: session.priceId,
    amountSubtotal: session.amount,
    ...(tax ? { tax } : {}),
    currency: session.currency,
    created: seconds(session.createdAt),
    expiresAt: seconds(session.expiresAt),
    successUrl: session.successUrl,
    cancelUrl: session.cancelUrl,
    subscriptionId: null,
    invoiceId: null,
    paymentIntentId: null,
  };
  if (session.mode === "payment") {
    input.paymentIntentId = newStripeId("pi");
    await tx
      .update(checkoutSessions)
      .set({ status: "complete", completedAt: now, paymentIntentId: input.paymentIntentId })
      .where(eq(checkoutSessions.id, session.id));
    await enqueueEvent(tx, checkoutSessionCompletedEvent(meta(now), input), now);
    // Stripe's dispute card: the card holder disputes the whole payment at once.
    if (card.disputed) {
      const amount = session.amount + (tax?.amount ?? 0);
      await openDispute(
        tx,
        meta(now),
        { paymentIntentId: input.paymentIntentId, amount, currency: session.currency },
        now,
      );
    }
    return;
  }
  const [sub] = await tx
    .insert(localSubscriptions)
    .values({
      id: newStripeId("sub"),
      userId: session.userId,
      customerId: session.customerId,
      productId: session.productId,
      priceId: session.priceId,
      subscriptionItemId: newStripeId("si"),
      status: "active",
      billingAnchor: now,
      currentPeriodStart: now,
      currentPeriodEnd: addMonths(now, 1),
      renewalsDecline: card.renewalsDecline,
      openInvoiceId: newStripeId("in"),
      createdAt: now,
    })
    .returning();
  if (!sub?.openInvoiceId) throw new Error("local subscription was not created");
  input.subscriptionId = sub.id;
  input.invoiceId = sub.openInvoiceId;
  await tx
    .update(checkoutSessions)
    .set({ status: "complete", completedAt: now, subscriptionId: sub.id, invoiceId: sub.openInvoiceId })
    .where(eq(checkoutSessions.id, session.id));
  const period = { start: sub.currentPeriodStart, end: sub.currentPeriodEnd };
  // Stripe sends these in no guaranteed order; the webhook handler copes with any.
  await enqueueEvent(tx, checkoutSessionCompletedEvent(meta(now), input), now);
  await enqueueEvent(
    tx,
    invoicePaidEvent(
      meta(now),
      invoiceInput(sub, sub.openInvoiceId, "subscription_create", period, 1, now, tax),
      seconds(now),
    ),
    now,
  );
}

/** Marks the organisation's local checkout sessions still open, and matching `which`, expired. */
async function expireOpen(tx: DbOrTx, orgId: string, which: SQL | undefined): Promise<void> {
  await tx
    .update(checkoutSessions)
    .set({ status: "expired" })
    .where(
      and(
        eq(checkoutSessions.userId, orgId),
        which,
        eq(checkoutSessions.provider, "local"),
        eq(checkoutSessions.status, "open"),
      ),
    );
}

export function hostedCheckout(deps: {
  db: Db;
  clock: Clock;
  customers: CustomerStore;
  /** Origin the browser reaches this server on (the hosted page's URLs are built from it). */
  checkoutBaseUrl: string;
  /** The seller's country: decides the VAT (server/domain/vat.ts). */
  sellerCountry: string;
  objects: LocalStripeObjects;
}) {
  const { db, clock, customers } = deps;

  async function ensureCustomer(tx: DbOrTx, userId: string): Promise<string> {
    return (
      (await customers.findCustomerId(tx, userId)) ?? customers.saveCustomerId(tx, userId, newStripeId("cus"))
    );
  }

  return {
    async createCheckoutSession(tx: DbOrTx, checkout: NewCheckout): Promise<CreatedCheckout> {
      const now = clock.now();
      const id = newStripeId("cs_test");
      const url = `${deps.checkoutBaseUrl}/_checkout/${id}`;
      await tx.insert(checkoutSessions).values({
        id,
        provider: "local",
        userId: checkout.userId,
        mode: checkout.mode,
        productId: checkout.productId,
        priceId: checkout.priceId,
        amount: checkout.amount,
        currency: checkout.currency,
        status: "open",
        url,
        successUrl: checkout.successUrl,
        cancelUrl: checkout.cancelUrl,
        customerId: await ensureCustomer(tx, checkout.userId),
        openedBy: checkout.openedBy,
        createdAt: now,
        expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
      });
      return { id, url };
    },

    /**
     * The stand-in keeps no customer record of its own: the details billing saves next to the
     * customer id (billing_customers) are what its invoices and renewals read, as Stripe reads its
     * customer's. So it only makes the customer when the organisation has none yet. A VAT ID is
     * well-formed by now (PUT /v1/billing/details refuses any other): the stand-in confirms it at
     * once, as its checkout does (decision 031).
     */
    async saveCustomerDetails(
      tx: DbOrTx,
      orgId: string,
      details: CustomerDetails,
    ): Promise<SavedCustomerDetails> {
      return { customerId: await ensureCustomer(tx, orgId), vatIdStatus: details.vatId ? "verified" : null };
    },

    async expireOpenCheckouts(tx: DbOrTx, userId: string, openedBy?: string): Promise<void> {
      // In the deleting transaction: a payment of one of them waits for it (openSession locks the
      // row), then finds the session expired.
      await expireOpen(
        tx,
        userId,
        openedBy === undefined ? undefined : eq(checkoutSessions.openedBy, openedBy),
      );
    },

    async expireSubscriptionCheckouts(tx: DbOrTx, orgId: string): Promise<void> {
      // A session being paid has been marked complete by its own payment (pay, below) already.
      await expireOpen(tx, orgId, eq(checkoutSessions.mode, "subscription"));
    },

    async findSession(id: string): Promise<CheckoutSessionRow | undefined> {
      const [session] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
      if (session?.provider !== "local") return undefined;
      if (session.status === "open" && session.expiresAt.getTime() <= clock.now().getTime()) {
        return { ...session, status: "expired" as const };
      }
      return session;
    },

    async detailsOnFile(userId: string): Promise<BuyerDetailsForm | undefined> {
      const details = await customers.findBillingDetails(db, userId);
      if (!details?.country) return undefined;
      return { name: details.name ?? "", country: details.country, vatId: details.vatId ?? "" };
    },

    async setBuyerDetails(sessionId: string, form: BuyerDetailsForm): Promise<DetailsResult> {
      return db.transaction(async (tx): Promise<DetailsResult> => {
        const now = clock.now();
        const open = await openSession(tx, sessionId, now);
        if (!open.ok) return open;
        const { session } = open;
        const read = readBuyerDetails(form, deps.sellerCountry, now);
        if (!read.ok) return { ok: false, reason: "invalid", errors: read.errors, session };
        const { decision } = read;
        await tx
          .update(checkoutSessions)
          .set({
            buyerName: read.name,
            buyerCountry: decision.country,
            buyerVatId: decision.vatId,
            taxTreatment: decision.treatment,
            taxRateBasisPoints: decision.rateBasisPoints,
            amountTax: vatOf(session.amount, decision.rateBasisPoints),
          })
          .where(eq(checkoutSessions.id, sessionId));
        return { ok: true };
      });
    },

    async pay(sessionId: string, cardNumber: string): Promise<PayResult> {
      return db.transaction(async (tx): Promise<PayResult> => {
        const now = clock.now();
        const open = await openSession(tx, sessionId, now);
        if (!open.ok) return open;
        const { session } = open;
        if (!sessionHasDetails(session)) return { ok: false, reason: "details_missing", session };
        const card = cardOutcome(cardNumber, session.mode === "payment");
        if (!card.ok) return { ok: false, reason: "card", card, session };
        await completeSession(tx, session, card, now, deps.objects);
        return { ok: true, redirectTo: session.successUrl };
      });
    },
  };
}
