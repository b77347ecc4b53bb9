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

/** What went back of an invoice's `amount`: taken back after a lost dispute, else refunded. */
export const returnedPart = (status: string, amount: string): string =>
  status === "dispute_lost" ? INVOICE_TEXT.takenBackPart(amount) : INVOICE_TEXT.refundedPart(amount);
