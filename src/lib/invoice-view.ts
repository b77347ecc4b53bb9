// Where each billing history row's invoice is. The numbers and words of an invoice (money, VAT
// label, country names) are contract/invoice-document.ts's, shared with the PDF the API renders.
import { issuedNoInvoice } from "../../contract/invoice-status.ts";
import type { InvoiceSummary } from "../../contract/invoices.ts";

/** The portal's own printable page of an invoice (the local checkout's invoices). */
export const invoicePagePath = (id: string) => `/profile/billing/invoice?id=${encodeURIComponent(id)}`;

/**
 * Where a row's invoice is: Stripe's hosted page when Stripe issued it, the portal's printable
 * page for our own numbered invoices, none for a failed payment.
 */
export function invoiceLink(row: InvoiceSummary): { href: string; external: boolean } | null {
  if (row.invoice_url) return { href: row.invoice_url, external: true };
  if (row.number && !issuedNoInvoice(row.status)) return { href: invoicePagePath(row.id), external: false };
  return null;
}
