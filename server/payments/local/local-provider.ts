// The local payment provider: the embedded stand-in for Stripe. It keeps checkout sessions,
// customers and subscriptions in the database, takes payments on its hosted page
// (/_checkout/{id}), bills renewals on its billing clock, and tells the billing API what happened
// only through Stripe-format, Stripe-signed webhook events (queued in deliveries.ts), exactly as
// Stripe would: the webhook handler cannot tell the two apart.
import { and, desc, eq, lte, ne, or } from "drizzle-orm";
import type {
  Catalogue,
  CreatedCheckout,
  CustomerStore,
  NewCheckout,
  PaymentProvider,
} from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import {
  type CheckoutSessionRow,
  checkoutSessions,
  type LocalCardSessionRow,
  type LocalSubscriptionRow,
  localCardSessions,
  localSubscriptions,
  users,
} from "../../db/schema/index.ts";
import type { Db, DbOrTx, Tx } from "../../db/types.ts";
import { addMonths } from "../../domain/ledger.ts";
import { decideVat, vatOf } from "../../domain/vat.ts";
import { newStripeId } from "../stripe/format.ts";
import { stripeWebhookReader } from "../stripe/webhook-reader.ts";
import { type BuyerDetailsErrors, type BuyerDetailsForm, readBuyerDetails } from "./buyer-details.ts";
import { type CardOutcome, cardOutcome } from "./cards.ts";
import { enqueueEvent } from "./deliveries.ts";
import {
  type CheckoutSessionInput,
  checkoutSessionCompletedEvent,
  invoicePaidEvent,
  invoicePaymentFailedEvent,
  type SaleTax,
  type SubscriptionInvoiceInput,
  type SubscriptionObjectInput,
  subscriptionDeletedEvent,
  subscriptionUpdatedEvent,
} from "./event-builders.ts";

/** Stripe's default: a hosted checkout session expires 24 hours after it is created. */
export const SESSION_LIFETIME_MS = 24 * 3_600_000;
/** After a failed renewal charge, try again after these delays; then cancel (Stripe's dunning, shortened). */
export const RENEWAL_RETRY_DELAYS_MS: readonly number[] = [3, 5, 7].map((d) => d * 86_400_000);

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

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

/** A card-update page lives an hour, like a Stripe Billing Portal session. */
export const CARD_SESSION_LIFETIME_MS = 3_600_000;

export type CardPage =
  | { ok: true; session: LocalCardSessionRow; subscription: LocalSubscriptionRow | undefined }
  | { ok: false; reason: "not_found" | "expired" };

export type CardUpdateResult =
  | { ok: true; redirectTo: string; settled: boolean }
  | { ok: false; reason: "not_found" | "expired" }
  | {
      ok: false;
      reason: "card";
      card: Extract<CardOutcome, { ok: false }>;
      page: Extract<CardPage, { ok: true }>;
    };

/** A session's tax, once its buyer's details are in (the hosted page shows the total from it). */
export const sessionHasDetails = (s: CheckoutSessionRow) =>
  s.buyerCountry !== null && s.taxTreatment !== null && s.amountTax !== null && s.taxRateBasisPoints !== null;

export interface LocalProvider extends PaymentProvider {
  readonly kind: "local";
  /** The session as its hosted page shows it; expired sessions are marked so. */
  findSession(id: string): Promise<CheckoutSessionRow | undefined>;
  /** The details the buyer's last payment was made with, to start the form from. */
  detailsOnFile(userId: string): Promise<BuyerDetailsForm | undefined>;
  /** Checks the buyer's details and puts the VAT they decide on the session (any number of times before paying). */
  setBuyerDetails(sessionId: string, form: BuyerDetailsForm): Promise<DetailsResult>;
  pay(sessionId: string, cardNumber: string): Promise<PayResult>;
  /** The card-update page's session and the subscription it is for. */
  findCardPage(id: string): Promise<CardPage>;
  /** Puts a new card on the user's subscription; a past-due invoice is charged to it at once. */
  updateCard(id: string, cardNumber: string): Promise<CardUpdateResult>;
  /** Bills every subscription whose period has ended by the billing clock (renewals, cancellations, changes, retries). */
  runBillingCycle(): Promise<number>;
}

