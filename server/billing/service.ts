import { isUtf8 } from "node:buffer";
// The billing service: runs the domain's decisions (server/domain/subscription.ts,
// server/billing/fulfilment.ts) against the database and the payment provider. Every change to a
// user's credits or subscription runs in one transaction holding the user's row lock, so webhook
// events, user commands and spends for one user take turns.
import { and, eq, TransactionRollbackError } from "drizzle-orm";
import type { Logger } from "pino";
import type { LedgerEntry } from "../../contract/billing.ts";
import { PRODUCT_NAME } from "../../contract/brand.ts";
import { invoicePdfName } from "../../contract/invoice-document.ts";
import type { BillingDetails, Invoice, InvoiceSummary } from "../../contract/invoices.ts";
import type { AccountHooks } from "../accounts/hooks.ts";
import type { Clock } from "../clock.ts";
import { checkoutSessions, webhookEvents } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import {
  type CommandResult,
  cancel,
  checkoutAllowed,
  periodEnded,
  type SubscriptionEffect,
  type SubscriptionState,
  scheduleChange,
  topUpAllowed,
} from "../domain/subscription.ts";
import type { Seller } from "../domain/vat.ts";
import { ApiError } from "../http/errors.ts";
import type { PaymentProvider } from "../payments/provider.ts";
import { type BillingEvent, parseStripeEvent } from "../payments/stripe-events.ts";
import { verifyWebhook } from "../payments/stripe-signature.ts";
import type { BillingMailSender } from "./billing-mails.ts";
import type { Catalogue } from "./catalogue.ts";
import { fulfil, initialFreeGrant } from "./fulfilment.ts";
import { invoicePdfRefusal, renderInvoicePdf } from "./invoice-pdf.ts";
import { invoiceSummary, invoiceView } from "./invoice-view.ts";
import { recordInvoiceDocument, userInvoice, userInvoices } from "./invoices.ts";
import { insertGrant, lockUser, userGrants } from "./ledger-store.ts";
import { type BillingErrorCode, billingError } from "./messages.ts";
import { createPaymentRecords } from "./payment-records.ts";
import { spendCredits } from "./spends.ts";
import {
  findBillingDetails,
  findCustomerId,
  findUserByProviderIds,
  lastChangedAt,
  loadState,
  markChanged,
  saveState,
} from "./subscription-store.ts";

export interface BillingDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  catalogue: Catalogue;
  provider: PaymentProvider;
  webhookSecret: string;
  freeInitialCredits: number;
  portalUrl: string;
  /** The business on every invoice; its country decides VAT. */
  seller: Seller;
  /** Sends the billing mails queued by a transaction once it has committed. */
  mails: BillingMailSender;
  /** After a command changed the subscription at the provider (the local one then delivers its events). */
  afterProviderChange: () => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type WebhookOutcome =
  | { status: 200; duplicate: boolean }
  | { status: 400; error: "signature" | "unparseable" };

function refuse(code: BillingErrorCode): ApiError {
  const error = billingError(code);
  return new ApiError(error.status as 400, error.message);
}

export type Billing = ReturnType<typeof createBilling>;

/** Whether any string (key or value) in a parsed JSON value contains U+0000. */
function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([key, v]) => key.includes("\u0000") || holdsNul(v));
}

/** Our record of a Stripe checkout session becomes complete when its payment arrives (local ones already are). */
async function markSessionPaid(tx: Tx, event: BillingEvent, now: Date): Promise<void> {
  const sessionId =
    event.kind === "topup_paid" || event.kind === "subscription_started" ? event.checkoutSessionId : null;
  if (!sessionId) return;
  await tx
    .update(checkoutSessions)
    .set({
      status: "complete",
      completedAt: now,
      subscriptionId: event.kind === "subscription_started" ? event.subscriptionId : null,
      invoiceId: event.kind === "subscription_started" ? event.invoiceId : null,
    })
    .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.status, "open")));
}

