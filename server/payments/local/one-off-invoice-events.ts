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
  taxExempt,
  taxIdsOf,
} from "./event-builders.ts";
import { invoiceAmounts, invoiceLines, invoiceTaxLines } from "./invoice-parts.ts";
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

export function oneOffInvoiceObject(inv: OneOffInvoiceInput) {
  const buyer = inv.tax.buyer;
  const ours = {
    id: inv.id,
    object: "invoice" as const,
    account_country: null,
    ...invoiceAmounts(inv.net, inv.tax.amount, inv.status === "paid"),
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
    lines: invoiceLines({
      invoiceId: inv.id,
      net: inv.net,
      tax: inv.tax,
      currency: inv.currency,
      description: inv.description,
      priceId: inv.priceId,
      productId: inv.productId,
      // A one-off invoice item's period is the instant it was added.
      period: { start: inv.created, end: inv.created },
      parent: {
        type: "invoice_item_details" as const,
        invoice_item_details: {
          invoice_item: `ii_${inv.id.replace(/^in_/, "")}`,
          proration: false,
          proration_details: { credited_items: null },
          subscription: null,
        },
        subscription_item_details: null,
      },
    }),
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
    total_taxes: invoiceTaxLines(inv.tax, inv.net),
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
