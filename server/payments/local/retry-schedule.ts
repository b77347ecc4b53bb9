// When the local checkout redelivers a webhook event that did not get a 2xx answer, modelled on
// Stripe: in live mode Stripe retries "for up to three days with an exponential back off" and
// does not publish the individual intervals (https://docs.stripe.com/webhooks#retries). These
// are ours: quick retries first (a restart or a deploy is over in minutes), then hours apart, the
// last attempt a little under three days after the first. Every delay is measured from the
// previous failed attempt and read against the injected clock, so tests can fast-forward.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Delay before each retry, after the attempt before it failed. Attempt 1 goes out at once; the
 * total is 1 m + 5 m + 30 m + 2 h + 5 h + 10 h + 12 h + 24 h + 18 h = 71 h 36 m.
 */
export const RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  12 * HOUR,
  24 * HOUR,
  18 * HOUR,
]);

/** The first attempt plus one per retry delay. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * Milliseconds to wait before the next attempt, given how many attempts have failed so far
 * (1 after the first failure), or null when that was the last attempt and the sender gives up.
 */
export function nextAttemptDelay(
  failedAttempts: number,
  delays: readonly number[] = RETRY_DELAYS_MS,
): number | null {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) {
    throw new RangeError(`failedAttempts counts failed attempts from 1: ${failedAttempts}`);
  }
  return delays[failedAttempts - 1] ?? null;
}

/** When attempt number `attempt` (1-based) goes out if every earlier one fails, or null past the last. */
export function attemptTime(
  firstAttemptAt: Date,
  attempt: number,
  delays: readonly number[] = RETRY_DELAYS_MS,
): Date | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`Attempts count from 1: ${attempt}`);
  if (attempt > delays.length + 1) return null;
  const wait = delays.slice(0, attempt - 1).reduce((sum, ms) => sum + ms, 0);
  return new Date(firstAttemptAt.getTime() + wait);
}

/** Stripe counts a delivery as successful only on a 2xx answer (a redirect is a failure). */
export function isDelivered(httpStatus: number): boolean {
  return httpStatus >= 200 && httpStatus < 300;
}
