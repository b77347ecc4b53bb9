// POST /v1/webhooks/stripe: a provider's event, read by the provider (signature first), then
// recorded and fulfilled in one transaction. The event id is recorded first, so a redelivery
// changes nothing; the fulfilment keys (ports/fulfilment-keys.ts) make each purchase grant once
// however many events describe it. What the transaction queues (mails) goes out once it commits.
import { and, eq, TransactionRollbackError } from "drizzle-orm";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { checkoutSessions, webhookEvents } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { snapshotOrder } from "../domain/subscription.ts";
import type { AutoTopUpEngine } from "./auto-top-up/engine.ts";
import type { BillingMailSender } from "./billing-mails.ts";
import type { Catalogue } from "./catalogue.ts";
import { billingAccountDeleted } from "./deleted-billing-account.ts";
import { isOnDisputeHold } from "./dispute-hold.ts";
import { fulfil } from "./fulfilment.ts";
import { recordInvoiceDocument } from "./invoices.ts";
import { grantIdOf, lockUser } from "./ledger-store.ts";
import type { paymentHistory } from "./payment-history.ts";
import { type AutoTopUpEvent, type BillingEvent, isAutoTopUpEvent } from "./ports/events.ts";
import type { PaymentProvider } from "./ports/payment-provider.ts";
import { PaymentNotOnRecord, reversePayment } from "./reversals.ts";
import { currentState, type PaidFacts, type RunEffects } from "./subscription-changes.ts";
import type { subscriptionMails } from "./subscription-mails.ts";
import {
  findOrgOfCustomer,
  findUserByProviderIds,
  lastChangedAt,
  markChanged,
  saveState,
  saveVatIdCheck,
} from "./subscription-store.ts";

export type WebhookOutcome =
  | { status: 200; duplicate: boolean }
  | { status: 400; error: "signature" | "unparseable" }
  /** A refund of a payment whose record is not written yet (reversals.ts): delivered again later. */
  | { status: 503; error: "not_on_record" };

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  catalogue: Catalogue;
  provider: PaymentProvider;
  runEffects: RunEffects;
  recordHistory: ReturnType<typeof paymentHistory>;
  queueSubscriptionMails: ReturnType<typeof subscriptionMails>;
  mails: BillingMailSender;
  /** The portal's address, for the links of the mails queued here (the dispute hold's). */
  portalUrl: string;
  /** Saved cards and auto top-up invoices (billing/auto-top-up/). */
  autoTopUp: Pick<AutoTopUpEngine, "handleEvent" | "turnOff" | "billingDetailsChanged">;
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

/** The events about one user's subscription or purchase (the others are about a payment or nobody). */
type UserEvent = Exclude<
  BillingEvent,
  { kind: "ignored" | "invoice_document" | "charge_refunded" | "dispute" | "vat_id_checked" } | AutoTopUpEvent
>;

type SubscriptionUpdated = Extract<BillingEvent, { kind: "subscription_updated" }>;

/** The payment a grant is for, as the ledger records it. */
function paymentReferenceOf(event: BillingEvent): string | null {
  switch (event.kind) {
    case "topup_paid":
      return event.checkoutSessionId;
    case "renewal_paid":
      return event.invoiceId;
    case "subscription_started":
      return event.invoiceId ?? event.checkoutSessionId ?? event.subscriptionId;
    default:
      return null;
  }
}

/** What a subscription's paying event says was paid, should it have to go back (subscription-changes.ts). */
function paymentOf(orgId: string, event: BillingEvent): PaidFacts | null {
  if (event.kind !== "subscription_started" && event.kind !== "renewal_paid") return null;
  return {
    orgId,
    customerId: event.customerId,
    paymentIntentId: null,
    providerInvoiceId: event.invoiceId,
    total: event.payment?.total ?? null,
    currency: event.payment?.currency ?? null,
    fulfilmentKey: event.fulfilmentKey,
    // The checkout's event names its session; the first invoice's, and a renewal's, do not.
    ofInvoice: event.kind === "renewal_paid" || event.checkoutSessionId === null,
  };
}

