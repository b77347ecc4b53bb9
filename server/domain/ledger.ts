// The credit ledger's rules as plain functions over grants (buckets): what is live, the balance,
// which buckets a spend takes from, and when a grant expires. The DB layer stores grants as rows
// and calls these with the rows it has locked; nothing here does I/O or reads the clock.
//
// UNITS: every amount in this module is an integer number of MILLI-CREDITS (1 credit = 1000).
// Credits can be fractional (the background remover costs 0.1), and adding 0.1 in binary floating
// point drifts (0.1 + 0.2 !== 0.3), which a ledger must never do. Integers are exact, sum exactly,
// and compare exactly. Thousandths rather than tenths leave room for finer prices without a data
// migration; the largest grant (50,000 credits = 50,000,000 milli-credits) fits a 32-bit integer
// column, balances and sums belong in a 64-bit one (PostgreSQL bigint). Convert at the API
// boundary only: `toMillicredits` on the way in, `fromMillicredits` on the way out.
//
// TIME: a grant is live on the half-open interval [grantedAt, expiresAt). A grant whose expiry is
// exactly `now` is already expired; a grant whose grantedAt is still in the future (a renewal's
// credits wait for the next Berlin midnight) is not yet live. So the DB can insert a renewal grant
// the moment the payment arrives, and the balance picks it up at midnight without a scheduler.

import { addBerlinMonths } from "./berlin-time.ts";

/** An integer number of thousandths of a credit. */
export type Millicredits = number;

export const MILLICREDITS_PER_CREDIT = 1000;

/** Kinds of grant, in the order a spend takes from them (spec section 9). */
export const GRANT_KINDS = ["subscription", "topup", "free"] as const;
export type GrantKind = (typeof GRANT_KINDS)[number];

/** How long each kind lives, in calendar months; null = never expires. */
export const GRANT_LIFETIME_MONTHS: Readonly<Record<GrantKind, number | null>> = {
  subscription: 1,
  topup: 6,
  free: null,
};

/** A stored grant (one bucket of credits). */
export interface CreditGrant {
  id: string;
  kind: GrantKind;
  /** Milli-credits granted. */
  amount: Millicredits;
  /** Milli-credits not yet spent; 0 <= remaining <= amount. */
  remaining: Millicredits;
  grantedAt: Date;
  expiresAt: Date | null;
  /** Human-readable origin shown in the ledger ("Tier A subscription", "500 credit pack", ...). */
  source: string;
  /** What staff told the customer about a goodwill grant, when they wrote something. */
  note?: string;
}

/**
 * A grant to insert. `fulfilmentKey` is unique across all grants: inserting a second grant with
 * the same key must do nothing (ON CONFLICT DO NOTHING). That is what makes every purchase, and
 * the free initial credits, granted exactly once however many times the grant is planned.
 */
export interface NewGrant {
  kind: GrantKind;
  amount: Millicredits;
  grantedAt: Date;
  expiresAt: Date | null;
  source: string;
  fulfilmentKey: string;
  /** Staff's words to the customer about a goodwill grant (credit_grants.note). */
  note?: string | null;
}

export interface SpendTake {
  grantId: string;
  /** Milli-credits taken from that grant (> 0). */
  amount: Millicredits;
}

export type SpendPlan =
  | { ok: true; takes: SpendTake[] }
  | { ok: false; reason: "insufficient"; available: Millicredits; requested: Millicredits };

// ---- units ----

/**
 * Credits (the API's number) to milli-credits. Throws a RangeError for values that are not finite
 * or need more than three decimals: callers validate input first (see `isCreditAmount`), so a
 * throw here is a bug, never a user error.
 */
export function toMillicredits(credits: number): Millicredits {
  if (!Number.isFinite(credits)) throw new RangeError(`Not a credit amount: ${credits}`);
  const scaled = credits * MILLICREDITS_PER_CREDIT;
  const milli = Math.round(scaled);
  // 0.1 * 1000 is 100.00000000000001 in binary floating point: accept representation error,
  // refuse a real fourth decimal.
  // Stryker disable next-line EqualityOperator: `>=` differs only when the error equals the tolerance
  // exactly, which no three-decimal amount's representation error does.
  if (Math.abs(scaled - milli) > 1e-9 * Math.max(1, Math.abs(milli)) || !Number.isSafeInteger(milli)) {
    throw new RangeError(`Credit amounts have at most three decimals: ${credits}`);
  }
  return milli === 0 ? 0 : milli; // never -0
}

/** Milli-credits to the API's number of credits (100 -> 0.1, exactly as JSON prints it). */
export function fromMillicredits(milli: Millicredits): number {
  if (!Number.isSafeInteger(milli)) throw new RangeError(`Not a whole number of milli-credits: ${milli}`);
  return milli / MILLICREDITS_PER_CREDIT;
}

/** True for a positive number of credits with at most three decimals (request validation). */
export function isCreditAmount(credits: number): boolean {
  try {
    return toMillicredits(credits) > 0;
  } catch {
    return false;
  }
}

// ---- time ----

