// The words of the pages a checkout returns to (/payment/success, /payment/failed): apart from
// ui-text.ts, whose words every page loads.

export const PAYMENT_TEXT = {
  success: "Payment Successful!",
  failed: "Payment Failed",
  goToDashboard: "Go to Dashboard",
  tryAgain: "Try again",
} as const;