export function webhookHandler(deps: WebhookDeps) {
  const { db, clock, logger, catalogue, provider } = deps;

  /**
   * A customer.subscription.updated snapshot against our last change of the subscription (events
   * arrive in any order): newer is applied, older is not. The provider dates events in whole
   * seconds, we date our changes to the millisecond, so a snapshot of our change's second may be
   * from before it (applying it would undo our change) or after it (a change at the Dashboard:
   * dropping it would lose that). Then the provider is asked for the subscription as it is now,
   * and that is applied, as of now (Stripe's advice for an event that may be stale).
   */
  async function inOrder(
    tx: Tx,
    event: SubscriptionUpdated,
    now: Date,
  ): Promise<{ event: SubscriptionUpdated; asOf: Date }> {
    const order = snapshotOrder(event.created, await lastChangedAt(tx, event.subscriptionId));
    if (order !== "same_second")
      return { event: { ...event, current: order === "newer" }, asOf: event.created };
    const snapshot = await provider.retrieveSubscription(tx, event.subscriptionId);
    logger.info(
      { eventId: event.eventId, subscriptionId: event.subscriptionId, found: snapshot !== null },
      "Snapshot of the same second as our last change: the subscription was retrieved",
    );
    // Unknown to the provider: its customer.subscription.deleted ends the plan; this changes nothing.
    if (snapshot === null) return { event: { ...event, current: false }, asOf: event.created };
    const asOf = new Date(Math.max(now.getTime(), event.created.getTime()));
    return { event: { ...event, ...snapshot, current: true }, asOf };
  }

  /**
   * Money arriving for a deleted organisation (a checkout completed while it was being deleted, or
   * a renewal charged in the same moment) is never turned into credits or a plan nobody can use or
   * cancel: it is refunded automatically (ORGANISATIONS.md). A subscription is ended at once, and
   * the payment is refunded in full, once per payment however many events describe it; the event
   * is recorded and its refund comes back as charge.refunded, which finds nothing to take back
   * (reversals.ts). When the provider finds no payment to refund, or refuses the refund for good,
   * the event is recorded, granting nothing, and logged at error level for an operator. A payment
   * granted before the deletion is not refunded: the deletion's forfeit settled it. True when
   * handled here.
   */
  async function refusedForDeletedOrg(tx: Tx, orgId: string, event: UserEvent, now: Date): Promise<boolean> {
    if (
      event.kind !== "subscription_started" &&
      event.kind !== "topup_paid" &&
      event.kind !== "renewal_paid"
    ) {
      return false;
    }
    // A personal organisation is deleted with its account: money paid for a deleted account is
    // refunded as for a deleted team; granting it would keep a payment for credits nobody can use.
    if (!(await billingAccountDeleted(tx, orgId))) return false;
    const context = { eventId: event.eventId, orgId, type: event.eventType };
    // A second event of a payment granted before the deletion (the checkout's, then its first
    // invoice's, in either order): the deletion's forfeit has settled it. Refunding it now would
    // hand back money for a plan that was used.
    if (await grantIdOf(tx, event.fulfilmentKey)) {
      // Its invoice is still owed: a subscription's first is made by its invoice event alone
      // (payment-history.ts), which may be this one, late. Recorded once per payment.
      await deps.recordHistory(tx, orgId, event, now);
      logger.info(context, "A payment granted before its organisation was deleted: only its record");
      return true;
    }
    const paymentIntentId = event.kind === "topup_paid" ? event.paymentIntentId : null;
    if ("subscriptionId" in event && event.subscriptionId) {
      await provider.cancelNow(tx, event.subscriptionId, false);
      if (!paymentIntentId && !event.invoiceId) {
        // A checkout event that does not name the first invoice: invoice.paid, which does, refunds it.
        logger.warn(context, "A subscription paid for a deleted organisation was ended");
        return true;
      }
    }
    const refunded = await provider.refundUnclaimedPayment(tx, {
      orgId,
      customerId: event.customerId,
      paymentIntentId,
      providerInvoiceId: event.invoiceId,
      total: event.payment?.total ?? null,
      currency: event.payment?.currency ?? null,
      reason: "Paid for an organisation that was deleted",
    });
    if (refunded) {
      logger.warn(context, "A payment for a deleted organisation was refunded in full; nothing granted");
      return true;
    }
    // Recorded all the same, granting nothing: a redelivery would be refused the same way.
    logger.error(
      context,
      "Billing needs attention: a payment for a deleted organisation could not be refunded automatically; refund it at the provider",
    );
    return true;
  }

  /** An event about a user's subscription or a purchase: found, locked, fulfilled and recorded. */
  async function fulfilForUser(tx: Tx, event: UserEvent, now: Date): Promise<void> {
    const subscriptionId = "subscriptionId" in event ? event.subscriptionId : null;
    const candidate =
      event.userId ?? (await findUserByProviderIds(tx, { subscriptionId, customerId: event.customerId }));
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
    if (await refusedForDeletedOrg(tx, userId, event, now)) return;
    const { stored, state } = await currentState(tx, userId, now);
    const ordered = event.kind === "subscription_updated" ? await inOrder(tx, event, now) : null;
    const result = fulfil(state, ordered?.event ?? event, now, catalogue);
    if (ordered && result.state !== state && result.state.status !== "free") {
      await markChanged(tx, ordered.event.subscriptionId, ordered.asOf);
    }
    if (result.note)
      logger.info({ eventId: event.eventId, userId, note: result.note }, "Webhook fulfilment note");
    await deps.runEffects(tx, userId, result.effects, {
      eventId: event.eventId,
      paymentReference: paymentReferenceOf(event),
      payment: paymentOf(userId, event),
    });
    await deps.recordHistory(tx, userId, event, now);
    await markSessionPaid(tx, event, now);
    // A subscription has started: a subscription checkout the organisation left open (another tab,
    // an older link) would now buy nothing, only a cancellation and a refund. Closed instead, at
    // best: with Stripe these are calls to Stripe, and the plan that was paid must not wait on
    // them (an unreachable Stripe would roll it back); one left open is refunded if paid.
    if (state.status === "free" && result.state.status !== "free") {
      await provider.expireSubscriptionCheckouts(tx, userId).catch((error: unknown) => {
        logger.warn(
          { eventId: event.eventId, userId, err: error },
          "Other subscription checkouts could not be closed",
        );
      });
    }
    await saveState(tx, userId, stored, result.state, now, event.customerId);
    await deps.queueSubscriptionMails(tx, userId, stored, result.state, now);
  }

  /**
   * A signed event we cannot read answers 400, so the provider keeps redelivering it (for days)
   * while the cause is fixed; it is logged at error level.
   */
  return async function handleWebhook(
    rawBody: Uint8Array,
    signature: string | undefined,
  ): Promise<WebhookOutcome> {
    const now = clock.now();
    const read = await provider.readWebhook(rawBody, signature, now);
    if (!read.ok) {
      if (read.error === "signature") logger.warn({ reason: read.reason }, "Webhook refused: signature");
      else logger.error({ reason: read.reason }, "Webhook event could not be read");
      return { status: 400, error: read.error };
    }
    const event = read.event;
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
        } else if (event.kind === "invoice_document") {
          await recordInvoiceDocument(tx, event.document, now);
        } else if (event.kind === "vat_id_checked") {
          // Kept for that customer and VAT ID whenever it comes, unless a newer check of the same
          // ID is (decision 031): the ID may be on file already, or come with a payment later.
          const stored = await saveVatIdCheck(tx, event);
          logger.info(
            { eventId: event.eventId, customerId: event.customerId, status: event.status, stored },
            "VAT ID check recorded",
          );
          // A confirmed or withdrawn VAT ID changes the VAT, and so what one auto top-up pack
          // costs: paused (or resumed) now, as for new billing details, not at the next charge.
          const orgId = stored ? await findOrgOfCustomer(tx, event.customerId) : null;
          if (orgId && (await lockUser(tx, orgId)))
            await deps.autoTopUp.billingDetailsChanged(tx, orgId, now);
        } else if (isAutoTopUpEvent(event)) {
          await deps.autoTopUp.handleEvent(tx, event, now);
        } else if (event.kind === "charge_refunded" || event.kind === "dispute") {
          const purchase = await reversePayment(tx, event, now, {
            provider,
            logger,
            portalUrl: deps.portalUrl,
          });
          // A dispute of an automatic payment: the card is not charged again without a person. A
          // lost one of any payment that put the organisation on hold: off while it is on hold
          // (AUTO-TOP-UP.md, "Off"), and on again only with new consent.
          if (
            event.kind === "dispute" &&
            purchase &&
            ((event.phase === "created" && purchase.fulfilmentKey.startsWith("auto_top_up:")) ||
              (event.phase === "closed" && (await isOnDisputeHold(tx, purchase.userId))))
          ) {
            await deps.autoTopUp.turnOff(tx, purchase.userId, "dispute_hold", null, now);
          }
        } else {
          await fulfilForUser(tx, event, now);
        }
        return { status: 200, duplicate: false };
      })
      .then((outcome) => {
        // What the transaction queued goes out now that it has committed.
        if (outcome.status === 200 && !outcome.duplicate) deps.mails.sendSoon();
        return outcome;
      })
      .catch((error: unknown) => {
        if (error instanceof TransactionRollbackError) return { status: 200 as const, duplicate: false };
        // Nothing kept, the event id included: the provider's next delivery is processed afresh.
        if (error instanceof PaymentNotOnRecord)
          return { status: 503 as const, error: "not_on_record" as const };
        throw error;
      });
  };
}
