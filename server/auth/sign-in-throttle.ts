// Throttling of sign-in that cannot lock a customer out (ACCOUNT-SECURITY.md): attempts that do not
// succeed are counted per client address and per (username, address), never per username alone.
// Each attempt takes its points before the password is checked, so a burst of parallel guesses is
// bounded as tightly as a sequence; an attempt with the right password gives them back, and clears
// its pair's count.
import { addressKey } from "../http/client-ip.ts";
import type { LimitResult, RateLimiter } from "../http/rate-limit.ts";

export interface SignInAttempt {
  username: string;
  ip: string;
}

// keyDigest lower-cases the key: "ANN" and "ann" from one address are one pair. The address is
// counted by its network, as the per-address counter counts it (an IPv6 client by its /64).
const pairOf = (attempt: SignInAttempt) => `${attempt.username}\u0000${addressKey(attempt.ip)}`;

/** Counts the attempt; refused while the address or the pair is over its limit. */
export async function admitSignIn(limiter: RateLimiter, attempt: SignInAttempt): Promise<LimitResult> {
  const byAddress = await limiter.consume("loginFailureIp", attempt.ip);
  const byPair = await limiter.consume("loginFailurePair", pairOf(attempt));
  if (!byAddress.allowed) return byAddress;
  if (!byPair.allowed) {
    // The address's point was taken for an attempt that is not made.
    await limiter.refund("loginFailureIp", attempt.ip);
    return byPair;
  }
  return { allowed: true };
}

/** The password was right: the attempt does not count, and the pair starts over. */
export async function signInSucceeded(limiter: RateLimiter, attempt: SignInAttempt): Promise<void> {
  await limiter.refund("loginFailureIp", attempt.ip);
  await limiter.clear("loginFailurePair", pairOf(attempt));
}
