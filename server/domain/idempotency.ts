// Idempotency like Stripe's: a charge repeated with its idempotency key answers the first charge's
// result only when it is the same request. The same key with other parameters is refused (409):
// otherwise a caller could reuse a cheap charge's key for an expensive generation and pay nothing,
// and the generation service could not tell the two answers apart.

/** What identifies a charge besides its user and idempotency key, as a spend row records it. */
export interface ChargeFingerprint {
  /** The API key that paid, or null for a charge by user id. */
  apiKeyId: string | null;
  /** The metered feature, or null for the manual form (an admin's amount). */
  feature: string | null;
  people: string | null;
  quantity: number | null;
  /** Milli-credits. */
  amount: number;
}

/**
 * Whether `repeat` asks for what `first` was. A metered charge is the same when it names the same
 * key, feature, people and quantity: its amount follows from them, and a price change between the
 * two must not turn a retry into an error. A manual charge (no feature) is the same when its amount is.
 */
export function isSameCharge(first: ChargeFingerprint, repeat: ChargeFingerprint): boolean {
  return (
    first.apiKeyId === repeat.apiKeyId &&
    first.feature === repeat.feature &&
    first.people === repeat.people &&
    first.quantity === repeat.quantity &&
    (first.feature !== null || first.amount === repeat.amount)
  );
}