export function createBilling(deps: BillingDeps) {
  const { db, clock, logger, catalogue, provider } = deps;
  const tiers = (productId: string) => catalogue.findTier(productId)?.tier;

  /** The state with what is due at the period end applied (a read never waits for a sweep). */
  async function currentState(tx: Tx | Db, userId: string, now: Date) {
    const stored = await loadState(tx, userId);
    return { stored, state: periodEnded(stored, now).state };
  }

  async function runEffects(
    tx: Tx,
    userId: string,
    effects: SubscriptionEffect[],
    origin: { eventId: string | null; paymentReference: string | null },
  ) {
    for (const effect of effects) {
      switch (effect.type) {
        case "grant": {
          const inserted = await insertGrant(tx, userId, effect.grant, origin);
          logger.info({ userId, fulfilmentKey: effect.grant.fulfilmentKey, inserted }, "Credit grant");
          break;
        }
        case "provider_set_cancel_at_period_end":
          await provider.setCancelAtPeriodEnd(tx, effect.subscriptionId, effect.cancelAtPeriodEnd);
          break;
        case "provider_schedule_change":
          await provider.scheduleChange(tx, effect.subscriptionId, effect.productId);
          break;
        case "provider_cancel_now":
          await provider.cancelNow(tx, effect.subscriptionId, effect.refundLatestInvoice);
          if (effect.refundLatestInvoice) {
            logger.error(
              { userId, subscriptionId: effect.subscriptionId },
              "Second subscription cancelled; refund its invoice",
            );
          }
          break;
        case "needs_attention":
          logger.error({ userId, reason: effect.reason, ...origin }, "Billing needs attention");
          break;
      }
    }
  }

  const records = createPaymentRecords({
    catalogue,
    provider,
    seller: deps.seller,
    portalUrl: deps.portalUrl,
    logger,
  });

  /** A user command on the subscription: refused, or applied (provider first, then our state). */
  async function command(userId: string, decide: (state: SubscriptionState) => CommandResult): Promise<void> {
    await db.transaction(async (tx) => {
      await lockUser(tx, userId);
      const now = clock.now();
      const { stored, state } = await currentState(tx, userId, now);
      const result = decide(state);
      if (!result.ok) throw refuse(result.error.code);
      // Provider calls go first: if one fails, the transaction rolls back and nothing changed here.
      await runEffects(tx, userId, result.effects, { eventId: null, paymentReference: null });
      await saveState(tx, userId, stored, result.state, now, (await findCustomerId(tx, userId)) ?? null);
      if (result.state.status !== "free") await markChanged(tx, result.state.subscriptionId, now);
      await records.queueSubscriptionMails(tx, userId, state, result.state, now);
    });
    deps.afterProviderChange();
    deps.mails.sendSoon();
  }

  async function checkout(
    user: { id: string; email: string },
    mode: "subscription" | "payment",
    offer: { productId: string; priceId: string; name: string; amount: number; currency: string },
  ) {
    return db.transaction(async (tx) => {
      await lockUser(tx, user.id);
      const { state } = await currentState(tx, user.id, clock.now());
      const allowed = mode === "subscription" ? checkoutAllowed(state) : topUpAllowed(state);
      if (!allowed.ok) throw refuse(allowed.error.code);
      const created = await provider.createCheckoutSession(tx, {
        userId: user.id,
        email: user.email,
        mode,
        productId: offer.productId,
        priceId: offer.priceId,
        productName: offer.name,
        amount: offer.amount,
        currency: offer.currency,
        successUrl: `${deps.portalUrl}/payment/success`,
        cancelUrl: `${deps.portalUrl}/payment/failed`,
      });
      return { url: created.url };
    });
  }

  /** One stored invoice of the user, or a 404 (another user's id answers the same as an unknown one). */
  async function invoiceRow(userId: string, invoiceId: string) {
    const row = UUID.test(invoiceId) ? await userInvoice(db, userId, invoiceId) : undefined;
    if (!row) throw new ApiError(404, billingError("invoice_not_found").message);
    return row;
  }

  return {
    hooks: {
      async onEmailVerified(tx, { userId, at }) {
        const grant = initialFreeGrant(userId, deps.freeInitialCredits, at);
        if (grant) await insertGrant(tx, userId, grant, { paymentReference: null, eventId: null });
      },
    } satisfies AccountHooks,

    createSubscriptionCheckout(user: { id: string; email: string }, productId: string, priceId: string) {
      const found = catalogue.findSubscriptionPrice(productId, priceId);
      if (!found.ok) throw refuse(found.error);
      const { tier } = found.offer;
      return checkout(user, "subscription", {
        productId,
        priceId,
        name: tier.name,
        amount: tier.unitAmount,
        currency: tier.currency,
      });
    },

    createTopUpCheckout(user: { id: string; email: string }, productId: string) {
      const offer = catalogue.findTopUp(productId);
      if (!offer) throw refuse("product_not_found");
      return checkout(user, "payment", {
        productId,
        priceId: offer.priceId,
        name: offer.topUp.name,
        amount: offer.topUp.unitAmount,
        currency: offer.topUp.currency,
      });
    },

    updateSubscription: (userId: string, productId: string) =>
      command(userId, (state) => scheduleChange(state, productId, tiers)),

    cancelSubscription: (userId: string) => command(userId, (state) => cancel(state)),

    /** Every grant, newest first. Future-dated renewal grants are listed: they are paid for, live from granted_at. */
    async ledger(userId: string): Promise<LedgerEntry[]> {
      return (await userGrants(db, userId)).map((g) => ({
        kind: g.kind,
        amount: fromMillicredits(g.amount),
        remaining: fromMillicredits(g.remaining),
        granted_at: g.grantedAt.toISOString(),
        expires_at: g.expiresAt?.toISOString() ?? null,
        source: g.source,
      }));
    },

    spend: spendCredits.bind(null, db),

    /** The billing history, newest first. */
    async invoices(userId: string): Promise<InvoiceSummary[]> {
      return (await userInvoices(db, userId)).map(invoiceSummary);
    },

    /** One invoice of the user, or a 404 (another user's id answers the same as an unknown one). */
    async invoice(userId: string, invoiceId: string): Promise<Invoice> {
      return invoiceView(await invoiceRow(userId, invoiceId));
    },

    /**
     * One of our own invoices as a PDF (invoice-pdf.ts). A failed payment has no invoice, and
     * Stripe's invoices are Stripe's documents: both answer 404 with the reason.
     */
    async invoicePdf(userId: string, invoiceId: string): Promise<{ pdf: Buffer; filename: string }> {
      const row = await invoiceRow(userId, invoiceId);
      const refusal = invoicePdfRefusal(row);
      if (refusal) throw new ApiError(404, billingError(refusal).message);
      const invoice = invoiceView(row);
      return {
        pdf: await renderInvoicePdf(invoice, { producer: PRODUCT_NAME }),
        filename: invoicePdfName(invoice),
      };
    },

    async details(userId: string): Promise<BillingDetails> {
      const [details, state] = await Promise.all([findBillingDetails(db, userId), loadState(db, userId)]);
      return {
        details: details?.country
          ? { name: details.name, country: details.country, vat_id: details.vatId }
          : null,
        can_update_payment_method: state.status !== "free",
      };
    },

    /** The provider's page to change the card of the user's subscription (400 without one). */
    async portalSession(userId: string): Promise<{ url: string }> {
      return db.transaction(async (tx) => {
        await lockUser(tx, userId);
        const state = await loadState(tx, userId);
        const customerId = await findCustomerId(tx, userId);
        if (state.status === "free" || !customerId) throw refuse("no_payment_method");
        return provider.createPortalSession(tx, {
          userId,
          customerId,
          returnUrl: `${deps.portalUrl}/profile/billing`,
        });
      });
    },

    /**
     * POST /v1/webhooks/stripe. The signature is checked on the raw bytes before anything is
     * parsed. A signed event we cannot read answers 400, so the provider keeps redelivering it
     * (for days) while the cause is fixed; it is logged at error level.
     */
    async handleWebhook(rawBody: Uint8Array, signature: string | undefined): Promise<WebhookOutcome> {
      const now = clock.now();
      const check = await verifyWebhook(
        rawBody,
        signature,
        deps.webhookSecret,
        Math.floor(now.getTime() / 1000),
      );
      if (!check.ok && check.error !== "not_json") {
        logger.warn({ error: check.error, reason: check.reason }, "Webhook refused: signature");
        return { status: 400, error: "signature" };
      }
      // The SDK reads invalid UTF-8 leniently; an event we would store with replacement characters
      // is not one Stripe sent.
      if (!check.ok || !isUtf8(rawBody)) {
        logger.error("Webhook with a valid signature is not JSON");
        return { status: 400, error: "unparseable" };
      }
      const json = check.event;
      // Stripe never sends a NUL character, and PostgreSQL text cannot hold one: an event with one
      // anywhere is not an event we can record, whatever field it is in.
      if (holdsNul(json)) {
        logger.error("Webhook with a valid signature holds a NUL character");
        return { status: 400, error: "unparseable" };
      }
      const parsed = parseStripeEvent(json);
      if (!parsed.ok) {
        logger.error({ error: parsed.error }, "Webhook event could not be parsed");
        return { status: 400, error: "unparseable" };
      }
      const event = parsed.event;
      return db
        .transaction(async (tx): Promise<WebhookOutcome> => {
          const recorded = await tx
            .insert(webhookEvents)
            .values({ eventId: event.eventId, type: event.eventType, receivedAt: now })
            .onConflictDoNothing()
            .returning({ eventId: webhookEvents.eventId });
          if (recorded.length === 0) return { status: 200, duplicate: true };
          if (event.kind === "ignored") {
            logger.info(
              { eventId: event.eventId, type: event.eventType, reason: event.reason },
              "Webhook ignored",
            );
            return { status: 200, duplicate: false };
          }
          if (event.kind === "invoice_document") {
            await recordInvoiceDocument(tx, event.document, now);
            return { status: 200, duplicate: false };
          }
          if (event.kind === "charge_refunded" || event.kind === "dispute") {
            await records.reverse(tx, event, now);
            return { status: 200, duplicate: false };
          }
          const subscriptionId = "subscriptionId" in event ? event.subscriptionId : null;
          const candidate =
            event.userId ??
            (await findUserByProviderIds(tx, { subscriptionId, customerId: event.customerId }));
          if (!candidate || !(await lockUser(tx, candidate))) {
            // Money may have moved for somebody we cannot find: an operator has to look. The event id
            // is not kept, so a redelivery after the fix is processed.
            logger.error(
              { eventId: event.eventId, type: event.eventType, subscriptionId },
              "Billing needs attention: webhook for an unknown user",
            );
            tx.rollback();
          }
          const userId = candidate as string;
          const { stored, state } = await currentState(tx, userId, now);
          if (event.kind === "subscription_updated") {
            // Whether this snapshot is newer than the last change we know of (events arrive in any order).
            const changedAt = await lastChangedAt(tx, event.subscriptionId);
            event.current = changedAt === null || event.created.getTime() >= changedAt.getTime();
          }
          const result = fulfil(state, event, now, catalogue);
          if (
            event.kind === "subscription_updated" &&
            result.state !== state &&
            result.state.status !== "free"
          ) {
            await markChanged(tx, event.subscriptionId, event.created);
          }
          if (result.note)
            logger.info({ eventId: event.eventId, userId, note: result.note }, "Webhook fulfilment note");
          const paymentReference =
            event.kind === "topup_paid"
              ? event.checkoutSessionId
              : event.kind === "renewal_paid"
                ? event.invoiceId
                : event.kind === "subscription_started"
                  ? (event.invoiceId ?? event.checkoutSessionId ?? event.subscriptionId)
                  : null;
          await runEffects(tx, userId, result.effects, { eventId: event.eventId, paymentReference });
          await records.recordHistory(tx, userId, event, now);
          await markSessionPaid(tx, event, now);
          await saveState(tx, userId, stored, result.state, now, event.customerId);
          await records.queueSubscriptionMails(tx, userId, stored, result.state, now);
          return { status: 200, duplicate: false };
        })
        .then((outcome) => {
          // What the transaction queued goes out now that it has committed.
          if (outcome.status === 200 && !outcome.duplicate) deps.mails.sendSoon();
          return outcome;
        })
        .catch((error: unknown) => {
          if (error instanceof TransactionRollbackError) return { status: 200 as const, duplicate: false };
          throw error;
        });
    },
  };
}
