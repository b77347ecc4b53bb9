// The local payment provider: the embedded stand-in for Stripe. It keeps checkout sessions,
// customers and subscriptions in the database, takes payments on its hosted page
// (/_checkout/{id}), bills renewals on its billing clock, and tells the billing API what happened
// only through Stripe-format, Stripe-signed webhook events (queued in deliveries.ts), exactly as
// Stripe would: the webhook handler cannot tell the two apart.
import { and, eq, lte, or } from "drizzle-orm";
import type { Catalogue } from "../../billing/catalogue.ts";
import { findCustomerId, saveCustomerId } from "../../billing/subscription-store.ts";
import type { Clock } from "../../clock.ts";
import {
  type CheckoutSessionRow,
  checkoutSessions,
  type LocalSubscriptionRow,
  localSubscriptions,
} from "../../db/schema/index.ts";
import type { Db, DbOrTx, Tx } from "../../db/types.ts";
import { addMonths } from "../../domain/ledger.ts";
import type { CreatedCheckout, NewCheckout, PaymentProvider } from "../provider.ts";
import {
  type CheckoutSessionInput,
  checkoutSessionCompletedEvent,
  invoicePaidEvent,
  invoicePaymentFailedEvent,
  newStripeId,
  type SubscriptionInvoiceInput,
  type SubscriptionObjectInput,
  subscriptionDeletedEvent,
  subscriptionUpdatedEvent,
} from "../stripe-events.ts";
import { type CardOutcome, cardOutcome } from "./cards.ts";
import { enqueueEvent } from "./deliveries.ts";

/** Stripe's default: a hosted checkout session expires 24 hours after it is created. */
export const SESSION_LIFETIME_MS = 24 * 3_600_000;
/** After a failed renewal charge, try again after these delays; then cancel (Stripe's dunning, shortened). */
export const RENEWAL_RETRY_DELAYS_MS: readonly number[] = [3, 5, 7].map((d) => d * 86_400_000);

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

export type PayResult =
  | { ok: true; redirectTo: string }
  | { ok: false; reason: "not_found" | "expired" | "already_paid" }
  | { ok: false; reason: "card"; card: Extract<CardOutcome, { ok: false }>; session: CheckoutSessionRow };

export interface LocalProvider extends PaymentProvider {
  readonly kind: "local";
  /** The session as its hosted page shows it; expired sessions are marked so. */
  findSession(id: string): Promise<CheckoutSessionRow | undefined>;
  pay(sessionId: string, cardNumber: string): Promise<PayResult>;
  /** Bills every subscription whose period has ended by the billing clock (renewals, cancellations, changes, retries). */
  runBillingCycle(): Promise<number>;
}

export function createLocalProvider(deps: {
  db: Db;
  clock: Clock;
  catalogue: Catalogue;
  /** Origin the browser reaches this server on (the hosted page's URLs are built from it). */
  checkoutBaseUrl: string;
}): LocalProvider {
  const { db, clock, catalogue } = deps;

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

  function invoiceInput(
    sub: LocalSubscriptionRow,
    invoiceId: string,
    reason: SubscriptionInvoiceInput["billingReason"],
    period: { start: Date; end: Date },
    attemptCount: number,
    now: Date,
  ): SubscriptionInvoiceInput {
    const offer = productOf(sub.productId);
    return {
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

  async function ensureCustomer(tx: DbOrTx, userId: string): Promise<string> {
    return (await findCustomerId(tx, userId)) ?? saveCustomerId(tx, userId, newStripeId("cus"));
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

  async function completeSession(
    tx: Tx,
    session: CheckoutSessionRow,
    renewalsDecline: boolean,
    now: Date,
  ): Promise<void> {
    const input: CheckoutSessionInput = {
      id: session.id,
      mode: session.mode,
      userId: session.userId,
      customerId: session.customerId,
      productId: session.productId,
      priceId: session.priceId,
      amountTotal: session.amount,
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
        invoiceInput(sub, sub.openInvoiceId, "subscription_create", period, 1, now),
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
    if (!current.renewalsDecline) {
      await tx
        .update(localSubscriptions)
        .set({ status: "active", failedAttempts: 0, nextPaymentAttempt: null })
        .where(eq(localSubscriptions.id, sub.id));
      await enqueueEvent(
        tx,
        invoicePaidEvent(
          meta(now),
          invoiceInput(current, invoiceId, "subscription_cycle", period, attempt, now),
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
        invoiceInput(current, invoiceId, "subscription_cycle", period, attempt, now),
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

    async pay(sessionId, cardNumber) {
      return db.transaction(async (tx): Promise<PayResult> => {
        const now = clock.now();
        const [session] = await tx
          .select()
          .from(checkoutSessions)
          .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.provider, "local")))
          .for("update");
        if (!session) return { ok: false, reason: "not_found" };
        if (session.status === "complete") return { ok: false, reason: "already_paid" };
        if (session.status === "expired" || session.expiresAt.getTime() <= now.getTime()) {
          await tx
            .update(checkoutSessions)
            .set({ status: "expired" })
            .where(eq(checkoutSessions.id, sessionId));
          return { ok: false, reason: "expired" };
        }
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
