// The number an invoice is known by, as one rule for every place that names it: the customer's
// billing history, invoice page and PDF (invoice-view.ts), a credit note's "refers to", the dispute
// hold's mail, audit entry and the portal's alert (dispute-hold.ts), and the console's payments and
// ledger (operations/customer-views.ts), and auto top-up's latest attempts (auto-top-up/view.ts).
//
// With Stripe the invoice is Stripe's document: its number arrives with Stripe's invoice events
// (provider_invoice_documents) and is the one on the page and PDF the customer opens; we number
// nothing. The local checkout's invoices are ours ("INV-2026-000001"): its invoice events carry no
// number. So the document's number, when there is one, else ours; null while neither is known.

/** An invoice's number as its customer sees it: the provider's document's, else ours; null: none yet. */
export function invoiceNumber(
  invoice: { number: string | null },
  document: { number: string | null } | null | undefined,
): string | null {
  return document?.number ?? invoice.number;
}
