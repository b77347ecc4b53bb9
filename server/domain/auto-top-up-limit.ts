// Auto top-up's monthly limit (AUTO-TOP-UP.md, "Limit"): which attempts count against the limit of
// the Berlin month they were made in, whether one more pack fits, and what was charged that month.
//
// Nothing here does I/O or reads the clock. UNITS: money is integer minor units (cents) of the
// pack's currency, gross.
import { addBerlinMonths, startOfBerlinMonth } from "./berlin-time.ts";

export const ATTEMPT_STATUSES = [
  "processing",
  "authentication_required",
  "paid",
  "failed",
  "cancelled",
] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

export interface LimitAttempt {
  /** When the attempt was made: it counts in that Berlin month. */
  madeAt: Date;
  /** Gross charged or to be charged, minor units. */
  amount: number;
  status: AttemptStatus;
  /**
   * Its invoice was made at the provider and is not yet seen void or paid: a payment sent before the
   * attempt was cancelled may still land on it (and paid always grants).
   */
  invoiceLive: boolean;
}

/**
 * Whether an attempt counts against its month's limit. A failed one took no money. A cancelled one
 * stops counting once no payment can land on it: it has no invoice, or its invoice is void (a stop
 * racing the payment must not make room for a second charge beside the first). A paid one counts
 * even once refunded.
 */
export const countsAgainstLimit = (attempt: Pick<LimitAttempt, "status" | "invoiceLive">): boolean => {
  if (attempt.status === "cancelled") return attempt.invoiceLive;
  return attempt.status !== "failed";
};

/** The first instant of the Berlin month after `now`'s: when a `monthly_limit` pause ends. */
export const nextBerlinMonth = (now: Date): Date => addBerlinMonths(startOfBerlinMonth(now), 1);

/** The sum of the attempts made in `now`'s Berlin month that `which` takes. */
function monthsSum(
  attempts: readonly LimitAttempt[],
  now: Date,
  which: (attempt: LimitAttempt) => boolean,
): number {
  const from = startOfBerlinMonth(now).getTime();
  const until = nextBerlinMonth(now).getTime();
  let sum = 0;
  for (const a of attempts) {
    const at = a.madeAt.getTime();
    if (at >= from && at < until && which(a)) sum += a.amount;
  }
  return sum;
}

/**
 * What counts against the limit in `now`'s Berlin month: charged, or room kept for money that may
 * still be taken (a payment on its way, awaiting authentication, or a cancelled attempt's live invoice).
 */
export const countedThisMonth = (attempts: readonly LimitAttempt[], now: Date): number =>
  monthsSum(attempts, now, countsAgainstLimit);

/**
 * What was charged in `now`'s Berlin month (GET's `charged_this_month`): paid attempts only, refunded
 * ones too (a refund gives no room back). Room kept for money not taken is not "charged".
 */
export const chargedThisMonth = (attempts: readonly LimitAttempt[], now: Date): number =>
  monthsSum(attempts, now, (a) => a.status === "paid");

/**
 * What the limit keeps in `now`'s Berlin month for money not taken (GET's `reserved_this_month`):
 * what counts against it and was not charged, a payment on its way or awaiting authentication,
 * or a cancelled attempt's invoice not yet seen void. With what was charged, what the limit counts.
 */
export const reservedThisMonth = (attempts: readonly LimitAttempt[], now: Date): number =>
  monthsSum(attempts, now, (a) => a.status !== "paid" && countsAgainstLimit(a));

/** One pack costs more than the whole limit: no month could ever buy it. */
export const limitBelowPack = (packGross: number, limit: number): boolean => packGross > limit;

export type LimitCheck =
  | { ok: true }
  | { ok: false; reason: "limit_below_pack" }
  | { ok: false; reason: "monthly_limit"; until: Date };

/** Whether a charge of one pack's gross fits this Berlin month's limit; a charge that does not is not made. */
export function monthlyLimitCheck(p: {
  limit: number;
  packGross: number;
  attempts: readonly LimitAttempt[];
  now: Date;
}): LimitCheck {
  if (limitBelowPack(p.packGross, p.limit)) return { ok: false, reason: "limit_below_pack" };
  if (countedThisMonth(p.attempts, p.now) + p.packGross > p.limit)
    return { ok: false, reason: "monthly_limit", until: nextBerlinMonth(p.now) };
  return { ok: true };
}
