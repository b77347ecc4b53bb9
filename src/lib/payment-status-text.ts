// A payment's status as the billing history and the console's payments list name it: apart from
// billing-text.ts, whose other words the console's customer page does not need (1.5 KB gzip of a
// page at its budget).

export const PAYMENT_STATUS_LABELS = {
  paid: "Paid",
  failed: "Failed",
  not_charged: "Not charged",
  refunded: "Refunded",
  disputed: "Disputed",
} as const;
