// Credit leases' rules as plain functions (decision 051): how much of an organisation's credits one
// API key's lease may hold, where it is reserved, until when, and what an ending lease gives back.
// The database layer (server/billing/credit-leases.ts) stores and locks; nothing here does I/O or
// reads the clock. Amounts are milli-credits (server/domain/ledger.ts).
//
// A lease reserves a part of the grants' `remaining`: the reserved credits stay the customer's (every
// balance counts them), but a spend outside the lease sees only `remaining - reserved`. So a charge
// made through the lease takes from what no one else can take, and the balance, the key's monthly
// limit and the member's cap hold whichever way a charge is decided.

import { startOfBerlinMonth } from "./berlin-time.ts";
import { type CreditGrant, type Millicredits, planSpend, type SpendTake } from "./ledger.ts";
import { CAP_WARNING_SHARE } from "./member-caps.ts";

/** A grant as stored, with the part of it open leases hold. */
export interface ReservableGrant extends CreditGrant {
  /** Milli-credits of `remaining` held by open leases; 0 <= reserved <= remaining. */
  reserved: Millicredits;
}

/** What a spend outside every lease may take from a grant: what is left less what leases hold. */
export function unreserved(grant: ReservableGrant): CreditGrant {
  const { reserved, ...rest } = grant;
  return { ...rest, remaining: grant.remaining - reserved };
}

/** What a lease may still hold of a monthly allowance; null when there is no allowance. */
export function allowanceLeft(
  allowance: Millicredits | null,
  used: Millicredits,
  reserved: Millicredits,
): Millicredits | null {
  return allowance === null ? null : Math.max(0, allowance - used - reserved);
}

/**
 * What a lease may hold of a member's monthly cap: up to the 80 % mark while their month is below
 * it, so that the charge that crosses the mark is still decided under the lock and mails the
 * warning once (a lease's own charges do not move `used + reserved`); past the mark, the rest of
 * the cap. Null for no cap.
 */
export function memberCapRoom(
  cap: Millicredits | null,
  used: Millicredits,
  reserved: Millicredits,
): Millicredits | null {
  if (cap === null) return null;
  const counted = used + reserved;
  const mark = Math.floor(cap * CAP_WARNING_SHARE);
  return Math.max(0, (counted <= mark ? mark : cap) - counted);
}

/** What decides a lease's amount, all read under the organisation's lock. */
export interface LeaseRoom {
  /** The amount the holder asks for: a few seconds of the key's charges. */
  wanted: Millicredits;
  /** The organisation's live balance less what open leases hold. */
  unreservedBalance: Millicredits;
  /**
   * The balance a lease must leave unreserved: the highest of the low-balance alert's and auto
   * top-up's thresholds (0 for none). A charge made through a lease then never takes the balance
   * across either, so both are still decided under the lock, once.
   */
  keepAbove: Millicredits;
  /** What is left of the key's monthly limit (leases included), null for no limit. */
  keyLimitLeft: Millicredits | null;
  /** What is left of the member's monthly cap (leases included), null for no cap. */
  memberCapLeft: Millicredits | null;
  /**
   * The unreserved credits in grants that outlast the lease (`outlasting`). While any unreserved
   * credits expire sooner, no lease is taken: charges under the lock spend the soonest-expiring
   * grant first, and a lease spending later ones would let those lapse.
   */
  lasting: Millicredits;
  /** Below this a lease is not worth taking: the key's charges stay under the lock. */
  minimum: Millicredits;
}

/**
 * How many milli-credits a lease may hold (0: take none). Never more than half of what the balance
 * has unreserved above `keepAbove`, nor half of what is left of the key's limit or the member's cap,
 * so other keys and instances always keep room, and a balance, limit or cap near its end is
 * decided under the lock, where its edge cases are tested.
 */
export function leaseAmount(room: LeaseRoom): Millicredits {
  // Credits that expire before the lease would end go first, under the lock (review 110).
  if (room.lasting < room.unreservedBalance) return 0;
  const half = (left: Millicredits) => Math.floor(left / 2);
  let amount = Math.min(room.wanted, half(Math.max(0, room.unreservedBalance - room.keepAbove)));
  // Half of a key's limit or a member's cap left, too: the key's charges on other instances and
  // the member's other keys keep room under the lock.
  if (room.keyLimitLeft !== null) amount = Math.min(amount, half(room.keyLimitLeft));
  if (room.memberCapLeft !== null) amount = Math.min(amount, half(room.memberCapLeft));
  // A minimum of 0 lets a lease of 0 through as 0: nothing to take either way.
  return amount >= room.minimum ? amount : 0;
}

