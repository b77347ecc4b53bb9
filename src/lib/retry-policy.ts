// The spec's query behaviour (section 7): the user fetch is never retried; every other read is
// retried 3 times with exponential backoff starting at 1 s and capped at 30 s.

export const MAX_RETRIES = 3;
export const BASE_DELAY_MS = 1000;
export const MAX_DELAY_MS = 30_000;
/**
 * How long a page waits for the user fetch before it says the account could not be loaded: a
 * request that never answers (a dead connection, a proxy holding it) would otherwise leave guarded
 * pages on their loading state for good.
 */
export const USER_FETCH_TIMEOUT_MS = 10_000;
/** How long a read's answer is reused before it is fetched again (5 minutes). */
export const CACHE_LIFETIME_MS = 5 * 60_000;

/** Wait before retry number `attempt` (0 for the first retry): 1 s, 2 s, 4 s ... at most 30 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_DELAY_MS);
}

/**
 * Whether a failed read is worth another attempt: network failures and server errors are, but a
 * 4xx answer will not change by asking again (except 408 and 429, which say "later").
 */
export function isRetryableStatus(status: number | undefined): boolean {
  if (status === undefined) return true;
  return status >= 500 || status === 408 || status === 429;
}
