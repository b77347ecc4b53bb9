// What a billing event leaves besides credits and the plan, in the event's own transaction: the
// billing history's row and invoice of each payment (or failed renewal), the billing details on
// file, the billing mails a change calls for, and what refunds and disputes take back or freeze.
import type { Logger } from "pino";
import type { InvoiceRow } from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { berlinDateOf } from "../domain/berlin-time.ts";
import type { SubscriptionState } from "../domain/subscription.ts";
import type { Seller } from "../domain/vat.ts";
import {
  cancellationConfirmedMail,
  paymentFailedMail,
  planChangeAppliedMail,
  planChangeScheduledMail,
  receiptMail,
  subscriptionEndedMail,
} from "../mail/billing-templates.ts";
import type { PaymentProvider } from "../payments/provider.ts";
import type { BillingEvent } from "../payments/stripe-events.ts";
import { queueBillingMail } from "./billing-mails.ts";
import type { Catalogue } from "./catalogue.ts";
import {
  type PaidInvoice,
  recordFailedRenewal,
  recordInvoiceDocument,
  recordPaidInvoice,
} from "./invoices.ts";
import { lockUser } from "./ledger-store.ts";
import { applyDispute, applyRefund, findPurchase } from "./reversals.ts";
import { saveBillingDetails } from "./subscription-store.ts";

export interface PaymentRecordsDeps {
  catalogue: Catalogue;
  provider: PaymentProvider;
  seller: Seller;
  portalUrl: string;
  logger: Logger;
}

