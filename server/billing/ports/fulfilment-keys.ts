// Fulfilment keys: the unique key of each credit grant, one per thing that was paid for (or, for
// the free credits, per user). The ledger refuses a second grant with the same key, so a purchase
// is granted exactly once however many webhook events describe it, however often each is
// redelivered, and in whatever order they arrive. Event ids cannot do this alone: one purchase
// arrives as SEVERAL events with different ids.
//
// How each purchase arrives, and why these keys:
// - A top-up is a Checkout Session in payment mode. Only checkout.session.completed carries it
//   (payment-mode sessions create no invoice here), so the session id is the key.
// - A subscription's FIRST payment arrives twice: as checkout.session.completed (mode
//   subscription; carries the session id, the subscription id and the first invoice's id, but no
//   period) and as invoice.paid with billing_reason subscription_create (carries the invoice id,
//   the subscription id and the period, but no session id). The one id both always carry is the
//   subscription id, and a subscription starts once, so the key is the subscription id with a
//   "first" marker. (Keying the invoice event by invoice id would grant twice: the checkout event
//   would have to find the same key without knowing the invoice for sure.)
// - A RENEWAL arrives once, as invoice.paid with billing_reason subscription_cycle. The key is the
//   subscription id plus the start of the period it pays for, not the invoice id: it is "one grant
//   per paid period", so even a second invoice for the same period (an operator re-issuing a voided
//   one) cannot grant twice. The first period is keyed by "first" rather than its start, because
//   the checkout event does not know the start.
// - The FREE initial credits are granted on e-mail verification, once per user ever.

/** A top-up pack bought through the Checkout Session `checkoutSessionId`. */
export function topUpKey(checkoutSessionId: string): string {
  return `topup:${checkoutSessionId}`;
}

/** The first payment of subscription `subscriptionId` (from either of its two events). */
export function firstPaymentKey(subscriptionId: string): string {
  return `subscription:${subscriptionId}:first`;
}

/** The renewal of `subscriptionId` for the period starting at `periodStart`. */
export function renewalKey(subscriptionId: string, periodStart: Date): string {
  return `subscription:${subscriptionId}:period:${Math.floor(periodStart.getTime() / 1000)}`;
}

/** The free initial credits of user `userId`. */
export function freeCreditsKey(userId: string): string {
  return `free:${userId}`;
}

/** The pack of auto top-up attempt `attemptId` (AUTO-TOP-UP.md), from its charge's answer or its event. */
export function autoTopUpKey(attemptId: string): string {
  return `auto_top_up:${attemptId}`;
}
