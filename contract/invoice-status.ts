// An invoice's status and what follows from it, without zod: the billing pages draw with these.
// Imported from contract/invoices.ts, they made every page that shows an invoice load zod and the
// billing schemas up front (about 10 KB gzip); the schemas re-export them.

/**
 * failed: declined (no invoice); not_charged: an auto top-up that was due and that a pause held
 * back (AUTO-TOP-UP.md); authentication_required: an auto top-up waiting for the bank's
 * confirmation, which its `pay_url` completes; cancelled: such a payment cancelled or lapsed before
 * it was paid; refunded: paid back in full by us; disputed: the buyer's bank is disputing the
 * payment, its credits frozen until it is decided; dispute_lost: the dispute was decided for the
 * buyer's bank, which took the payment back (its unspent credits with it).
 */
export const INVOICE_STATUSES = [
  "paid",
  "failed",
  "not_charged",
  "authentication_required",
  "cancelled",
  "refunded",
  "disputed",
  "dispute_lost",
] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * A payment that was not made (declined, held back by auto top-up, waiting for the bank's
 * confirmation, or cancelled): no invoice was issued.
 */
export const issuedNoInvoice = (status: InvoiceStatus): boolean =>
  status === "failed" ||
  status === "not_charged" ||
  status === "authentication_required" ||
  status === "cancelled";

/**
 * Whether a payment moved no money (held back by auto top-up, an auto top-up declined, or
 * cancelled): the billing history's row and auto top-up's attempt show no amounts for it. A failed
 * top-up is always an auto top-up (a checkout's decline makes no row). A declined renewal keeps its
 * amount: it is still owed, and retried with the new card.
 */
export const chargedNothing = (row: { status: InvoiceStatus; kind?: string | undefined }): boolean =>
  row.status === "not_charged" ||
  row.status === "cancelled" ||
  (row.status === "failed" && row.kind === "topup");