export function createLocalProvider(deps: {
  db: Db;
  clock: Clock;
  catalogue: Catalogue;
  /** Origin the browser reaches this server on (the hosted page's URLs are built from it). */
  checkoutBaseUrl: string;
  /** The seller's country: decides the VAT (server/domain/vat.ts). */
  sellerCountry: string;
  /** The secret its webhook events are signed with, and checked with. */
  webhookSecret: string;
  customers: CustomerStore;
}): LocalProvider {
  const { db, clock, catalogue, customers } = deps;

  const productOf = (productId: string) => {
    const offer = catalogue.findTier(productId);
    if (!offer) throw new Error(`Local subscription for unknown product ${productId}`);
    return offer;
  };

  function subscriptionObjectInput(
    sub: LocalSubscriptionRow,
    status: SubscriptionObjectInput["status"],
  ): SubscriptionObjectInput {
    const offer = productOf(sub.productId);
    return {
      id: sub.id,
      customerId: sub.customerId,
      userId: sub.userId,
      productId: sub.productId,
      priceId: offer.priceId,
      unitAmount: offer.tier.unitAmount,
      currency: offer.tier.currency,
      subscriptionItemId: sub.subscriptionItemId,
      status,
      currentPeriod: { start: seconds(sub.currentPeriodStart), end: seconds(sub.currentPeriodEnd) },
      cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
      created: seconds(sub.createdAt),
      canceledAt: sub.canceledAt ? seconds(sub.canceledAt) : null,
      endedAt: status === "canceled" && sub.canceledAt ? seconds(sub.canceledAt) : null,
      latestInvoiceId: sub.openInvoiceId,
    };
  }

  /**
   * The tax of a subscription invoice: from the session's details for the first one, and from the
   * details on file at the time of each renewal (Stripe Tax taxes every invoice from the customer's
   * address then). Absent when no details were collected (a subscription older than VAT collection).
   */
  async function renewalTax(
    tx: DbOrTx,
    userId: string,
    net: number,
    now: Date,
  ): Promise<SaleTax | undefined> {
    const details = await customers.findBillingDetails(tx, userId);
    if (!details?.country) return undefined;
    const decision = decideVat({
      sellerCountry: deps.sellerCountry,
      buyerCountry: details.country,
      vatId: details.vatId,
      at: now,
    });
    return {
      amount: vatOf(net, decision.rateBasisPoints),
      rateBasisPoints: decision.rateBasisPoints,
      treatment: decision.treatment,
      buyer: {
        name: details.name,
        email: await emailOf(tx, userId),
        country: details.country,
        vatId: decision.vatId,
      },
    };
  }

  async function emailOf(tx: DbOrTx, userId: string): Promise<string | null> {
    const [row] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
    return row?.email ?? null;
  }

  function invoiceInput(
    sub: LocalSubscriptionRow,
    invoiceId: string,
    reason: SubscriptionInvoiceInput["billingReason"],
    period: { start: Date; end: Date },
    attemptCount: number,
    now: Date,
    tax: SaleTax | undefined,
  ): SubscriptionInvoiceInput {
    const offer = productOf(sub.productId);
    return {
      ...(tax ? { tax } : {}),
      id: invoiceId,
      customerId: sub.customerId,
      subscriptionId: sub.id,
      subscriptionItemId: sub.subscriptionItemId,
      userId: sub.userId,
      productId: sub.productId,
      productName: offer.tier.name,
      priceId: offer.priceId,
      billingReason: reason,
      amount: offer.tier.unitAmount,
      currency: offer.tier.currency,
      period: { start: seconds(period.start), end: seconds(period.end) },
      created: seconds(now),
      attemptCount,
    };
  }

  const meta = (now: Date) => ({ eventId: newStripeId("evt"), created: seconds(now) });

  /** The user's subscription that is still live at the provider (active or past due). */
  async function liveSubscriptionOf(
    tx: DbOrTx,
    userId: string,
    lock = false,
  ): Promise<LocalSubscriptionRow | undefined> {
    const query = tx
      .select()
      .from(localSubscriptions)
      .where(and(eq(localSubscriptions.userId, userId), ne(localSubscriptions.status, "canceled")))
      .orderBy(desc(localSubscriptions.createdAt))
      .limit(1);
    const [row] = lock ? await query.for("update") : await query;
    return row;
  }

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

  async function ensureCustomer(tx: DbOrTx, userId: string): Promise<string> {
    return (
      (await customers.findCustomerId(tx, userId)) ?? customers.saveCustomerId(tx, userId, newStripeId("cus"))
    );
  }

  async function updateSubscription(
    tx: DbOrTx,
    id: string,
    change: (sub: LocalSubscriptionRow) => Partial<LocalSubscriptionRow> | null,
  ) {
    const [sub] = await tx.select().from(localSubscriptions).where(eq(localSubscriptions.id, id));
    // Like Stripe, acting on a subscription that is already canceled is refused; we treat it as
    // done, which is what every caller wants (the effects are idempotent).
    if (!sub || sub.status === "canceled") return;
    const fields = change(sub);
    if (!fields) return;
    const [updated] = await tx
      .update(localSubscriptions)
      .set(fields)
      .where(eq(localSubscriptions.id, id))
      .returning();
    if (updated) {
      await enqueueEvent(
        tx,
        subscriptionUpdatedEvent(meta(clock.now()), subscriptionObjectInput(updated, updated.status), {}),
        clock.now(),
      );
    }
  }

  async function sessionTax(tx: DbOrTx, session: CheckoutSessionRow): Promise<SaleTax | undefined> {
    if (!sessionHasDetails(session)) return undefined;
    return {
      amount: session.amountTax ?? 0,
      rateBasisPoints: session.taxRateBasisPoints ?? 0,
      treatment: session.taxTreatment ?? "outside_eu",
      buyer: {
        name: session.buyerName,
        email: await emailOf(tx, session.userId),
        country: session.buyerCountry,
        vatId: session.buyerVatId,
      },
    };
  }

  async function completeSession(
    tx: Tx,
    session: CheckoutSessionRow,
    renewalsDecline: boolean,
    now: Date,
  ): Promise<void> {
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
        renewalsDecline,
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

  /** One subscription whose period ended at or before `now`: cancel, switch, charge or retry. */
  async function bill(tx: Tx, sub: LocalSubscriptionRow, now: Date): Promise<void> {
    if (sub.status === "active" && sub.cancelAtPeriodEnd) {
      const [ended] = await tx
        .update(localSubscriptions)
        .set({ status: "canceled", canceledAt: sub.currentPeriodEnd })
        .where(eq(localSubscriptions.id, sub.id))
        .returning();
      if (ended)
        await enqueueEvent(
          tx,
          subscriptionDeletedEvent(meta(now), subscriptionObjectInput(ended, "canceled")),
          now,
        );
      return;
    }
    let current = sub;
    if (sub.status === "active") {
      // A new period starts: the scheduled product (if any) is what it bills.
      const periodIndex = sub.periodIndex + 1;
      const [next] = await tx
        .update(localSubscriptions)
        .set({
          productId: sub.scheduledProductId ?? sub.productId,
          priceId: sub.scheduledProductId ? productOf(sub.scheduledProductId).priceId : sub.priceId,
          scheduledProductId: null,
          periodIndex,
          currentPeriodStart: sub.currentPeriodEnd,
          currentPeriodEnd: addMonths(sub.billingAnchor, periodIndex + 1),
          openInvoiceId: newStripeId("in"),
          failedAttempts: 0,
        })
        .where(eq(localSubscriptions.id, sub.id))
        .returning();
      if (!next) return;
      current = next;
    }
    const invoiceId = current.openInvoiceId ?? newStripeId("in");
    const period = { start: current.currentPeriodStart, end: current.currentPeriodEnd };
    const attempt = current.failedAttempts + 1;
    const tax = await renewalTax(tx, current.userId, productOf(current.productId).tier.unitAmount, now);
    if (!current.renewalsDecline) {
      await tx
        .update(localSubscriptions)
        .set({ status: "active", failedAttempts: 0, nextPaymentAttempt: null })
        .where(eq(localSubscriptions.id, sub.id));
      await enqueueEvent(
        tx,
        invoicePaidEvent(
          meta(now),
          invoiceInput(current, invoiceId, "subscription_cycle", period, attempt, now, tax),
          seconds(now),
        ),
        now,
      );
      return;
    }
    const delay = RENEWAL_RETRY_DELAYS_MS[attempt - 1];
    const nextAttempt = delay === undefined ? null : new Date(now.getTime() + delay);
    const [failed] = await tx
      .update(localSubscriptions)
      .set({
        status: nextAttempt ? "past_due" : "canceled",
        failedAttempts: attempt,
        nextPaymentAttempt: nextAttempt,
        canceledAt: nextAttempt ? null : now,
      })
      .where(eq(localSubscriptions.id, sub.id))
      .returning();
    await enqueueEvent(
      tx,
      invoicePaymentFailedEvent(
        meta(now),
        invoiceInput(current, invoiceId, "subscription_cycle", period, attempt, now, tax),
        nextAttempt ? seconds(nextAttempt) : null,
      ),
      now,
    );
    if (failed && !nextAttempt) {
      // Dunning gave up: Stripe's default setting cancels the subscription.
      await enqueueEvent(
        tx,
        subscriptionDeletedEvent(meta(now), subscriptionObjectInput(failed, "canceled")),
        now,
      );
    }
  }

  return {
    kind: "local",
    readWebhook: stripeWebhookReader(deps.webhookSecret),

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
        createdAt: now,
        expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
      });
      return { id, url };
    },

    setCancelAtPeriodEnd: (tx, subscriptionId, cancelAtPeriodEnd) =>
      updateSubscription(tx, subscriptionId, (sub) =>
        sub.cancelAtPeriodEnd === cancelAtPeriodEnd ? null : { cancelAtPeriodEnd },
      ),

    scheduleChange: (tx, subscriptionId, productId) =>
      updateSubscription(tx, subscriptionId, (sub) =>
        sub.scheduledProductId === productId ? null : { scheduledProductId: productId },
      ),

    async createPortalSession(tx, p) {
      const now = clock.now();
      const id = newStripeId("bps");
      await tx.insert(localCardSessions).values({
        id,
        userId: p.userId,
        returnUrl: p.returnUrl,
        createdAt: now,
        expiresAt: new Date(now.getTime() + CARD_SESSION_LIFETIME_MS),
      });
      return { url: `${deps.checkoutBaseUrl}/_checkout/billing/${id}` };
    },

    // The local stand-in takes no refunds (no Dashboard): its payments are all found by their own ids.
    invoiceOfPayment: async () => null,

    async findCardPage(id) {
      const [session] = await db.select().from(localCardSessions).where(eq(localCardSessions.id, id));
      if (!session) return { ok: false, reason: "not_found" };
      if (session.usedAt || session.expiresAt.getTime() <= clock.now().getTime())
        return { ok: false, reason: "expired" };
      return { ok: true, session, subscription: await liveSubscriptionOf(db, session.userId) };
    },

    async updateCard(id, cardNumber) {
      return db.transaction(async (tx): Promise<CardUpdateResult> => {
        const now = clock.now();
        const [session] = await tx
          .select()
          .from(localCardSessions)
          .where(eq(localCardSessions.id, id))
          .for("update");
        if (!session) return { ok: false, reason: "not_found" };
        if (session.usedAt || session.expiresAt.getTime() <= now.getTime())
          return { ok: false, reason: "expired" };
        const live = await liveSubscriptionOf(tx, session.userId, true);
        const card = cardOutcome(cardNumber);
        if (!card.ok)
          return { ok: false, reason: "card", card, page: { ok: true, session, subscription: live } };
        await tx.update(localCardSessions).set({ usedAt: now }).where(eq(localCardSessions.id, id));
        if (!live) return { ok: true, redirectTo: session.returnUrl, settled: false };
        const [withCard] = await tx
          .update(localSubscriptions)
          .set({ renewalsDecline: card.renewalsDecline })
          .where(eq(localSubscriptions.id, live.id))
          .returning();
        // Stripe retries the open invoice when a new default card is attached: it is paid now
        // (or declined again, with the card that declines renewals), not at the next retry.
        if (withCard?.status !== "past_due")
          return { ok: true, redirectTo: session.returnUrl, settled: false };
        await bill(tx, withCard, now);
        return { ok: true, redirectTo: session.returnUrl, settled: !card.renewalsDecline };
      });
    },

    async cancelNow(tx, subscriptionId) {
      const now = clock.now();
      const [sub] = await tx
        .select()
        .from(localSubscriptions)
        .where(eq(localSubscriptions.id, subscriptionId));
      if (!sub || sub.status === "canceled") return;
      const [ended] = await tx
        .update(localSubscriptions)
        .set({ status: "canceled", canceledAt: now })
        .where(eq(localSubscriptions.id, subscriptionId))
        .returning();
      // A refund of the local provider's money is only this record; nothing else to move.
      if (ended)
        await enqueueEvent(
          tx,
          subscriptionDeletedEvent(meta(now), subscriptionObjectInput(ended, "canceled")),
          now,
        );
    },

    async findSession(id) {
      const [session] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
      if (session?.provider !== "local") return undefined;
      if (session.status === "open" && session.expiresAt.getTime() <= clock.now().getTime()) {
        return { ...session, status: "expired" };
      }
      return session;
    },

    async detailsOnFile(userId) {
      const details = await customers.findBillingDetails(db, userId);
      if (!details?.country) return undefined;
      return { name: details.name ?? "", country: details.country, vatId: details.vatId ?? "" };
    },

    async setBuyerDetails(sessionId, form) {
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

    async pay(sessionId, cardNumber) {
      return db.transaction(async (tx): Promise<PayResult> => {
        const now = clock.now();
        const open = await openSession(tx, sessionId, now);
        if (!open.ok) return open;
        const { session } = open;
        if (!sessionHasDetails(session)) return { ok: false, reason: "details_missing", session };
        const card = cardOutcome(cardNumber);
        if (!card.ok) return { ok: false, reason: "card", card, session };
        await completeSession(tx, session, card.renewalsDecline, now);
        return { ok: true, redirectTo: session.successUrl };
      });
    },

    async runBillingCycle() {
      const now = clock.now();
      // Due: an active subscription whose period has ended, or a past-due one whose next payment
      // attempt has come. Checked again under the row lock: another instance's billing job may
      // have listed the same subscription and billed it in between (READ COMMITTED re-evaluates
      // this condition on the row it waited for), and billing it again would charge the next
      // period early (or retry a declined charge twice).
      const dueNow = or(
        and(eq(localSubscriptions.status, "active"), lte(localSubscriptions.currentPeriodEnd, now)),
        and(eq(localSubscriptions.status, "past_due"), lte(localSubscriptions.nextPaymentAttempt, now)),
      );
      let billed = 0;
      // One subscription may need several steps after a long jump of the clock (months of
      // renewals): repeat until nothing is due.
      for (let round = 0; round < 500; round++) {
        const due = await db
          .select({ id: localSubscriptions.id })
          .from(localSubscriptions)
          .where(dueNow)
          .orderBy(localSubscriptions.id);
        if (due.length === 0) return billed;
        for (const { id } of due) {
          const done = await db.transaction(async (tx) => {
            const [sub] = await tx
              .select()
              .from(localSubscriptions)
              .where(and(eq(localSubscriptions.id, id), dueNow))
              .for("update");
            if (!sub) return false;
            await bill(tx, sub, now);
            return true;
          });
          if (done) billed++;
        }
      }
      return billed;
    },
  };
}
