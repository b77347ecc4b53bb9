// The words of an invoice or credit note, wherever it is shown (the printable page, the PDF, the
// billing page's list). On their own, not in invoice-document.ts: billing-text.ts spreads them into
// the words the console's customer page uses too, and that module brings the table of country
// names (2 KB gzip) with it.

/** The invoice document's words. */
export const INVOICE_TEXT = {
  invoiceTitle: "Invoice",
  creditNoteTitle: "Credit note",
  creditNoteNumber: "Credit note number",
  refersTo: "Corrects invoice",
  invoiceNumber: "Invoice number",
  invoiceDate: "Date",
  seller: "From",
  buyer: "To",
  description: "Description",
  lineQuantity: (quantity: number, unitPrice: string) => `${quantity} × ${unitPrice} (net)`,
  amount: "Amount (net)",
  subtotal: "Net total",
  vatLine: (rate: string) => `VAT ${rate}`.trimEnd(),
  grandTotal: "Total",
  vatIdLabel: (id: string) => `VAT ID ${id}`,
  refundedPart: (amount: string) => `${amount} refunded`,
  /** A lost dispute: the buyer's bank took the money back; the seller refunded nothing. */
  takenBackPart: (amount: string) => `${amount} taken back by the buyer's bank after a dispute`,
} as const;

/**
 * The lines saying what went back of an invoice: what we refunded (its credit notes), and after a
 * lost dispute what the buyer's bank took back of the rest (`taken_back`). A dispute lost after a
 * partial refund gives both, so the refunded part is not counted twice beside its credit note.
 */
export function returnedParts(
  invoice: { status: string; refunded: number; taken_back?: number | undefined },
  money: (cents: number) => string,
): string[] {
  if (invoice.refunded <= 0) return [];
  if (invoice.status !== "dispute_lost") return [INVOICE_TEXT.refundedPart(money(invoice.refunded))];
  const takenBack = Math.min(invoice.taken_back ?? invoice.refunded, invoice.refunded);
  const refundedBefore = invoice.refunded - takenBack;
  return [
    ...(refundedBefore > 0 ? [INVOICE_TEXT.refundedPart(money(refundedBefore))] : []),
    ...(takenBack > 0 ? [INVOICE_TEXT.takenBackPart(money(takenBack))] : []),
  ];
}
