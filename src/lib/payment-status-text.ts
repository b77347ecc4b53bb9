// A payment's status as the billing history and the console's payments list name it: apart from
// billing-text.ts, whose other words the console's customer page does not need (1.5 KB gzip of a
// page at its budget).

export const PAYMENT_STATUS_LABELS = {
  paid: "Paid",
  failed: "Failed",
  not_charged: "Not charged",
  // An auto top-up waiting for the bank, in the words of Billing's "Recent automatic top-ups".
  authentication_required: "Confirmation needed",
  cancelled: "Cancelled",
  refunded: "Refunded",
  disputed: "Disputed",
} as const;