export function createPaymentRecords(deps: PaymentRecordsDeps) {
  const { catalogue, provider, logger } = deps;

  const tierName = (productId: string) => catalogue.findTier(productId)?.tier.name ?? productId;
  const periodText = (p: { start: Date; end: Date }) => `${berlinDateOf(p.start)} to ${berlinDateOf(p.end)}`;

  /** The receipt of a payment that has just become paid (once per payment: keyed by its fulfilment key). */
  async function queueReceipt(tx: Tx, recorded: { row: InvoiceRow; becamePaid: boolean }, now: Date) {
    if (!recorded.becamePaid) return;
    const { row } = recorded;
    await queueBillingMail(
      tx,
      {
        userId: row.userId,
        kind: "receipt",
        dedupeKey: `receipt:${row.fulfilmentKey}`,
        build: (user) =>
          receiptMail(user, {
            description: row.description,
            date: berlinDateOf(row.issuedAt),
            number: row.number,
            currency: row.currency,
            net: row.net,
            tax: row.tax,
            total: row.total,
            taxRateBasisPoints: row.taxRateBasisPoints,
            taxTreatment: row.taxTreatment,
            invoiceUrl: `${deps.portalUrl}/profile/billing/invoice?id=${row.id}`,
          }),
      },
      now,
    );
  }

  /**
   * The mails a change of the subscription calls for, from the state before to the state after:
   * ended, a plan change applied or scheduled, a cancellation confirmed. Keyed by what changed, so
   * the same change reached twice (our command, then the provider's event about it) mails once.
   */
  async function queueSubscriptionMails(
    tx: Tx,
    userId: string,
    before: SubscriptionState,
    after: SubscriptionState,
    now: Date,
  ) {
    if (before.status === "free") return;
    const sub = before.subscriptionId;
    const queue = (kind: string, dedupeKey: string, build: Parameters<typeof queueBillingMail>[1]["build"]) =>
      queueBillingMail(tx, { userId, kind, dedupeKey, build }, now);
    const profileUrl = `${deps.portalUrl}/profile`;
    if (after.status === "free") {
      await queue("subscription_ended", `subscription_ended:${sub}`, (user) =>
        subscriptionEndedMail(user, {
          plan: tierName(before.productId),
          plansUrl: `${deps.portalUrl}/plans`,
        }),
      );
      return;
    }
    if (after.subscriptionId !== sub) return;
    if (after.productId !== before.productId) {
      await queue(
        "plan_change_applied",
        `plan_change_applied:${sub}:${after.productId}:${after.currentPeriodStart.getTime()}`,
        (user) => planChangeAppliedMail(user, { plan: tierName(after.productId), profileUrl }),
      );
    }
    if (after.scheduledProductId !== null && after.scheduledProductId !== before.scheduledProductId) {
      const to = after.scheduledProductId;
      await queue(
        "plan_change_scheduled",
        `plan_change_scheduled:${sub}:${to}:${after.currentPeriodEnd.getTime()}`,
        (user) =>
          planChangeScheduledMail(user, {
            from: tierName(after.productId),
            to: tierName(to),
            date: berlinDateOf(after.currentPeriodEnd),
            profileUrl,
          }),
      );
    }
    if (after.cancelAtPeriodEnd && !before.cancelAtPeriodEnd) {
      await queue(
        "cancellation_confirmed",
        `cancellation:${sub}:${after.currentPeriodEnd.getTime()}`,
        (user) =>
          cancellationConfirmedMail(user, {
            plan: tierName(after.productId),
            date: berlinDateOf(after.currentPeriodEnd),
            profileUrl,
          }),
      );
    }
  }

  const monthly = (productId: string) => `${tierName(productId)} monthly subscription`;

  /** The invoice a payment event calls for (without user and provider), or null for any other event. */
  function paidInvoiceOf(event: BillingEvent): Omit<PaidInvoice, "userId" | "provider"> | null {
    switch (event.kind) {
      case "topup_paid":
        return event.payment
          ? {
              kind: "topup",
              fulfilmentKey: event.fulfilmentKey,
              description: catalogue.findTopUp(event.productId)?.topUp.name ?? event.productId,
              paidAt: event.paidAt,
              payment: event.payment,
              providerInvoiceId: event.invoiceId,
              paymentReference: event.paymentIntentId ?? event.checkoutSessionId,
            }
          : null;
      case "subscription_started":
        // The checkout event of a subscription may carry no amounts: its invoice event does.
        return event.payment
          ? {
              kind: "subscription",
              fulfilmentKey: event.fulfilmentKey,
              description: monthly(event.productId),
              paidAt: event.paidAt,
              payment: event.payment,
              providerInvoiceId: event.invoiceId,
              paymentReference: event.invoiceId ?? event.checkoutSessionId,
            }
          : null;
      case "renewal_paid":
        return {
          kind: "renewal",
          fulfilmentKey: event.fulfilmentKey,
          description: `${monthly(event.productId)}, ${periodText(event.period)}`,
          paidAt: event.paidAt,
          payment: event.payment,
          providerInvoiceId: event.invoiceId,
          paymentReference: event.invoiceId,
        };
      default:
        return null;
    }
  }

  /** The billing history's row of a payment (or a declined renewal), in the fulfilment's transaction. */
  async function recordHistory(tx: Tx, userId: string, event: BillingEvent, now: Date): Promise<void> {
    const common = { userId, provider: provider.kind };
    // The buyer's details of a payment become the details on file (the next checkout starts from them).
    if ("payment" in event && event.payment?.buyer.country) {
      const { buyer } = event.payment;
      const at = "paidAt" in event ? event.paidAt : event.created;
      await saveBillingDetails(
        tx,
        userId,
        { name: buyer.name, country: buyer.country as string, vatId: buyer.vatId },
        at,
      );
    }
    if ("document" in event && event.document) await recordInvoiceDocument(tx, event.document, now);
    const paid = paidInvoiceOf(event);
    if (paid) {
      const recorded = await recordPaidInvoice(tx, { ...common, ...paid }, deps.seller, now);
      await queueReceipt(tx, recorded, now);
      return;
    }
    if (event.kind !== "renewal_failed") return;
    // A declined renewal: the mail with the update link (once per attempt), and a failed row.
    await queueBillingMail(
      tx,
      {
        userId,
        kind: "payment_failed",
        dedupeKey: `payment_failed:${event.invoiceId}:${event.attemptCount ?? event.eventId}`,
        build: (user) =>
          paymentFailedMail(user, {
            plan: tierName(event.productId),
            currency: event.payment.currency,
            total: event.payment.total,
            nextAttempt: event.nextPaymentAttempt ? berlinDateOf(event.nextPaymentAttempt) : null,
            updateUrl: `${deps.portalUrl}/profile/billing`,
          }),
      },
      now,
    );
    await recordFailedRenewal(
      tx,
      {
        ...common,
        fulfilmentKey: event.fulfilmentKey,
        description: `${monthly(event.productId)}, ${periodText(event.period)}`,
        attemptedAt: event.created,
        payment: event.payment,
        providerInvoiceId: event.invoiceId,
        paymentReference: event.invoiceId,
      },
      deps.seller,
      now,
    );
  }

  /**
   * A refund or a dispute of a payment: found by its payment intent (or, before API version
   * 2025-03-31, the charge's invoice; else the provider says which invoice it paid), then applied
   * under the user's lock. A payment we cannot find is logged for an operator and not recorded, so
   * a redelivery after the fix is processed.
   */
  async function reverse(
    tx: Tx,
    event: Extract<BillingEvent, { kind: "charge_refunded" | "dispute" }>,
    now: Date,
  ): Promise<void> {
    const invoiceId = event.kind === "charge_refunded" ? event.invoiceId : null;
    let ids = { paymentIntentId: event.paymentIntentId, invoiceId };
    let found = await findPurchase(tx, ids);
    if (!found && event.paymentIntentId) {
      ids = { paymentIntentId: null, invoiceId: await provider.invoiceOfPayment(event.paymentIntentId) };
      found = await findPurchase(tx, ids);
    }
    if (!found || !(await lockUser(tx, found.userId))) {
      logger.error(
        { eventId: event.eventId, type: event.eventType, paymentIntentId: event.paymentIntentId },
        "Billing needs attention: refund or dispute of a payment we do not know",
      );
      tx.rollback();
    }
    const row = (await findPurchase(tx, ids, true)) as InvoiceRow;
    if (event.kind === "charge_refunded") {
      const applied = await applyRefund(tx, row, event, now);
      logger.info({ userId: row.userId, invoiceId: row.id, applied }, "Refund");
      return;
    }
    const applied = await applyDispute(
      tx,
      row,
      { disputeId: event.disputeId, phase: event.phase, won: event.status === "won" },
      now,
    );
    logger.info(
      { userId: row.userId, invoiceId: row.id, phase: event.phase, status: event.status, applied },
      "Dispute",
    );
  }

  return { recordHistory, queueSubscriptionMails, reverse };
}
