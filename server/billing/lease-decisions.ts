// Whether a charge can be made through a credit lease this instance holds, and from which grants
// (decision 051, step 4). Plain functions over what the lease was taken with: nothing here does I/O
// or reads the clock. A lease never refuses a charge: anything it cannot decide for certain (a
// charge by user id, another month, a key past its expiry or without the feature, more than the
// lease has left, a lease about to end) is decided under the organisation's lock, whose answers
// and refusals are the tested ones.
import { type CreditGrant, type Millicredits, planSpend, type SpendTake } from "../domain/ledger.ts";
import { keyRefusal } from "./key-refusal.ts";
import type { SpendRequest } from "./spends.ts";

/** A lease this instance holds, with what it has left of each grant. */
export interface HeldLease {
  id: string;
  orgId: string;
  apiKeyId: string;
  memberId: string | null;
  month: string;
  /** The key as it was when the lease was taken: any change to it ends the lease. */
  key: { revokedAt: Date | null; expiresAt: Date | null; features: string[] | null };
  /** The lease's grants, each with what the lease has left of it (`leaseGrants`). */
  grants: CreditGrant[];
  expiresAt: Date;
  /**
   * The organisation's auto top-up threshold (milli-credits) when the lease was taken, null when
   * auto top-up was not on: saving its settings ends the lease.
   */
  autoTopUpThreshold: Millicredits | null;
}

/**
 * How long before its end a lease stops taking charges: a charge written after the end is refused
 * and decided again under the lock, so the last moments are left to the lock rather than spent on a
 * write that may come too late.
 */
export const LEASE_END_MARGIN_MS = 1000;

export type LeaseDecision =
  | { through: "lease"; takes: SpendTake[] }
  /**
   * Decide under the lock; `renew` when the lease is done (too little left for this charge, or at
   * its end): the holder gives it back and takes a new one.
   */
  | { through: "lock"; renew: boolean };

export function decideInLease(held: HeldLease, request: SpendRequest): LeaseDecision {
  const meter = request.meter;
  if (request.now.getTime() + LEASE_END_MARGIN_MS >= held.expiresAt.getTime()) {
    return { through: "lock", renew: true };
  }
  if (
    !meter ||
    meter.apiKeyId !== held.apiKeyId ||
    meter.month !== held.month ||
    request.recordedAt !== undefined ||
    request.userId !== undefined ||
    keyRefusal(held.key, meter.feature, request.now) !== null
  ) {
    return { through: "lock", renew: false };
  }
  const plan = planSpend(held.grants, request.amount, request.now);
  return plan.ok ? { through: "lease", takes: plan.takes } : { through: "lock", renew: true };
}

/**
 * Whether a charge made through the lease asks auto top-up to look (AUTO-TOP-UP.md: "the balance is
 * below the threshold after a consume that charged"). A lease's charges leave the unreserved
 * balance where it was, so the lock's rule cannot see them; `balanceAfter` is the whole balance the
 * charge's write read. The queue decides again under the organisation's lock.
 */
export function autoTopUpDueAfter(
  held: Pick<HeldLease, "autoTopUpThreshold">,
  balanceAfter: Millicredits,
): boolean {
  return held.autoTopUpThreshold !== null && balanceAfter < held.autoTopUpThreshold;
}