/** Where a lease is reserved, and until when its charges may be written. */
export interface LeasePlan {
  takes: SpendTake[];
  expiresAt: Date;
}

/**
 * How long after a lease's end its grants must still be live: the sweep (every 5 s) ends a lease
 * up to a run after its end, and what it gives back must not have expired while the lease held it.
 */
export const LEASE_GRANT_MARGIN_MS = 5_000;

/** A lease's end: `lifetimeMs` after `now`, but no later than the next Berlin month (its charges count in one). */
export function leaseEnd(now: Date, lifetimeMs: number): Date {
  return new Date(Math.min(now.getTime() + lifetimeMs, nextBerlinMonth(now).getTime()));
}

/**
 * The grants a lease ending at `end` may hold: those live until past its end and the margin. A
 * lease reserving a grant that expires sooner would keep it from charges under the lock, which
 * would have spent it, and give it back expired.
 */
export function outlasting<G extends CreditGrant>(grants: readonly G[], end: Date): G[] {
  const until = end.getTime() + LEASE_GRANT_MARGIN_MS;
  return grants.filter((g) => g.expiresAt === null || g.expiresAt.getTime() > until);
}

/**
 * The grants a lease of `amount` is reserved on, in spending order (what a spend of that amount
 * would take from the unreserved credits of the grants that outlast it), and its end (`leaseEnd`).
 * Null when those credits are short.
 */
export function planLease(
  grants: readonly ReservableGrant[],
  amount: Millicredits,
  now: Date,
  lifetimeMs: number,
): LeasePlan | null {
  const expiresAt = leaseEnd(now, lifetimeMs);
  const plan = planSpend(outlasting(grants, expiresAt).map(unreserved), amount, now);
  return plan.ok ? { takes: plan.takes, expiresAt } : null;
}

function nextBerlinMonth(now: Date): Date {
  // The middle of this month plus a month can never fall outside the next month.
  const start = startOfBerlinMonth(now);
  return startOfBerlinMonth(new Date(start.getTime() + 45 * 86_400_000));
}

/** What an ending lease gives back: per grant, what it reserved less what its charges took. */
export interface Unspent {
  perGrant: SpendTake[];
  /** Milli-credits in all: what goes back to the key's and the member's month. */
  total: Millicredits;
}

/**
 * The unspent part of a lease from its reservation and its charges' takes. Throws when the charges
 * took from a grant more than the lease held there, or from a grant it did not: the lease's writes
 * must make that impossible, and giving back a negative amount would mint credits.
 */
export function unspentOf(leaseTakes: readonly SpendTake[], chargeTakes: readonly SpendTake[]): Unspent {
  const left = new Map<string, Millicredits>();
  for (const t of leaseTakes) left.set(t.grantId, (left.get(t.grantId) ?? 0) + t.amount);
  for (const t of chargeTakes) {
    const held = left.get(t.grantId);
    if (held === undefined)
      throw new Error(`A lease's charge took from grant ${t.grantId}, which it did not hold`);
    if (t.amount > held) throw new Error(`A lease's charges took more from grant ${t.grantId} than it held`);
    left.set(t.grantId, held - t.amount);
  }
  const perGrant: SpendTake[] = [];
  let total = 0;
  for (const [grantId, amount] of left) {
    if (amount === 0) continue;
    perGrant.push({ grantId, amount });
    total += amount;
  }
  return { perGrant, total };
}

/**
 * The grants as a charge made through a lease sees them: only those the lease holds, each with
 * what the lease has left of it. `planSpend` over them decides the charge as it would under the
 * lock; `applySpend` keeps them up to date.
 */
export function leaseGrants(grants: readonly CreditGrant[], left: readonly SpendTake[]): CreditGrant[] {
  const held = new Map(left.map((t) => [t.grantId, t.amount]));
  return grants.flatMap((g) => {
    const remaining = held.get(g.id);
    return remaining === undefined ? [] : [{ ...g, remaining }];
  });
}
