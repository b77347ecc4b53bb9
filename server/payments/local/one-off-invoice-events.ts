// The Stripe events of an auto top-up's one-off invoice (one invoice item, charged to the saved
// card; AUTO-TOP-UP.md), as the local checkout sends them: invoice.paid, invoice.payment_failed,
// invoice.payment_action_required and invoice.voided. Built, like event-builders.ts, on Stripe's own
// example invoice and checked against the SDK's types. As in Stripe's events, the invoice does not
// list its payments: a decline's code is in the provider's answer (and a read of the invoice).
import type { Stripe } from "stripe";
import {
  type DeepPartial,
  type EventMeta,
  envelope,
  NO_ADDRESS,
  type SaleTax,
  type Seconds,
  taxabilityReason,
  taxExempt,
  taxIdsOf,
} from "./event-builders.ts";
import { stripeFixture } from "./stripe-fixtures.ts";

/** The keys billing reads (server/payments/stripe/format.ts METADATA). */
const ORG_ID = "org_id";
const AUTO_TOP_UP_ATTEMPT_ID = "auto_top_up_attempt_id";

export interface OneOffInvoiceInput {
  /** in_… */
  id: string;
  customerId: string;
  orgId: string;
  attemptId: string;
  /** pm_… the invoice is charged to. */
  paymentMethodId: string;
  productId: string;
  priceId: string;
  /** "Auto top-up: 500 credits". */
  description: string;
  currency: string;
  /** Minor units. */
  net: number;
  tax: SaleTax;
  created: Seconds;
  status: "open" | "paid" | "void";
  paidAt: Seconds | null;
  voidedAt: Seconds | null;
  attemptCount: number;
  /**
   * Where the customer pays it: the local checkout's own page (/_checkout/invoice/{id}) stands for
   * Stripe's hosted invoice page where the payment asks for authentication; null elsewhere, since
   * our own invoice (numbered at the grant) is the document of a local payment.
   */
  hostedInvoiceUrl: string | null;
}

function taxLines(inv: OneOffInvoiceInput) {
  return [
    {
      amount: inv.tax.amount,
      tax_behavior: "exclusive" as const,
      tax_rate_details: { tax_rate: `txr_${inv.tax.treatment}_${inv.tax.rateBasisPoints}` },
      taxability_reason: taxabilityReason(inv.tax.treatment),
      taxable_amount: inv.net,
      type: "tax_rate_details" as const,
    },
  ];
}

function lineOf(inv: OneOffInvoiceInput) {
  const bare = inv.id.replace(/^in_/, "");
  return {
    id: `il_${bare}`,
    object: "line_item" as const,
    amount: inv.net,
    currency: inv.currency,
    description: inv.description,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice: inv.id,
    livemode: false,
    metadata: {},
    parent: {
      type: "invoice_item_details" as const,
      invoice_item_details: {
        invoice_item: `ii_${bare}`,
        proration: false,
        proration_details: { credited_items: null },
        subscription: null,
      },
      subscription_item_details: null,
    },
    // A one-off invoice item's period is the instant it was added.
    period: { start: inv.created, end: inv.created },
    pretax_credit_amounts: [],
    pricing: {
      type: "price_details" as const,
      price_details: { price: inv.priceId, product: inv.productId },
      unit_amount_decimal: String(inv.net),
    },
    quantity: 1,
    subtotal: inv.net,
    taxes: taxLines(inv),
  };
}

export function oneOffInvoiceObject(inv: OneOffInvoiceInput) {
  const total = inv.net + inv.tax.amount;
  const paid = inv.status === "paid";
  const buyer = inv.tax.buyer;
  const ours = {
    id: inv.id,
    object: "invoice" as const,
    account_country: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: paid ? total : 0,
    amount_remaining: paid ? 0 : total,
    attempt_count: inv.attemptCount,
    attempted: inv.attemptCount > 0,
    // Auto top-up retries nothing on its own against a declined card.
    auto_advance: false,
    automatic_tax: {
      enabled: true,
      liability: { type: "self" as const },
      provider: "stripe",
      status: "complete",
      disabled_reason: null,
    },
    billing_reason: "manual" as const,
    collection_method: "charge_automatically" as const,
    created: inv.created,
    currency: inv.currency,
    customer: inv.customerId,
    customer_address: buyer.country ? { ...NO_ADDRESS, country: buyer.country } : null,
    customer_email: buyer.email,
    customer_name: buyer.name,
    customer_shipping: null,
    customer_tax_exempt: taxExempt(inv.tax),
    customer_tax_ids: taxIdsOf(buyer),
    default_payment_method: inv.paymentMethodId,
    description: null,
    due_date: null,
    effective_at: inv.created,
    from_invoice: null,
    hosted_invoice_url: inv.hostedInvoiceUrl,
    invoice_pdf: null,
    last_finalization_error: null,
    lines: {
      object: "list" as const,
      data: [lineOf(inv)],
      has_more: false,
      url: `/v1/invoices/${inv.id}/lines`,
    },
    livemode: false,
    metadata: { [AUTO_TOP_UP_ATTEMPT_ID]: inv.attemptId, [ORG_ID]: inv.orgId },
    next_payment_attempt: null,
    number: null,
    parent: null,
    period_end: inv.created,
    period_start: inv.created,
    shipping_cost: null,
    shipping_details: null,
    status: inv.status,
    status_transitions: {
      finalized_at: inv.created,
      marked_uncollectible_at: null,
      paid_at: inv.paidAt,
      voided_at: inv.voidedAt,
    },
    subtotal: inv.net,
    subtotal_excluding_tax: inv.net,
    total,
    total_discount_amounts: [],
    total_excluding_tax: inv.net,
    total_pretax_credit_amounts: [],
    total_taxes: taxLines(inv),
    webhooks_delivered_at: inv.created,
  } satisfies DeepPartial<Stripe.Invoice>;
  return { ...stripeFixture("invoice"), ...ours };
}

export const oneOffInvoicePaidEvent = (meta: EventMeta, inv: OneOffInvoiceInput) =>
  envelope(meta, "invoice.paid", oneOffInvoiceObject(inv)) satisfies DeepPartial<Stripe.InvoicePaidEvent>;

export const oneOffInvoicePaymentFailedEvent = (meta: EventMeta, inv: OneOffInvoiceInput) =>
  envelope(
    meta,
    "invoice.payment_failed",
    oneOffInvoiceObject(inv),
  ) satisfies DeepPartial<Stripe.InvoicePaymentFailedEvent>;

export const oneOffInvoiceActionRequiredEvent = (meta: EventMeta, inv: OneOffInvoiceInput) =>
  envelope(
    meta,
    "invoice.payment_action_required",
    oneOffInvoiceObject(inv),
  ) satisfies DeepPartial<Stripe.InvoicePaymentActionRequiredEvent>;

export const oneOffInvoiceVoidedEvent = (meta: EventMeta, inv: OneOffInvoiceInput) =>
  envelope(meta, "invoice.voided", oneOffInvoiceObject(inv)) satisfies DeepPartial<Stripe.InvoiceVoidedEvent>;
