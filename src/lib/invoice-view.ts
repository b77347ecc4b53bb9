// Where each billing history row's invoice is. The numbers and words of an invoice (money, VAT
// label, country names) are contract/invoice-document.ts's, shared with the PDF the API renders.

import type { AutoTopUpAttempt } from "../../contract/auto-top-up.ts";
import { issuedNoInvoice } from "../../contract/invoice-status.ts";
import type { InvoiceSummary } from "../../contract/invoices.ts";

/** The portal's own printable page of an invoice (the local checkout's invoices). */
export const invoicePagePath = (id: string) => `/profile/billing/invoice?id=${encodeURIComponent(id)}`;

export type InvoiceLink = { href: string; external: boolean };

/** Stripe's hosted page when Stripe issued the invoice, else the portal's page of our invoice `id`. */
function linkOf(url: string | null, id: string | null): InvoiceLink | null {
  if (url) return { href: url, external: true };
  if (id) return { href: invoicePagePath(id), external: false };
  return null;
}

/**
 * Where a row's invoice is: Stripe's hosted page when Stripe issued it, the portal's printable
 * page for our own numbered invoices, none for a failed payment.
 */
export function invoiceLink(row: InvoiceSummary): InvoiceLink | null {
  return linkOf(row.invoice_url, row.number && !issuedNoInvoice(row.status) ? row.id : null);
}

/**
 * Where a history row links: its invoice, or for a payment waiting for the bank's confirmation
 * (`pay_url`), the row's own page, which offers "Complete payment" too (decision 048's addendum).
 */
export function historyRowLink(row: InvoiceSummary): InvoiceLink | null {
  return row.pay_url ? { href: invoicePagePath(row.id), external: false } : invoiceLink(row);
}

/** Where an automatic top-up's invoice is, as its billing history row links it. */
export function attemptInvoiceLink(
  attempt: Pick<AutoTopUpAttempt, "invoice_id" | "invoice_url">,
): InvoiceLink | null {
  return linkOf(attempt.invoice_url, attempt.invoice_id);
}
