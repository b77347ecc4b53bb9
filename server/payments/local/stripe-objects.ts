// The Stripe objects the local checkout's events describe, made from its own rows: a subscription,
// a subscription invoice (with the tax Stripe Tax would compute), a checkout session's tax, and
// fresh event ids. event-builders.ts turns them into the events.
import { givesReverseCharge } from "../../../contract/vat-id-verification.ts";
import type { Catalogue, CustomerStore } from "../../billing/ports/payment-provider.ts";
import type { CheckoutSessionRow, LocalSubscriptionRow } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import { decideVat, vatOf } from "../../domain/vat.ts";
import { newStripeId } from "../stripe/format.ts";
import type { SaleTax, SubscriptionInvoiceInput, SubscriptionObjectInput } from "./event-builders.ts";

export const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** A session's tax, once its buyer's details are in (the hosted page shows the total from it). */
export const sessionHasDetails = (s: CheckoutSessionRow) =>
  s.buyerCountry !== null && s.taxTreatment !== null && s.amountTax !== null && s.taxRateBasisPoints !== null;

export function localStripeObjects(deps: {
  catalogue: Catalogue;
  /** The seller's country: decides the VAT (server/domain/vat.ts). */
  sellerCountry: string;
  customers: CustomerStore;
}) {
  const { catalogue, customers } = deps;

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
   * A VAT ID on file gives reverse charge only while it is confirmed (decision 031): one a check
   * has not confirmed is charged VAT, and the invoice still names it.
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
      vatId: givesReverseCharge(details.vatIdStatus) ? details.vatId : null,
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
        vatId: decision.treatment === "outside_eu" ? null : details.vatId,
      },
    };
  }

  /** The organisation's billing e-mail, as Stripe's customer carries it onto each invoice. */
  const emailOf = (tx: DbOrTx, orgId: string) => customers.findBillingEmail(tx, orgId);

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

  return { productOf, subscriptionObjectInput, renewalTax, invoiceInput, meta, sessionTax };
}

export type LocalStripeObjects = ReturnType<typeof localStripeObjects>;