/**
 * `n` calendar months after `instant`, on the Berlin wall clock (the business's calendar, the same
 * one renewal midnights are counted in): the same time of day, and the same day of the month
 * clamped to the target month's last day. So Jan 31 + 1 month = Feb 28 (Feb 29 in a leap year),
 * Aug 31 + 6 months = end of February, and a grant made at 00:00 Berlin expires at 00:00 Berlin
 * whatever DST did in between. Clamping does not accumulate: always add to the original instant,
 * never chain (Jan 31 + 2 = Mar 31, but (Jan 31 + 1) + 1 = Mar 28).
 */
export function addMonths(instant: Date, n: number): Date {
  if (!Number.isInteger(n)) throw new RangeError(`Whole months only: ${n}`);
  return addBerlinMonths(instant, n);
}

/** When a grant of `kind` made at `grantedAt` expires: subscription +1 month, top-up +6, free never. */
export function grantExpiry(kind: GrantKind, grantedAt: Date): Date | null {
  const months = GRANT_LIFETIME_MONTHS[kind];
  return months === null ? null : addMonths(grantedAt, months);
}

/** A grant to insert, with the expiry its kind gives it. */
export function newGrant(
  kind: GrantKind,
  amount: Millicredits,
  grantedAt: Date,
  source: string,
  fulfilmentKey: string,
): NewGrant {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new RangeError(`Grant amount must be > 0: ${amount}`);
  return { kind, amount, grantedAt, expiresAt: grantExpiry(kind, grantedAt), source, fulfilmentKey };
}

/** Live at `now`: granted at or before now, and not expired (expiry exactly at now = expired). */
export function isLive(grant: Pick<CreditGrant, "grantedAt" | "expiresAt">, now: Date): boolean {
  const t = now.getTime();
  return grant.grantedAt.getTime() <= t && (grant.expiresAt === null || t < grant.expiresAt.getTime());
}

// ---- balance and spending ----

/** `credit_balance` in milli-credits: the sum of what remains in live grants. */
export function balance(grants: readonly CreditGrant[], now: Date): Millicredits {
  let sum = 0;
  for (const g of grants) if (isLive(g, now)) sum += g.remaining;
  return sum;
}

const KIND_RANK: Readonly<Record<GrantKind, number>> = { subscription: 0, topup: 1, free: 2 };

/**
 * Spending priority: subscription, then top-up, then free; inside a kind the soonest expiry first
 * (a grant that never expires last); ties by grantedAt, then id, so that the same rows always
 * give the same plan whatever order the database returned them in.
 */
export function compareSpendOrder(a: CreditGrant, b: CreditGrant): number {
  const byKind = KIND_RANK[a.kind] - KIND_RANK[b.kind];
  if (byKind !== 0) return byKind;
  const ea = a.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  const eb = b.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  // At most one of them is Infinity here, so the difference is never NaN.
  if (ea !== eb) return ea - eb;
  const ga = a.grantedAt.getTime();
  const gb = b.grantedAt.getTime();
  if (ga !== gb) return ga - gb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The live grants with something left, in the order a spend takes from them. */
export function spendableGrants(grants: readonly CreditGrant[], now: Date): CreditGrant[] {
  return grants.filter((g) => g.remaining > 0 && isLive(g, now)).sort(compareSpendOrder);
}

/**
 * Which grants a spend of `amount` milli-credits takes from, and how much from each; or
 * "insufficient" when the live balance is short, in which case nothing at all is taken (a spend
 * is never partial, and never drives the balance below zero). `amount` must be a positive integer
 * (a RangeError otherwise: validate the request first).
 */
export function planSpend(grants: readonly CreditGrant[], amount: Millicredits, now: Date): SpendPlan {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new RangeError(`Spend amount must be a positive whole number of milli-credits: ${amount}`);
  }
  const takes: SpendTake[] = [];
  let left = amount;
  for (const g of spendableGrants(grants, now)) {
    if (left === 0) break;
    const take = Math.min(left, g.remaining);
    takes.push({ grantId: g.id, amount: take });
    left -= take;
  }
  if (left > 0) return { ok: false, reason: "insufficient", available: amount - left, requested: amount };
  return { ok: true, takes };
}

/**
 * The grants after a planned spend (what the DB's UPDATE ... SET remaining = remaining - take does).
 * Throws when a take names an unknown grant or exceeds what is left: that means the plan was made
 * from other rows than these, which the caller's row locks must prevent.
 */
export function applySpend(grants: readonly CreditGrant[], takes: readonly SpendTake[]): CreditGrant[] {
  const byId = new Map(grants.map((g) => [g.id, { ...g }]));
  for (const take of takes) {
    const g = byId.get(take.grantId);
    if (!g) throw new Error(`Spend names unknown grant ${take.grantId}`);
    if (!(take.amount > 0)) throw new Error(`Spend of ${take.amount} from grant ${g.id} is not positive`);
    if (take.amount > g.remaining) {
      throw new Error(`Spend of ${take.amount} exceeds the ${g.remaining} left in grant ${g.id}`);
    }
    g.remaining -= take.amount;
  }
  return grants.map((g) => byId.get(g.id) ?? g);
}
