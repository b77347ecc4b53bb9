// Stripe-format webhook events: builders (the local checkout sends these, signed, to the webhook
// endpoint, exactly as Stripe would) and a parser that reduces any event we act on, from the local
// checkout or from real Stripe, to one normalised BillingEvent for fulfilment.
//
// Shapes follow the API version the installed `stripe` SDK pins (STRIPE_API_VERSION). Each builder
// `satisfies DeepPartial<...>` of the SDK's own type, so a misspelt or misplaced field fails the
// type check. Since API version 2025-03-31 ("basil") an invoice names its subscription under
// `parent.subscription_details.subscription`, an invoice line its price under
// `pricing.price_details`, and a subscription's current period lives on its items; the parser also
// reads the older places (`invoice.subscription`, `line.price`, `subscription.current_period_*`)
// so a Stripe webhook endpoint left on an older version still works.
//
// What the checkout-session creator must set, because fulfilment reads it back from the events:
// - `client_reference_id` = our user id, and session `metadata` = checkoutSessionMetadata(...)
// - in subscription mode also `subscription_data.metadata` = subscriptionMetadata(...): invoices
//   and subscription events carry the subscription's metadata, not the session's, and an invoice
//   can arrive before the checkout event, so that is how it is tied to the user.

import { randomBytes } from "node:crypto";
import type { Stripe } from "stripe";
import * as z from "zod";
import { firstPaymentKey, renewalKey, topUpKey } from "../billing/fulfilment-keys.ts";
import type { Period } from "../domain/subscription.ts";
import type { TaxTreatment } from "../domain/vat.ts";
import { stripeFixture } from "./stripe-fixtures.ts";

/** The API version of the installed SDK (checked by a test). Events we build say they are this version. */
export const STRIPE_API_VERSION = "2026-10-28.endive";

/** Metadata keys we set on checkout sessions and subscriptions and read back from events. */
export const METADATA = {
  userId: "user_id",
  productId: "product_id",
  priceId: "price_id",
  kind: "kind",
} as const;

export type PurchaseKind = "subscription" | "topup";

export function checkoutSessionMetadata(p: {
  userId: string;
  productId: string;
  priceId: string;
  kind: PurchaseKind;
}): Record<string, string> {
  return {
    [METADATA.userId]: p.userId,
    [METADATA.productId]: p.productId,
    [METADATA.priceId]: p.priceId,
    [METADATA.kind]: p.kind,
  };
}

