// The 402 of a dispute hold (ACCOUNT-SECURITY.md), in a module of its own: /profile shows the same
// words beside the credits, and importing DETAIL's whole table would cost that page 2 KB gzip.

/** Consume on an organisation with a dispute hold; also the first words of /profile's alert. */
export const PAYMENT_DISPUTED = "Payment disputed. Contact support.";
