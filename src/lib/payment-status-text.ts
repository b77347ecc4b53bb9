// A payment's status as the billing history and the console's payments list name it: apart from
// billing-text.ts, whose other words the console's customer page does not need (1.5 KB gzip of a
// page at its budget).

export const PAYMENT_STATUS_LABELS = {
  paid: "Paid",
  failed: "Failed",
  not_charged: "Not charged",
  // An auto top-up waiting for the bank; Billing's "Recent automatic top-ups" reads these words too.
  authentication_required: "Confirmation needed",
  cancelled: "Cancelled",
  refunded: "Refunded",
  disputed: "Disputed",
  // Not "Refunded": a refund is ours; here the buyer's bank took the money back. Nor "Dispute lost":
  // that is the seller's side, and this is the buyer's own history, whose bank won.
  dispute_lost: "Charged back",
} as const;

/** The action beside a payment waiting for the bank: Billing history's row and auto top-up's section. */
export const COMPLETE_PAYMENT = "Complete payment";

/** Read out in place of an amount a row leaves out (it shows a dash): Billing history's and auto top-up's. */
export const NO_AMOUNT = "none";