export function subscriptionMetadata(p: { userId: string; productId: string }): Record<string, string> {
  return { [METADATA.userId]: p.userId, [METADATA.productId]: p.productId };
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A Stripe-looking id: `evt_…`, `cs_test_…`, `sub_…`, `in_…` (24 random base62 characters). */
export function newStripeId(prefix: string, random: (size: number) => Uint8Array = randomBytes): string {
  // 248 is the largest multiple of 62 below 256: rejecting bytes above it keeps every character
  // equally likely.
  let id = "";
  while (id.length < 24) {
    for (const byte of random(32)) {
      if (byte < 248 && id.length < 24) id += BASE62[byte % 62];
    }
  }
  return `${prefix}_${id}`;
}

/** Recursively optional: lets a builder check its literal against the SDK's full type. */
type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** Unix seconds. */
type Seconds = number;

export interface EventMeta {
  /** evt_… */
  eventId: string;
  created: Seconds;
}

function envelope<TType extends string, TObject>(
  meta: EventMeta,
  type: TType,
  object: TObject,
  previousAttributes?: Record<string, unknown>,
) {
  return {
    id: meta.eventId,
    object: "event" as const,
    api_version: STRIPE_API_VERSION,
    created: meta.created,
    data: previousAttributes ? { object, previous_attributes: previousAttributes } : { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

// ---- what a sale was taxed ----

/** The buyer as Checkout collected them (name, e-mail, country, VAT ID). */
export interface BuyerDetails {
  name: string | null;
  email: string | null;
  country: string | null;
  vatId: string | null;
}

/** The tax of one sale, as Stripe Tax computed it (the local checkout computes it the same way). */
export interface SaleTax {
  /** Minor units, on top of the net amount. */
  amount: number;
  rateBasisPoints: number;
  treatment: TaxTreatment;
  buyer: BuyerDetails;
}

const NO_ADDRESS = { city: null, country: null, line1: null, line2: null, postal_code: null, state: null };

const taxIdsOf = (buyer: BuyerDetails | undefined) =>
  buyer?.vatId ? [{ type: "eu_vat" as const, value: buyer.vatId }] : [];

/** Stripe's `taxability_reason` for each treatment. */
function taxabilityReason(treatment: TaxTreatment) {
  switch (treatment) {
    case "reverse_charge":
      return "reverse_charge" as const;
    case "outside_eu":
      return "not_subject_to_tax" as const;
    default:
      return "standard_rated" as const;
  }
}

/** Stripe's `tax_exempt` of a customer whose VAT is reverse charged. */
const taxExempt = (tax: SaleTax | undefined) =>
  tax?.treatment === "reverse_charge" ? ("reverse" as const) : ("none" as const);

// ---- checkout.session ----

export interface CheckoutSessionInput {
  /** cs_test_… */
  id: string;
  mode: "subscription" | "payment";
  userId: string;
  /** cus_… */
  customerId: string;
  productId: string;
  priceId: string;
  /** Minor units: the net price. */
  amountSubtotal: number;
  /** Absent: no tax and no buyer details (a session created before VAT was collected). */
  tax?: SaleTax;
  currency: string;
  created: Seconds;
  expiresAt: Seconds;
  successUrl: string;
  cancelUrl: string;
  /** Subscription mode, once paid: the subscription and its first invoice. */
  subscriptionId: string | null;
  invoiceId: string | null;
  /** Payment mode, once paid. */
  paymentIntentId: string | null;
}

export function checkoutSessionObject(
  s: CheckoutSessionInput,
  status: "open" | "complete" | "expired",
  /** A delayed payment method completes the session "unpaid"; its money arrives later. */
  paymentStatus: "paid" | "unpaid" = status === "complete" ? "paid" : "unpaid",
) {
  const paid = status === "complete";
  const taxAmount = s.tax?.amount ?? 0;
  const buyer = s.tax?.buyer;
  const ours = {
    id: s.id,
    object: "checkout.session" as const,
    amount_subtotal: s.amountSubtotal,
    amount_total: s.amountSubtotal + taxAmount,
    automatic_tax: {
      enabled: true,
      liability: { type: "self" as const },
      provider: "stripe",
      status: "complete",
    },
    billing_address_collection: "required" as const,
    cancel_url: s.cancelUrl,
    client_reference_id: s.userId,
    collected_information: null,
    created: s.created,
    currency: s.currency,
    currency_conversion: null,
    customer: s.customerId,
    customer_creation: null,
    customer_details: buyer
      ? {
          address: { ...NO_ADDRESS, country: buyer.country },
          business_name: null,
          email: buyer.email,
          individual_name: null,
          name: buyer.name,
          phone: null,
          tax_exempt: taxExempt(s.tax),
          tax_ids: taxIdsOf(buyer),
        }
      : null,
    discounts: [],
    expires_at: s.expiresAt,
    invoice: paid && s.mode === "subscription" ? s.invoiceId : null,
    // Our own invoice stands for Stripe's one-time invoice (server/billing/invoices.ts).
    invoice_creation: null,
    livemode: false,
    metadata: checkoutSessionMetadata({
      userId: s.userId,
      productId: s.productId,
      priceId: s.priceId,
      kind: s.mode === "subscription" ? "subscription" : "topup",
    }),
    mode: s.mode,
    payment_intent: paid && s.mode === "payment" ? s.paymentIntentId : null,
    payment_method_collection: "always" as const,
    payment_method_types: ["card"],
    payment_status: paymentStatus,
    shipping_address_collection: null,
    shipping_cost: null,
    status,
    subscription: paid && s.mode === "subscription" ? s.subscriptionId : null,
    success_url: s.successUrl,
    tax_id_collection: { enabled: true, required: "never" as const },
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: taxAmount },
    // A hosted session's URL is only given while it is open.
    url: null,
  } satisfies DeepPartial<Stripe.Checkout.Session>;
  return { ...stripeFixture("checkout.session"), ...ours };
}

export function checkoutSessionCompletedEvent(
  meta: EventMeta,
  session: CheckoutSessionInput,
  paymentStatus: "paid" | "unpaid" = "paid",
) {
  return envelope(
    meta,
    "checkout.session.completed",
    checkoutSessionObject(session, "complete", paymentStatus),
  ) satisfies DeepPartial<Stripe.CheckoutSessionCompletedEvent>;
}

/** The later outcome of a delayed payment method: the session paid, or its payment failed. */
export function checkoutSessionAsyncPaymentEvent(
  meta: EventMeta,
  session: CheckoutSessionInput,
  outcome: "succeeded" | "failed",
) {
  return outcome === "succeeded"
    ? (envelope(
        meta,
        "checkout.session.async_payment_succeeded",
        checkoutSessionObject(session, "complete", "paid"),
      ) satisfies DeepPartial<Stripe.CheckoutSessionAsyncPaymentSucceededEvent>)
    : (envelope(
        meta,
        "checkout.session.async_payment_failed",
        checkoutSessionObject(session, "complete", "unpaid"),
      ) satisfies DeepPartial<Stripe.CheckoutSessionAsyncPaymentFailedEvent>);
}

// ---- invoice ----

export interface SubscriptionInvoiceInput {
  /** in_… */
  id: string;
  customerId: string;
  subscriptionId: string;
  /** si_… */
  subscriptionItemId: string;
  userId: string;
  productId: string;
  /** Product name for the line description, e.g. "Tier A". */
  productName: string;
  priceId: string;
  billingReason: "subscription_create" | "subscription_cycle";
  /** Minor units: the net price. */
  amount: number;
  /** Absent: no tax and no buyer details. */
  tax?: SaleTax;
  currency: string;
  /** The service period the invoice bills: what credits are granted for. */
  period: { start: Seconds; end: Seconds };
  created: Seconds;
  attemptCount: number;
}

function invoiceObject(
  inv: SubscriptionInvoiceInput,
  outcome: { paidAt: Seconds } | { nextPaymentAttempt: Seconds | null },
) {
  const paid = "paidAt" in outcome;
  const taxAmount = inv.tax?.amount ?? 0;
  const total = inv.amount + taxAmount;
  const buyer = inv.tax?.buyer;
  const taxes = inv.tax
    ? [
        {
          amount: taxAmount,
          tax_behavior: "exclusive" as const,
          tax_rate_details: { tax_rate: `txr_${inv.tax.treatment}_${inv.tax.rateBasisPoints}` },
          taxability_reason: taxabilityReason(inv.tax.treatment),
          taxable_amount: inv.amount,
          type: "tax_rate_details" as const,
        },
      ]
    : [];
  // Stripe's invoice-level period_start/period_end are the USAGE period, which for a subscription
  // invoice looks back one period (and is a single instant on the first invoice). The period that
  // is being paid for is the line's. The parser therefore reads the line, never these.
  const usageInstant = inv.period.start;
  const ours = {
    id: inv.id,
    object: "invoice" as const,
    account_country: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: paid ? total : 0,
    amount_remaining: paid ? 0 : total,
    attempt_count: inv.attemptCount,
    attempted: true,
    automatic_tax: {
      enabled: true,
      liability: { type: "self" as const },
      provider: "stripe",
      status: "complete",
    },
    billing_reason: inv.billingReason,
    collection_method: "charge_automatically" as const,
    created: inv.created,
    currency: inv.currency,
    customer: inv.customerId,
    customer_address: buyer ? { ...NO_ADDRESS, country: buyer.country } : null,
    customer_email: buyer?.email ?? null,
    customer_name: buyer?.name ?? null,
    customer_tax_exempt: taxExempt(inv.tax),
    customer_tax_ids: taxIdsOf(buyer),
    due_date: null,
    effective_at: inv.created,
    // The local provider's invoice document is ours (numbered when paid), not a Stripe page.
    hosted_invoice_url: null,
    invoice_pdf: null,
    lines: {
      object: "list" as const,
      data: [
        {
          id: `il_${inv.id.replace(/^in_/, "")}`,
          object: "line_item" as const,
          amount: inv.amount,
          currency: inv.currency,
          description: `1 × ${inv.productName}`,
          discount_amounts: [],
          discountable: true,
          discounts: [],
          invoice: inv.id,
          livemode: false,
          metadata: {},
          parent: {
            type: "subscription_item_details" as const,
            invoice_item_details: null,
            subscription_item_details: {
              invoice_item: null,
              proration: false,
              proration_details: { credited_items: null },
              subscription: inv.subscriptionId,
              subscription_item: inv.subscriptionItemId,
            },
          },
          period: { start: inv.period.start, end: inv.period.end },
          pretax_credit_amounts: [],
          pricing: {
            type: "price_details" as const,
            price_details: { price: inv.priceId, product: inv.productId },
            unit_amount_decimal: String(inv.amount),
          },
          quantity: 1,
          subtotal: inv.amount,
          taxes,
        },
      ],
      has_more: false,
      url: `/v1/invoices/${inv.id}/lines`,
    },
    livemode: false,
    metadata: {},
    next_payment_attempt: paid ? null : outcome.nextPaymentAttempt,
    number: null,
    parent: {
      type: "subscription_details" as const,
      quote_details: null,
      subscription_details: {
        metadata: subscriptionMetadata({ userId: inv.userId, productId: inv.productId }),
        subscription: inv.subscriptionId,
      },
    },
    period_end: usageInstant,
    period_start: usageInstant,
    shipping_cost: null,
    shipping_details: null,
    status: paid ? ("paid" as const) : ("open" as const),
    status_transitions: {
      finalized_at: inv.created,
      marked_uncollectible_at: null,
      paid_at: paid ? outcome.paidAt : null,
      voided_at: null,
    },
    subtotal: inv.amount,
    subtotal_excluding_tax: inv.amount,
    total,
    total_discount_amounts: [],
    total_excluding_tax: inv.amount,
    total_pretax_credit_amounts: [],
    total_taxes: taxes,
    webhooks_delivered_at: inv.created,
  } satisfies DeepPartial<Stripe.Invoice>;
  return { ...stripeFixture("invoice"), ...ours };
}

export function invoicePaidEvent(meta: EventMeta, invoice: SubscriptionInvoiceInput, paidAt: Seconds) {
  return envelope(
    meta,
    "invoice.paid",
    invoiceObject(invoice, { paidAt }),
  ) satisfies DeepPartial<Stripe.InvoicePaidEvent>;
}

/** `nextPaymentAttempt` null: this was the provider's last try (it will now cancel or mark unpaid). */
export function invoicePaymentFailedEvent(
  meta: EventMeta,
  invoice: SubscriptionInvoiceInput,
  nextPaymentAttempt: Seconds | null,
) {
  return envelope(
    meta,
    "invoice.payment_failed",
    invoiceObject(invoice, { nextPaymentAttempt }),
  ) satisfies DeepPartial<Stripe.InvoicePaymentFailedEvent>;
}

// ---- subscription ----

export interface SubscriptionObjectInput {
  /** sub_… */
  id: string;
  customerId: string;
  userId: string;
  productId: string;
  priceId: string;
  /** Minor units a period. */
  unitAmount: number;
  currency: string;
  subscriptionItemId: string;
  status: "active" | "past_due" | "canceled" | "unpaid" | "incomplete" | "incomplete_expired";
  currentPeriod: { start: Seconds; end: Seconds };
  cancelAtPeriodEnd: boolean;
  created: Seconds;
  canceledAt: Seconds | null;
  endedAt: Seconds | null;
  latestInvoiceId: string | null;
}

export function subscriptionObject(s: SubscriptionObjectInput) {
  const ours = {
    id: s.id,
    object: "subscription" as const,
    billing_cycle_anchor: s.created,
    cancel_at: s.cancelAtPeriodEnd ? s.currentPeriod.end : null,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    canceled_at: s.canceledAt,
    collection_method: "charge_automatically" as const,
    created: s.created,
    currency: s.currency,
    customer: s.customerId,
    ended_at: s.endedAt,
    items: {
      object: "list" as const,
      data: [
        {
          id: s.subscriptionItemId,
          object: "subscription_item" as const,
          created: s.created,
          current_period_end: s.currentPeriod.end,
          current_period_start: s.currentPeriod.start,
          metadata: {},
          price: {
            id: s.priceId,
            object: "price" as const,
            active: true,
            currency: s.currency,
            livemode: false,
            product: s.productId,
            recurring: {
              interval: "month" as const,
              interval_count: 1,
              usage_type: "licensed" as const,
              meter: null,
            },
            type: "recurring" as const,
            unit_amount: s.unitAmount,
          },
          quantity: 1,
          subscription: s.id,
        },
      ],
      has_more: false,
      url: `/v1/subscription_items?subscription=${s.id}`,
    },
    latest_invoice: s.latestInvoiceId,
    livemode: false,
    metadata: subscriptionMetadata({ userId: s.userId, productId: s.productId }),
    next_pending_invoice_item_invoice: null,
    pause_collection: null,
    pending_invoice_item_interval: null,
    pending_update: null,
    schedule: null,
    start_date: s.created,
    status: s.status,
    transfer_data: null,
    trial_end: null,
    trial_start: null,
    billing_schedules: [],
    billing_cycle_anchor_config: null,
    automatic_tax: { enabled: true, liability: { type: "self" as const }, disabled_reason: null },
    discounts: [],
    default_tax_rates: [],
  } satisfies DeepPartial<Stripe.Subscription>;
  return { ...stripeFixture("subscription"), ...ours };
}

export function subscriptionUpdatedEvent(
  meta: EventMeta,
  subscription: SubscriptionObjectInput,
  previousAttributes: Record<string, unknown>,
) {
  return envelope(
    meta,
    "customer.subscription.updated",
    subscriptionObject(subscription),
    previousAttributes,
  ) satisfies DeepPartial<Stripe.CustomerSubscriptionUpdatedEvent>;
}

export function subscriptionDeletedEvent(meta: EventMeta, subscription: SubscriptionObjectInput) {
  return envelope(
    meta,
    "customer.subscription.deleted",
    subscriptionObject(subscription),
  ) satisfies DeepPartial<Stripe.CustomerSubscriptionDeletedEvent>;
}

// ---- charge refunds and disputes ----

export interface ChargeInput {
  /** ch_… */
  id: string;
  paymentIntentId: string;
  customerId: string;
  /** Minor units charged. */
  amount: number;
  /** Minor units refunded so far (Stripe's cumulative amount_refunded). */
  amountRefunded: number;
  currency: string;
  created: Seconds;
}

export function chargeRefundedEvent(meta: EventMeta, charge: ChargeInput) {
  const ours = {
    id: charge.id,
    object: "charge" as const,
    amount: charge.amount,
    amount_captured: charge.amount,
    amount_refunded: charge.amountRefunded,
    captured: true,
    created: charge.created,
    currency: charge.currency,
    customer: charge.customerId,
    disputed: false,
    livemode: false,
    metadata: {},
    paid: true,
    payment_intent: charge.paymentIntentId,
    refunded: charge.amountRefunded >= charge.amount,
    status: "succeeded" as const,
  } satisfies DeepPartial<Stripe.Charge>;
  return envelope(meta, "charge.refunded", {
    ...stripeFixture("charge"),
    ...ours,
  }) satisfies DeepPartial<Stripe.ChargeRefundedEvent>;
}

export interface DisputeInput {
  /** dp_… */
  id: string;
  chargeId: string;
  paymentIntentId: string;
  amount: number;
  currency: string;
  status: "needs_response" | "under_review" | "won" | "lost";
  created: Seconds;
}

export function disputeEvent(meta: EventMeta, type: "created" | "closed", dispute: DisputeInput) {
  const ours = {
    id: dispute.id,
    object: "dispute" as const,
    amount: dispute.amount,
    charge: dispute.chargeId,
    created: dispute.created,
    currency: dispute.currency,
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: dispute.paymentIntentId,
    reason: "fraudulent" as const,
    status: dispute.status,
  } satisfies DeepPartial<Stripe.Dispute>;
  const object = { ...stripeFixture("dispute"), ...ours };
  return type === "created"
    ? (envelope(
        meta,
        "charge.dispute.created",
        object,
      ) satisfies DeepPartial<Stripe.ChargeDisputeCreatedEvent>)
    : (envelope(
        meta,
        "charge.dispute.closed",
        object,
      ) satisfies DeepPartial<Stripe.ChargeDisputeClosedEvent>);
}

// ---- the parser ----

/** Where the event came from, for logs and the processed-events table. */
export interface EventRef {
  eventId: string;
  eventType: string;
  created: Date;
  livemode: boolean;
}

/** What a payment was: amounts (minor units), tax and buyer, as the provider recorded them. */
export interface PaymentFacts {
  net: number;
  tax: number;
  total: number;
  currency: string;
  /** The provider's own word that the buyer accounts for the VAT. */
  reverseCharge: boolean;
  buyer: BuyerDetails;
}

/** Stripe's invoice document of a payment: its number and pages (null until Stripe finalises it). */
export interface InvoiceDocument {
  invoiceId: string;
  number: string | null;
  hostedInvoiceUrl: string | null;
  invoicePdfUrl: string | null;
}

/**
 * What fulfilment needs from an event. `userId` is null when an invoice or subscription carries
 * no user metadata: then find the user by `subscriptionId` (or `customerId`).
 */
export type BillingEvent = EventRef &
  (
    | {
        kind: "topup_paid";
        userId: string;
        customerId: string | null;
        checkoutSessionId: string;
        productId: string;
        payment: PaymentFacts | null;
        /** With invoice_creation, Stripe's invoice of the payment (in_…). */
        invoiceId: string | null;
        paymentIntentId: string | null;
        paidAt: Date;
        fulfilmentKey: string;
      }
    | {
        kind: "subscription_started";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        productId: string;
        /** Null from the checkout event, which does not carry it. */
        period: Period | null;
        paidAt: Date;
        checkoutSessionId: string | null;
        invoiceId: string | null;
        payment: PaymentFacts | null;
        document: InvoiceDocument | null;
        fulfilmentKey: string;
      }
    | {
        kind: "renewal_paid";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        invoiceId: string;
        productId: string;
        period: Period;
        paidAt: Date;
        payment: PaymentFacts;
        document: InvoiceDocument | null;
        fulfilmentKey: string;
      }
    | {
        kind: "renewal_failed";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        invoiceId: string;
        period: Period;
        attemptCount: number | null;
        /** Null when the provider will not try again. */
        nextPaymentAttempt: Date | null;
        productId: string;
        payment: PaymentFacts;
        document: InvoiceDocument | null;
        fulfilmentKey: string;
      }
    | {
        /** An invoice that is not a subscription's (a one-time payment's, with invoice_creation). */
        kind: "invoice_document";
        document: InvoiceDocument;
      }
    | {
        kind: "charge_refunded";
        chargeId: string;
        paymentIntentId: string | null;
        /** Before API version 2025-03-31 a charge named its invoice. */
        invoiceId: string | null;
        customerId: string | null;
        /** Minor units: what was charged, and what is refunded so far (cumulative). */
        amount: number;
        amountRefunded: number;
        currency: string;
      }
    | {
        kind: "dispute";
        disputeId: string;
        chargeId: string | null;
        paymentIntentId: string | null;
        /** created: the credits are frozen; closed: released (won) or taken back (lost). */
        phase: "created" | "closed";
        status: string;
      }
    | {
        kind: "subscription_updated";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        status: string;
        cancelAtPeriodEnd: boolean;
        productId: string | null;
        period: Period | null;
        /** Set by the webhook handler: whether this snapshot is newer than our last change. */
        current?: boolean;
      }
    | {
        kind: "subscription_ended";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        endedAt: Date;
      }
    | { kind: "ignored"; reason: string }
  );

export type ParseResult = { ok: true; event: BillingEvent } | { ok: false; error: string };

/** An id, or the object it names when the event was expanded. */
const idRef = z.union([z.string().min(1), z.object({ id: z.string().min(1) }).transform((o) => o.id)]);
const metadataSchema = z.record(z.string(), z.string()).nullish();
const seconds = z.number().int().nonnegative();

const envelopeSchema = z.object({
  id: z.string().min(1),
  object: z.literal("event"),
  type: z.string().min(1),
  created: seconds,
  livemode: z.boolean().optional(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

const addressSchema = z.object({ country: z.string().nullish() }).nullish();
const taxIdsSchema = z.array(z.object({ type: z.string(), value: z.string() })).nullish();
const euVatIdOf = (ids: z.infer<typeof taxIdsSchema>) => ids?.find((t) => t.type === "eu_vat")?.value ?? null;

const sessionSchema = z.object({
  id: z.string().min(1),
  mode: z.string(),
  payment_status: z.string(),
  client_reference_id: z.string().nullish(),
  customer: idRef.nullish(),
  metadata: metadataSchema,
  subscription: idRef.nullish(),
  invoice: idRef.nullish(),
  payment_intent: idRef.nullish(),
  amount_subtotal: z.number().int().nullish(),
  amount_total: z.number().int().nullish(),
  total_details: z.object({ amount_tax: z.number().int().nullish() }).nullish(),
  currency: z.string().nullish(),
  customer_details: z
    .object({
      address: addressSchema,
      email: z.string().nullish(),
      name: z.string().nullish(),
      tax_exempt: z.string().nullish(),
      tax_ids: taxIdsSchema,
    })
    .nullish(),
});

const lineSchema = z.object({
  period: z.object({ start: seconds, end: seconds }),
  pricing: z.object({ price_details: z.object({ product: idRef, price: idRef }).nullish() }).nullish(),
  /** Before API version 2025-03-31. */
  price: z.object({ product: idRef }).nullish(),
  parent: z
    .object({ subscription_item_details: z.object({ proration: z.boolean().nullish() }).nullish() })
    .nullish(),
  /** Before API version 2025-03-31. */
  proration: z.boolean().nullish(),
});

const invoiceSchema = z.object({
  id: z.string().min(1),
  number: z.string().nullish(),
  hosted_invoice_url: z.string().nullish(),
  invoice_pdf: z.string().nullish(),
  billing_reason: z.string().nullish(),
  customer: idRef.nullish(),
  currency: z.string(),
  amount_paid: z.number(),
  amount_due: z.number().int().nullish(),
  subtotal: z.number().int().nullish(),
  total_excluding_tax: z.number().int().nullish(),
  total: z.number().int().nullish(),
  total_taxes: z
    .array(z.object({ amount: z.number().int(), taxability_reason: z.string().nullish() }))
    .nullish(),
  /** Before API version 2025-03-31. */
  tax: z.number().int().nullish(),
  customer_name: z.string().nullish(),
  customer_email: z.string().nullish(),
  customer_address: addressSchema,
  customer_tax_exempt: z.string().nullish(),
  customer_tax_ids: taxIdsSchema,
  attempt_count: z.number().int().nullish(),
  next_payment_attempt: seconds.nullish(),
  status_transitions: z.object({ paid_at: seconds.nullish() }).nullish(),
  parent: z
    .object({ subscription_details: z.object({ subscription: idRef, metadata: metadataSchema }).nullish() })
    .nullish(),
  /** Before API version 2025-03-31. */
  subscription: idRef.nullish(),
  lines: z.object({ data: z.array(lineSchema) }),
});

const subscriptionSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  cancel_at_period_end: z.boolean(),
  customer: idRef.nullish(),
  metadata: metadataSchema,
  ended_at: seconds.nullish(),
  canceled_at: seconds.nullish(),
  items: z.object({
    data: z.array(
      z.object({
        current_period_start: seconds.nullish(),
        current_period_end: seconds.nullish(),
        price: z.object({ product: idRef }),
      }),
    ),
  }),
  /** Before API version 2025-03-31. */
  current_period_start: seconds.nullish(),
  current_period_end: seconds.nullish(),
});

const chargeSchema = z.object({
  id: z.string().min(1),
  amount: z.number().int().nonnegative(),
  amount_refunded: z.number().int().nonnegative(),
  currency: z.string(),
  customer: idRef.nullish(),
  payment_intent: idRef.nullish(),
  /** Before API version 2025-03-31. */
  invoice: idRef.nullish(),
});

const disputeSchema = z.object({
  id: z.string().min(1),
  charge: idRef.nullish(),
  payment_intent: idRef.nullish(),
  status: z.string(),
});

const fromSeconds = (s: number) => new Date(s * 1000);

function sessionPayment(s: z.infer<typeof sessionSchema>): PaymentFacts | null {
  if (s.amount_total == null || !s.currency) return null;
  const tax = s.total_details?.amount_tax ?? 0;
  const d = s.customer_details;
  return {
    net: s.amount_subtotal ?? s.amount_total - tax,
    tax,
    total: s.amount_total,
    currency: s.currency,
    reverseCharge: d?.tax_exempt === "reverse",
    buyer: {
      name: d?.name ?? null,
      email: d?.email ?? null,
      country: d?.address?.country ?? null,
      vatId: euVatIdOf(d?.tax_ids),
    },
  };
}

function invoicePayment(inv: z.infer<typeof invoiceSchema>): PaymentFacts {
  const tax = inv.total_taxes ? inv.total_taxes.reduce((sum, t) => sum + t.amount, 0) : (inv.tax ?? 0);
  const total = inv.total ?? inv.amount_due ?? inv.amount_paid;
  return {
    net: inv.total_excluding_tax ?? inv.subtotal ?? total - tax,
    tax,
    total,
    currency: inv.currency,
    reverseCharge:
      inv.customer_tax_exempt === "reverse" ||
      (inv.total_taxes ?? []).some((t) => t.taxability_reason === "reverse_charge"),
    buyer: {
      name: inv.customer_name ?? null,
      email: inv.customer_email ?? null,
      country: inv.customer_address?.country ?? null,
      vatId: euVatIdOf(inv.customer_tax_ids),
    },
  };
}

/** Stripe's document of the invoice, once it has a number or a page (the local provider's have neither). */
function invoiceDocument(inv: z.infer<typeof invoiceSchema>): InvoiceDocument | null {
  if (!inv.number && !inv.hosted_invoice_url && !inv.invoice_pdf) return null;
  return {
    invoiceId: inv.id,
    number: inv.number ?? null,
    hostedInvoiceUrl: inv.hosted_invoice_url ?? null,
    invoicePdfUrl: inv.invoice_pdf ?? null,
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

/**
 * Reduces a verified webhook event (its JSON already parsed) to a BillingEvent. Event types and
 * variants we do not act on come back as kind "ignored" (answer 200, nothing to do). `ok: false`
 * means an event we act on is missing what we need: log it as an error; whether to answer 4xx (so
 * the provider retries) or 200 is the route's call.
 */
export function parseStripeEvent(input: unknown): ParseResult {
  const env = envelopeSchema.safeParse(input);
  if (!env.success) return { ok: false, error: `not a Stripe event: ${describeIssues(env.error)}` };
  const ref: EventRef = {
    eventId: env.data.id,
    eventType: env.data.type,
    created: fromSeconds(env.data.created),
    livemode: env.data.livemode ?? false,
  };
  const object = env.data.data.object;
  const ignored = (reason: string): ParseResult => ({ ok: true, event: { ...ref, kind: "ignored", reason } });
  const fail = (error: string): ParseResult => ({
    ok: false,
    error: `${ref.eventType} ${ref.eventId}: ${error}`,
  });

  switch (ref.eventType) {
    // A delayed payment method (SEPA Direct Debit, where the account allows it despite our
    // card-only sessions) completes the session unpaid, then pays it days later: the second event
    // carries the same session, now paid, and is fulfilled exactly like a paid completion (the
    // same fulfilment key, so a session is granted once whichever events arrive).
    case "checkout.session.async_payment_failed":
      return ignored("delayed payment of a checkout session failed: nothing was granted");
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const parsed = sessionSchema.safeParse(object);
      if (!parsed.success) return fail(describeIssues(parsed.error));
      const s = parsed.data;
      if (s.payment_status !== "paid")
        return ignored(`checkout session not paid yet (payment_status ${s.payment_status})`);
      const userId = s.client_reference_id ?? s.metadata?.[METADATA.userId] ?? null;
      const productId = s.metadata?.[METADATA.productId] ?? null;
      if (userId === null) return fail("no client_reference_id or user_id metadata");
      if (productId === null) return fail("no product_id metadata");
      const common = { userId, customerId: s.customer ?? null, productId, paidAt: ref.created };
      if (s.mode === "payment") {
        return {
          ok: true,
          event: {
            ...ref,
            ...common,
            kind: "topup_paid",
            checkoutSessionId: s.id,
            payment: sessionPayment(s),
            invoiceId: s.invoice ?? null,
            paymentIntentId: s.payment_intent ?? null,
            fulfilmentKey: topUpKey(s.id),
          },
        };
      }
      if (s.mode === "subscription") {
        if (!s.subscription) return fail("subscription-mode session without a subscription");
        return {
          ok: true,
          event: {
            ...ref,
            ...common,
            kind: "subscription_started",
            subscriptionId: s.subscription,
            period: null,
            checkoutSessionId: s.id,
            invoiceId: s.invoice ?? null,
            payment: sessionPayment(s),
            document: null,
            fulfilmentKey: firstPaymentKey(s.subscription),
          },
        };
      }
      return ignored(`checkout session in ${s.mode} mode`);
    }

    case "invoice.paid":
    case "invoice.payment_failed": {
      const parsed = invoiceSchema.safeParse(object);
      if (!parsed.success) return fail(describeIssues(parsed.error));
      const inv = parsed.data;
      const subscriptionId = inv.parent?.subscription_details?.subscription ?? inv.subscription ?? null;
      const document = invoiceDocument(inv);
      if (subscriptionId === null) {
        // A one-time payment's invoice (invoice_creation): its number and pages belong to the payment.
        if (ref.eventType === "invoice.paid" && document)
          return { ok: true, event: { ...ref, kind: "invoice_document", document } };
        return ignored("invoice not generated by a subscription");
      }
      const reason = inv.billing_reason ?? null;
      if (reason !== "subscription_create" && reason !== "subscription_cycle") {
        return ignored(`invoice billing_reason ${reason}`);
      }
      // The subscription's own line, not a proration adjustment.
      const line =
        inv.lines.data.find(
          (l) => !(l.parent?.subscription_item_details?.proration ?? l.proration ?? false),
        ) ?? inv.lines.data[0];
      const productId = line?.pricing?.price_details?.product ?? line?.price?.product ?? null;
      if (!line || productId === null) return fail("no subscription line with a product");
      const period = { start: fromSeconds(line.period.start), end: fromSeconds(line.period.end) };
      const who = {
        userId: inv.parent?.subscription_details?.metadata?.[METADATA.userId] ?? null,
        customerId: inv.customer ?? null,
        subscriptionId,
      };

      if (ref.eventType === "invoice.payment_failed") {
        // A first payment that fails in Checkout never creates the subscription; nothing to undo.
        if (reason !== "subscription_cycle") return ignored("first payment failed");
        return {
          ok: true,
          event: {
            ...ref,
            ...who,
            kind: "renewal_failed",
            invoiceId: inv.id,
            period,
            attemptCount: inv.attempt_count ?? null,
            nextPaymentAttempt:
              inv.next_payment_attempt == null ? null : fromSeconds(inv.next_payment_attempt),
            productId,
            payment: invoicePayment(inv),
            document,
            fulfilmentKey: renewalKey(subscriptionId, period.start),
          },
        };
      }
      const paidAt =
        inv.status_transitions?.paid_at == null ? ref.created : fromSeconds(inv.status_transitions.paid_at);
      if (reason === "subscription_create") {
        return {
          ok: true,
          event: {
            ...ref,
            ...who,
            kind: "subscription_started",
            productId,
            period,
            paidAt,
            checkoutSessionId: null,
            invoiceId: inv.id,
            payment: invoicePayment(inv),
            document,
            fulfilmentKey: firstPaymentKey(subscriptionId),
          },
        };
      }
      return {
        ok: true,
        event: {
          ...ref,
          ...who,
          kind: "renewal_paid",
          invoiceId: inv.id,
          productId,
          period,
          paidAt,
          payment: invoicePayment(inv),
          document,
          fulfilmentKey: renewalKey(subscriptionId, period.start),
        },
      };
    }

    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const parsed = subscriptionSchema.safeParse(object);
      if (!parsed.success) return fail(describeIssues(parsed.error));
      const sub = parsed.data;
      const who = {
        userId: sub.metadata?.[METADATA.userId] ?? null,
        customerId: sub.customer ?? null,
        subscriptionId: sub.id,
      };
      if (ref.eventType === "customer.subscription.deleted") {
        const endedAt = sub.ended_at ?? sub.canceled_at ?? null;
        return {
          ok: true,
          event: {
            ...ref,
            ...who,
            kind: "subscription_ended",
            endedAt: endedAt === null ? ref.created : fromSeconds(endedAt),
          },
        };
      }
      const item = sub.items.data[0];
      const start = item?.current_period_start ?? sub.current_period_start ?? null;
      const end = item?.current_period_end ?? sub.current_period_end ?? null;
      return {
        ok: true,
        event: {
          ...ref,
          ...who,
          kind: "subscription_updated",
          status: sub.status,
          cancelAtPeriodEnd: sub.cancel_at_period_end,
          productId: item?.price.product ?? null,
          period:
            start === null || end === null ? null : { start: fromSeconds(start), end: fromSeconds(end) },
        },
      };
    }

    case "charge.refunded": {
      const parsed = chargeSchema.safeParse(object);
      if (!parsed.success) return fail(describeIssues(parsed.error));
      const c = parsed.data;
      return {
        ok: true,
        event: {
          ...ref,
          kind: "charge_refunded",
          chargeId: c.id,
          paymentIntentId: c.payment_intent ?? null,
          invoiceId: c.invoice ?? null,
          customerId: c.customer ?? null,
          amount: c.amount,
          amountRefunded: c.amount_refunded,
          currency: c.currency,
        },
      };
    }

    case "charge.dispute.created":
    case "charge.dispute.closed": {
      const parsed = disputeSchema.safeParse(object);
      if (!parsed.success) return fail(describeIssues(parsed.error));
      const d = parsed.data;
      return {
        ok: true,
        event: {
          ...ref,
          kind: "dispute",
          disputeId: d.id,
          chargeId: d.charge ?? null,
          paymentIntentId: d.payment_intent ?? null,
          phase: ref.eventType === "charge.dispute.created" ? "created" : "closed",
          status: d.status,
        },
      };
    }

    default:
      return ignored(`event type ${ref.eventType} is not used`);
  }
}

/** parseStripeEvent for the raw body (after the signature check). */
export function parseStripeEventJson(rawBody: string): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return { ok: false, error: "body is not JSON" };
  }
  return parseStripeEvent(json);
}
