// Concurrent generation requests per plan (spec section 9). The spec has two readings and says both
// apply to their places: the marketing feature table on /plans (up to 4, 5, 7, 10 for B to E) and
// the plan-change dialog on /profile (up to 4 for B and C, 5 for D, 10 for E). The generation
// service enforces the marketing table's figure, which `POST /v1/introspect` reports as
// `limits.concurrent_requests`.
import type { TierKey } from "./product-ids.ts";

export interface TierConcurrency {
  /** The /plans feature table's figure, and the limit introspection reports. */
  concurrentRequests: number;
  /** The /profile plan-change dialog's figure; null when the spec gives none. */
  concurrentRequestsDialog: number | null;
}

export const TIER_CONCURRENCY: Record<TierKey, TierConcurrency> = {
  // OPERATOR: the spec leaves Tier A's concurrency open. 2 is a placeholder: set your real limit.
  A: { concurrentRequests: 2, concurrentRequestsDialog: null },
  B: { concurrentRequests: 4, concurrentRequestsDialog: 4 },
  C: { concurrentRequests: 5, concurrentRequestsDialog: 4 },
  D: { concurrentRequests: 7, concurrentRequestsDialog: 5 },
  E: { concurrentRequests: 10, concurrentRequestsDialog: 10 },
};

/** OPERATOR: the Free plan's concurrency (the spec sells it without a figure). */
export const FREE_CONCURRENT_REQUESTS = 1;

/** The concurrency of a plan: a tier, or the Free plan when there is none. */
export function concurrentRequestsOf(tier: TierKey | undefined): number {
  return tier ? TIER_CONCURRENCY[tier].concurrentRequests : FREE_CONCURRENT_REQUESTS;
}
