// The failed renewal's notice, on /profile and /profile/billing, and its way on for a role with
// billing or without. Apart from ui-text.ts, whose words every page loads.

export const FAILED_RENEWAL_TEXT = {
  failedNotice: "Your last renewal payment failed. Update your payment method to pay it and keep your plan.",
  updatePaymentMethod: "Update payment method",
  /** For a member whose role has no billing: who can fix it. */
  askOwnerToUpdate: "An owner or a billing member of the organisation can update the payment method.",
} as const;
