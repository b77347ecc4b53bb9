// An invoice as Stripe sends it (in an event, or retrieved with its payments expanded) and what
// the invoice readers (invoice-events.ts, auto-top-up-invoices.ts) take of it: the payment, the
// document, the payment intent and its last decline, when it was paid.
import * as z from "zod";
import type { InvoiceDocument, PaymentFacts } from "../../billing/ports/events.ts";
import {
  addressSchema,
  currencySchema,
  euVatIdOf,
  fromSeconds,
  idRef,
  metadataSchema,
  seconds,
  taxIdsSchema,
} from "./event-reading.ts";

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

/**
 * A payment intent as an invoice names it: expanded (its state and last decline), or by id (read
 * as one whose state is not said).
 */
const paymentIntentRef = z.union([
  z
    .string()
    .min(1)
    .transform((id) => ({ id, status: null, last_payment_error: null })),
  z.object({
    id: z.string().min(1),
    status: z.string(),
    last_payment_error: z
      .object({ code: z.string().nullish(), decline_code: z.string().nullish() })
      .nullish(),
  }),
]);

export const invoiceSchema = z.object({
  id: z.string().min(1),
  status: z.string().nullish(),
  metadata: metadataSchema,
  number: z.string().nullish(),
  hosted_invoice_url: z.string().nullish(),
  invoice_pdf: z.string().nullish(),
  billing_reason: z.string().nullish(),
  customer: idRef.nullish(),
  currency: currencySchema,
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
  /** Only when expanded (never in an event): the invoice's payment attempts. */
  payments: z
    .object({
      data: z.array(
        z.object({
          status: z.string(),
          is_default: z.boolean().nullish(),
          payment: z.object({ payment_intent: paymentIntentRef.nullish() }),
        }),
      ),
    })
    .nullish(),
  /** Before API version 2025-03-31. */
  payment_intent: paymentIntentRef.nullish(),
});

export function invoicePayment(inv: z.infer<typeof invoiceSchema>): PaymentFacts {
  const tax = inv.total_taxes ? inv.total_taxes.reduce((sum, t) => sum + t.amount, 0) : (inv.tax ?? 0);
  const total = inv.total ?? inv.amount_due ?? inv.amount_paid;
  return {
    net: inv.total_excluding_tax ?? inv.subtotal ?? total - tax,
    tax,
    total,
    currency: inv.currency,
    reverseCharge:
      inv.customer_tax_exempt === "reverse" ||
      // Stryker disable next-line ArrayDeclaration: any stand-in array holds no reverse-charge tax line.
      (inv.total_taxes ?? []).some((t) => t.taxability_reason === "reverse_charge"),
    buyer: {
      name: inv.customer_name ?? null,
      email: inv.customer_email ?? null,
      country: inv.customer_address?.country ?? null,
      vatId: euVatIdOf(inv.customer_tax_ids),
    },
  };
}

/** The invoice's number and pages, each null while it has none. */
export function documentOf(inv: z.infer<typeof invoiceSchema>): InvoiceDocument {
  return {
    invoiceId: inv.id,
    number: inv.number ?? null,
    hostedInvoiceUrl: inv.hosted_invoice_url ?? null,
    invoicePdfUrl: inv.invoice_pdf ?? null,
  };
}

/** Stripe's document of the invoice, once it has a number or a page (the local provider's have neither). */
export function invoiceDocument(inv: z.infer<typeof invoiceSchema>): InvoiceDocument | null {
  if (!inv.number && !inv.hosted_invoice_url && !inv.invoice_pdf) return null;
  return documentOf(inv);
}

export type PaymentIntentRef = z.infer<typeof paymentIntentRef>;

/**
 * The payment intent of an invoice's payment: the attempt that paid it, else the default one (made
 * at finalisation, the one `invoices.pay` confirms), else the first; before API version 2025-03-31
 * the invoice's own `payment_intent`. Null when the invoice names none (an event's never lists
 * its payments).
 */
export function paymentIntentOfInvoice(inv: z.infer<typeof invoiceSchema>): PaymentIntentRef | null {
  const payments = inv.payments?.data ?? [];
  const chosen =
    payments.find((p) => p.status === "paid") ?? payments.find((p) => p.is_default) ?? payments[0];
  return chosen?.payment.payment_intent ?? inv.payment_intent ?? null;
}

/** The last decline of an expanded payment intent: its decline code, else the error's code. */
export function declineCodeOf(intent: PaymentIntentRef | null): string | null {
  const error = intent?.last_payment_error;
  return error?.decline_code ?? error?.code ?? null;
}

export const paidAtOf = (inv: z.infer<typeof invoiceSchema>, otherwise: Date) =>
  inv.status_transitions?.paid_at == null ? otherwise : fromSeconds(inv.status_transitions.paid_at);
