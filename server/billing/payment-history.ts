// The billing history's record of each payment event, in the event's own transaction: the row and
// invoice of a payment (or of a declined renewal), the billing details on file, and the receipt or
// payment-failed mail it calls for.
import { eq } from "drizzle-orm";
import { type InvoiceRow, organizations } from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { berlinDateOf } from "../domain/berlin-time.ts";
import { addressLines } from "../domain/billing-details.ts";
import type { Seller } from "../domain/vat.ts";
import { paymentFailedMail, receiptMail } from "../mail/billing-templates.ts";
import { queueBillingMail } from "./billing-mails.ts";
import type { Catalogue } from "./catalogue.ts";
import {
  type PaidInvoice,
  recordFailedRenewal,
  recordInvoiceDocument,
  recordPaidInvoice,
} from "./invoices.ts";
import type { BillingEvent } from "./ports/events.ts";
import type { PaymentProvider } from "./ports/payment-provider.ts";
import { tierNameIn } from "./subscription-mails.ts";
import {
  findBillingDetails,
  findCustomerId,
  saveBillingDetails,
  saveVatIdCheck,
} from "./subscription-store.ts";

export interface PaymentHistoryDeps {
  catalogue: Catalogue;
  provider: Pick<PaymentProvider, "kind">;
  seller: Seller;
  portalUrl: string;
}

/**
 * The portal's page of an invoice, as a mail links it. A team organisation's invoice is read in that
 * organisation: the link names it, so it opens whichever organisation the reader has chosen in the
 * portal (a personal one needs nothing).
 */
export function invoicePageUrl(
  portalUrl: string,
  row: Pick<InvoiceRow, "id" | "userId">,
  team: boolean,
): string {
  return `${portalUrl}/profile/billing/invoice?id=${row.id}${team ? `&org=${row.userId}` : ""}`;
}

/** The receipt of a payment that has just become paid (once per payment: keyed by its fulfilment key). */
export async function queueReceipt(
  tx: Tx,
  recorded: { row: InvoiceRow; becamePaid: boolean },
  portalUrl: string,
  now: Date,
): Promise<void> {
  if (!recorded.becamePaid) return;
  const { row } = recorded;
  const [org] = await tx
    .select({ personal: organizations.personal })
    .from(organizations)
    .where(eq(organizations.id, row.userId));
  const invoiceUrl = invoicePageUrl(portalUrl, row, org?.personal === false);
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
          invoiceUrl,
        }),
    },
    now,
  );
}

export function paymentHistory(deps: PaymentHistoryDeps) {
  const { catalogue, provider } = deps;
  const tierName = tierNameIn(catalogue);
  const periodText = (p: { start: Date; end: Date }) => `${berlinDateOf(p.start)} to ${berlinDateOf(p.end)}`;

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
        // Only the first invoice's own event (invoice.paid, subscription_create) makes the invoice:
        // it alone carries the period, the time of supply an invoice must give (§ 14 UStG), as a
        // renewal's does. The checkout's event, which may come first, carries none, and an
        // invoice is never corrected once issued. The provider sends both for every subscription.
        return event.payment && event.period
          ? {
              kind: "subscription",
              fulfilmentKey: event.fulfilmentKey,
              description: `${monthly(event.productId)}, ${periodText(event.period)}`,
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
  return async function recordHistory(tx: Tx, userId: string, event: BillingEvent, now: Date): Promise<void> {
    const common = { userId, provider: provider.kind };
    // The buyer's details of a payment become the details on file (the next checkout starts from them).
    // Its VAT ID is as confirmed as the provider's check of it says (decision 031): the local
    // checkout confirms the well-formed one it collects as it takes the payment; a renewal carries
    // the ID on file and leaves its check as it is; Stripe's check comes as an event, before or
    // after this one.
    if ("payment" in event && event.payment?.buyer.country) {
      const { buyer } = event.payment;
      const at = "paidAt" in event ? event.paidAt : event.created;
      await saveBillingDetails(
        tx,
        userId,
        { name: buyer.name, country: buyer.country as string, vatId: buyer.vatId },
        at,
      );
      const atLocalCheckout =
        provider.kind === "local" && (event.kind === "topup_paid" || event.kind === "subscription_started");
      const customerId = buyer.vatId && atLocalCheckout ? await findCustomerId(tx, userId) : undefined;
      if (buyer.vatId && customerId) {
        await saveVatIdCheck(tx, { customerId, vatId: buyer.vatId, status: "verified", created: at });
      }
    }
    if ("document" in event && event.document) await recordInvoiceDocument(tx, event.document, now);
    const paid = paidInvoiceOf(event);
    if (paid) {
      const onFile = await findBillingDetails(tx, userId);
      const buyerAddress = addressLines(onFile?.address ?? null, paid.payment.buyer.country);
      const recorded = await recordPaidInvoice(tx, { ...common, ...paid, buyerAddress }, deps.seller, now);
      await queueReceipt(tx, recorded, deps.portalUrl, now);
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
  };
}
