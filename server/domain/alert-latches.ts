// The low-balance alert and a member cap's warning mail once per fall (decision 051): each has a
// stored latch (organizations.low_balance_alerted, member_credit_usage.cap_warned) set when its mail
// goes and cleared only when what it watches is really back. These are the rules, evaluated under
// the organisation's lock for each charge decided there and when the sweep or its holder ends a
// lease; nothing here does I/O. Amounts are milli-credits (server/domain/ledger.ts).
//
// Why a latch and not a crossing: credit leases' charges are written without the lock, so no one
// sees the balance cross the threshold at the moment it does; and a lease that ends unspent lifts
// the unreserved balance back, which made one fall of the balance shown cross twice.

import type { Millicredits } from "./ledger.ts";
import { CAP_WARNING_SHARE } from "./member-caps.ts";

/** What the low-balance rule reads under the organisation's lock. */
export interface LowBalanceReading {
  /** Null: the alert is off. */
  threshold: Millicredits | null;
  /** The mail went for the current fall and the balance has not been back at the threshold since. */
  alerted: boolean;
  /**
   * What no lease holds, before the charge: exact under the lock (a lease's charges lower
   * `remaining` and `reserved` together), so never more than the true balance.
   */
  unreservedBefore: Millicredits;
  /**
   * The whole balance after the charge, what leases hold included, as read: while leases write it
   * may be higher than the truth, never lower.
   */
  wholeAfter: Millicredits;
}

/** What to do: mail (naming `wholeAfter`) or not, and the latch to store. */
export interface LatchStep {
  mail: boolean;
  latched: boolean;
}

/**
 * The low-balance alert's step. A latch is cleared when the unreserved balance is at or above the
 * threshold (credits were added: the true balance is at least that); an open latch mails and
 * closes when the whole balance is below it. A fall made by a lease's charges alone is caught at
 * the next evaluation, and a stale-high whole balance only delays the mail, never sends it early.
 */
export function lowBalanceStep(reading: LowBalanceReading): LatchStep {
  const { threshold } = reading;
  if (threshold === null) return { mail: false, latched: reading.alerted };
  const latched = reading.alerted && reading.unreservedBefore < threshold;
  if (latched || reading.wholeAfter >= threshold) return { mail: false, latched };
  return { mail: true, latched: true };
}

/** Is `used` past the share of `cap` whose crossing warns the member (milli-credits)? */
export const pastCapWarningMark = (used: Millicredits, cap: Millicredits): boolean =>
  used > cap * CAP_WARNING_SHARE;

/**
 * A member cap's warning step: warn once when what the member's keys spent (as read under the lock,
 * never more than the truth: a lease's charges only add, so the warning is never early) is past the
 * mark. What leases hold does not count: it may go back unspent. Only a change of the cap re-arms it
 * (`pastCapWarningMark` against the new cap), and a new month starts unwarned.
 */
export function capWarningStep(
  warned: boolean,
  usedAfter: Millicredits,
  cap: Millicredits | null,
): LatchStep {
  if (warned || cap === null || !pastCapWarningMark(usedAfter, cap)) return { mail: false, latched: warned };
  return { mail: true, latched: true };
}
