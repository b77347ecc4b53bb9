// Stripe-format webhook events as the local checkout sends them (signed, to the webhook endpoint,
// exactly as Stripe would), built on Stripe's own example objects so each carries every field a
// real event has. server/payments/stripe/event-parser.ts reads them back, as it reads Stripe's.
//
// Shapes follow the API version the installed `stripe` SDK pins (STRIPE_API_VERSION). Each builder
// `satisfies DeepPartial<...>` of the SDK's own type, so a misspelt or misplaced field fails the
// type check.
//
// What the checkout-session creator must set, because fulfilment reads it back from the events:
// - `client_reference_id` = our user id, and session `metadata` = checkoutSessionMetadata(...)
// - in subscription mode also `subscription_data.metadata` = subscriptionMetadata(...): invoices
//   and subscription events carry the subscription's metadata, not the session's, and an invoice
//   can arrive before the checkout event, so that is how it is tied to the user.
import type { Stripe } from "stripe";
import type { BuyerDetails } from "../../billing/ports/events.ts";
import { checkoutSessionMetadata, STRIPE_API_VERSION, subscriptionMetadata } from "../stripe/format.ts";
import {
  invoiceAmounts,
  invoiceLines,
  invoiceTaxLines,
  type SaleTax,
  type Seconds,
} from "./invoice-parts.ts";
import { stripeFixture } from "./stripe-fixtures.ts";

export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** Unix seconds. */
export type { SaleTax, Seconds } from "./invoice-parts.ts";

export interface EventMeta {
  /** evt_… */
  eventId: string;
  created: Seconds;
}

export function envelope<TType extends string, TObject>(
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

/** The tax of one sale, as Stripe Tax computed it (the local checkout computes it the same way). */

export const NO_ADDRESS = {
  city: null,
  country: null,
  line1: null,
  line2: null,
  postal_code: null,
  state: null,
};

export const taxIdsOf = (buyer: BuyerDetails | undefined) =>
  buyer?.vatId ? [{ type: "eu_vat" as const, value: buyer.vatId }] : [];

/** Stripe's `tax_exempt` of a customer whose VAT is reverse charged. */
export const taxExempt = (tax: SaleTax | undefined) =>
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
  const buyer = inv.tax?.buyer;
  // Stripe's invoice-level period_start/period_end are the USAGE period, which for a subscription
  // invoice looks back one period (and is a single instant on the first invoice). The period that
  // is being paid for is the line's. The parser therefore reads the line, never these.
  const usageInstant = inv.period.start;
  const ours = {
    id: inv.id,
    object: "invoice" as const,
    account_country: null,
    ...invoiceAmounts(inv.amount, inv.tax?.amount ?? 0, paid),
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
    lines: invoiceLines({
      invoiceId: inv.id,
      net: inv.amount,
      tax: inv.tax,
      currency: inv.currency,
      description: `1 × ${inv.productName}`,
      priceId: inv.priceId,
      productId: inv.productId,
      period: { start: inv.period.start, end: inv.period.end },
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
    }),
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
    total_taxes: invoiceTaxLines(inv.tax, inv.amount),
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
  paymentIntentId: string | null;
  /** The invoice the charge paid (Stripe named it on the charge before API version 2025-03-31). */
  invoiceId?: string | null;
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
    ...(charge.invoiceId ? { invoice: charge.invoiceId } : {}),
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
  /** Stripe's statuses (an inquiry's are `warning_*`); `charge_refunded` is an older API version's. */
  status:
    | "warning_needs_response"
    | "warning_closed"
    | "needs_response"
    | "under_review"
    | "won"
    | "lost"
    | "prevented"
    | "charge_refunded";
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
