// Charges through credit leases (decision 051, step 4), behind the CREDIT_LEASES setting. An
// instance that has charged a key under the organisation's lock takes a lease for it in a
// transaction of its own; from then on it decides that key's charges in memory
// (lease-decisions.ts) and writes them, many leases' charges at a time, in one statement with no
// lock and no reads before it (lease-writes.ts). Whatever a lease cannot decide for certain, and
// every charge whose write did not happen, is decided under the lock (spends.ts), so the answers
// and refusals stay those of the tested path.
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { isUniqueViolation } from "../accounts/users.ts";
import { isUsableApiKey } from "../api-access/api-keys.ts";
import {
  apiKeys,
  apiKeyUsage,
  memberCreditUsage,
  organizationMembers,
  organizations,
  users,
} from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { berlinDay } from "../domain/berlin-time.ts";
import {
  allowanceLeft,
  leaseAmount,
  leaseEnd,
  leaseGrants,
  memberCapRoom,
  outlasting,
  planLease,
  unreserved,
} from "../domain/credit-leases.ts";
import { applySpend, balance, type Millicredits, type SpendTake, toMillicredits } from "../domain/ledger.ts";
import { batched } from "./batched.ts";
import { endLeases, type LeaseScope, takeLease } from "./credit-leases.ts";
import { autoTopUpDueAfter, decideInLease, type HeldLease } from "./lease-decisions.ts";
import { endLeaseCheckingLatches, type LatchAlerts } from "./lease-sweep.ts";
import {
  LEASE_WRITE_LOCK_TIMEOUT_MS,
  type LeaseCharge,
  usedIdempotencyKeys,
  writeLeaseCharges,
} from "./lease-writes.ts";
import { memberMonth, reservableGrants } from "./ledger-store.ts";
import {
  BATCH_KEY_COLUMNS,
  chargedOrganization,
  isClosedToCharges,
  pairKey,
  routeSpends,
  type SpendRequest,
  type SpendResult,
  spendUnderLock,
} from "./spends.ts";

export interface LeaseSettings {
  /** Milli-credits a lease asks for (it gets less near a balance's, limit's or cap's end). */
  wanted: Millicredits;
  /** Below this a lease is not taken. */
  minimum: Millicredits;
  lifetimeMs: number;
  /** This instance's name on its leases. */
  holder: string;
  /** How long a lease write waits for a row lock before its charges go to the lock instead. */
  writeLockTimeoutMs: number;
}

export const DEFAULT_LEASE_SETTINGS: Omit<LeaseSettings, "holder"> = {
  wanted: toMillicredits(200),
  minimum: toMillicredits(1),
  lifetimeMs: 30_000,
  writeLockTimeoutMs: LEASE_WRITE_LOCK_TIMEOUT_MS,
};

/** After a lease could not be taken for a key, how long its charges stay under the lock before the next try. */
const RETRY_MS = 1000;

export interface LeasedSpends {
  spend(request: SpendRequest): Promise<SpendResult>;
  /** How many keys a lease is being taken for or may not be tried yet (each entry is freed when done). */
  keysTracked(): number;
  /** Resolves when every lease being taken or given back has been. */
  idle(): Promise<void>;
  /** Gives back every lease held (at shutdown): their unspent part is at once everyone's again. */
  close(): Promise<void>;
}

interface Written {
  ok: boolean;
  balanceAfter: Millicredits;
}

const NOT_WRITTEN: Written = { ok: false, balanceAfter: 0 };

interface Queued {
  held: HeldLease;
  request: SpendRequest;
  takes: SpendTake[];
  spendId: string;
}

/** Routes `db`'s charges through leases (spendCredits, spends.ts). */
export function enableCreditLeases(
  db: Db,
  settings: LeaseSettings,
  logger?: Logger,
  alerts?: LatchAlerts,
): LeasedSpends {
  const leased = leasedSpends(db, settings, logger, alerts);
  routeSpends(db, leased.spend);
  return leased;
}

/**
 * With `alerts`, each lease this instance ends checks the alert latches, as the sweep's endings do:
 * a fall its charges made without the lock (past a member's 80 % mark, below the low-balance
 * threshold once charges under the lock took the rest) is mailed even when the charge after it is
 * refused, or none comes (at shutdown).
 */
export function leasedSpends(
  db: Db,
  settings: LeaseSettings,
  logger?: Logger,
  alerts?: LatchAlerts,
): LeasedSpends {
  const held = new Map<string, HeldLease>();
  /** Keys whose lease is being taken (a promise), or may not be tried before a time (ms). */
  const taking = new Map<string, Promise<void> | number>();
  const background = new Set<Promise<unknown>>();
  let closed = false;

  const track = (work: Promise<unknown>) => {
    const tracked = work.catch((err: unknown) => logger?.warn({ err }, "Credit lease work failed"));
    background.add(tracked);
    void tracked.finally(() => background.delete(tracked));
  };

  const write = batched(writeBatch, { maxBatch: 64 });

  /** Ends a lease this instance took, checking its latches (see `leasedSpends`). */
  const end = (lease: HeldLease) => endLeaseCheckingLatches(db, lease, "released", alerts, logger);

  function giveBack(lease: HeldLease): void {
    if (held.get(lease.apiKeyId) === lease) held.delete(lease.apiKeyId);
    track(end(lease));
  }

  function takeFor(keyId: string, month: string, now: Date): void {
    const state = taking.get(keyId);
    if (
      closed ||
      held.has(keyId) ||
      state instanceof Promise ||
      (state !== undefined && Date.now() < state)
    ) {
      return;
    }
    const work = takeLeaseFor(db, settings, keyId, month, now)
      .then((lease) => {
        if (lease && !closed) held.set(keyId, lease);
        else if (lease) track(end(lease));
        if (lease) taking.delete(keyId);
        else waitBeforeRetry(keyId);
      })
      .catch((err: unknown) => {
        waitBeforeRetry(keyId);
        throw err;
      });
    taking.set(keyId, work);
    track(work);
  }

  /**
   * The key's charges stay under the lock for RETRY_MS, then its entry goes: an instance charges
   * many keys once and never again, and their entries would otherwise stay for its lifetime.
   */
  function waitBeforeRetry(keyId: string): void {
    const until = Date.now() + RETRY_MS;
    taking.set(keyId, until);
    setTimeout(() => {
      if (taking.get(keyId) === until) taking.delete(keyId);
    }, RETRY_MS).unref();
  }

  async function underLock(request: SpendRequest): Promise<SpendResult> {
    let result = await spendUnderLock(db, request);
    if (!result.ok && result.leasesInTheWay) {
      // Refused only for what leases hold: they end (theirs and other instances'), and the charge
      // is decided again with what they did not spend given back.
      const scope = result.leasesInTheWay;
      for (const lease of [...held.values()]) if (inScope(lease, scope)) held.delete(lease.apiKeyId);
      await db.transaction((tx) => endLeases(tx, scope, "released"));
      result = await spendUnderLock(db, request);
    }
    const keyId = request.meter?.apiKeyId;
    if (keyId && result.ok && !result.repeated && request.meter)
      takeFor(keyId, request.meter.month, request.now);
    return result;
  }

  async function spend(request: SpendRequest): Promise<SpendResult> {
    const keyId = request.meter?.apiKeyId;
    const lease = keyId ? held.get(keyId) : undefined;
    if (!lease) return underLock(request);
    const decision = decideInLease(lease, request);
    if (decision.through === "lock") {
      if (decision.renew) giveBack(lease);
      return underLock(request);
    }
    lease.grants = applySpend(lease.grants, decision.takes);
    const spendId = randomUUID();
    const written = await write({ held: lease, request, takes: decision.takes, spendId });
    if (written.ok) {
      return {
        ok: true,
        userId: lease.orgId,
        balanceAfter: written.balanceAfter,
        repeated: false,
        spendId,
        amount: request.amount,
        // The alerts are latched under the lock (decision 051): a fall through a lease is caught by
        // the next charge there or the lease's end. Auto top-up is asked whenever the balance is low.
        lowBalanceCrossed: null,
        memberCapNearing: null,
        autoTopUpDue: autoTopUpDueAfter(lease, written.balanceAfter),
      };
    }
    const result = await underLock(request);
    // A write whose outcome was unknown (a lost connection) may have been made: found under its own
    // id, it is this charge, not a repeat.
    return result.ok && result.repeated && result.spendId === spendId
      ? { ...result, repeated: false }
      : result;
  }

  /**
   * One statement for the batch's charges; a lease none of whose charges was written is given up.
   * A charge whose idempotency key was already used fails the statement (nothing written): those
   * charges are left to the lock, which answers them as repeats, and the rest written once more.
   */
  async function writeBatch(items: readonly Queued[], again = true): Promise<Written[]> {
    // Grants live at the latest charge's time count in the balances the answers give.
    const now = new Date(Math.max(...items.map((i) => i.request.now.getTime())));
    let answer: Awaited<ReturnType<typeof writeLeaseCharges>>;
    try {
      answer = await writeLeaseCharges(db, items.map(toCharge), now, settings.writeLockTimeoutMs);
    } catch (err) {
      const used =
        again && isUniqueViolation(err) ? await usedIdempotencyKeys(db, items.map(toCharge)) : undefined;
      const repeats = (item: Queued) =>
        used?.has(pairKey(item.held.orgId, item.request.idempotencyKey)) ?? false;
      if (used && items.some(repeats)) {
        const rest = items.filter((item) => !repeats(item));
        const written = rest.length > 0 ? await writeBatch(rest, false) : [];
        return items.map((item) =>
          repeats(item) ? NOT_WRITTEN : (written[rest.indexOf(item)] ?? NOT_WRITTEN),
        );
      }
      // Nothing was written, or the outcome is unknown (the connection went while the statement may
      // still run). Ending the batch's leases waits for such a statement (it holds them FOR SHARE),
      // so once they are ended its charges are either in the ledger or not written at all; then
      // each charge is decided again under the lock, which finds the ones that were.
      logger?.warn(
        { err, charges: items.length },
        "Credit lease charges not written; decided under the lock",
      );
      for (const lease of new Map(items.map((i) => [i.held.id, i.held])).values()) {
        if (held.get(lease.apiKeyId) === lease) held.delete(lease.apiKeyId);
        await end(lease).catch((error: unknown) =>
          logger?.error({ err: error, lease: lease.id }, "A credit lease could not be ended"),
        );
      }
      return items.map(() => NOT_WRITTEN);
    }
    const spent = new Map<string, Millicredits>();
    return items.map((item) => {
      if (!answer.written.has(item.held.id)) {
        // Ended elsewhere (revoked, changed, swept): stop using it.
        if (held.get(item.held.apiKeyId) === item.held) held.delete(item.held.apiKeyId);
        return { ok: false, balanceAfter: 0 };
      }
      const org = item.held.orgId;
      const before = spent.get(org) ?? 0;
      spent.set(org, before + item.request.amount);
      return { ok: true, balanceAfter: (answer.balances.get(org) ?? 0) - before - item.request.amount };
    });
  }

  return {
    spend,
    keysTracked: () => taking.size,
    async idle() {
      while (background.size > 0) await Promise.allSettled([...background]);
    },
    async close() {
      closed = true;
      for (const lease of [...held.values()]) giveBack(lease);
      while (background.size > 0) await Promise.allSettled([...background]);
    },
  };
}

function inScope(lease: HeldLease, scope: LeaseScope): boolean {
  if ("apiKeyId" in scope) return lease.apiKeyId === scope.apiKeyId;
  if ("leaseId" in scope) return lease.id === scope.leaseId;
  if ("memberId" in scope) return lease.orgId === scope.orgId && lease.memberId === scope.memberId;
  if ("orgId" in scope) return lease.orgId === scope.orgId;
  return false;
}

function toCharge(item: Queued, index: number): LeaseCharge {
  const { held, request } = item;
  const meter = request.meter;
  if (!meter) throw new Error("A lease charge without a meter");
  return {
    ordinal: index,
    leaseId: held.id,
    spendId: item.spendId,
    orgId: held.orgId,
    apiKeyId: held.apiKeyId,
    memberId: held.memberId,
    amount: request.amount,
    takes: item.takes,
    reason: request.reason,
    idempotencyKey: request.idempotencyKey,
    feature: meter.feature,
    people: meter.people,
    quantity: meter.quantity,
    month: meter.month,
    day: berlinDay(request.now),
    createdAt: request.now,
  };
}

/**
 * Takes a lease for `keyId` if its organisation, key and member leave room (`leaseAmount`), in a
 * transaction of its own. It locks the key's row, the organisation's, the member's and the key
 * creator's user row before it reads, so that a revocation, a change of the key, the member or the
 * organisation, or a disabling either comes before it (and is read) or waits for it (and ends the
 * lease it took). It waits at most 250 ms for a lock, far less than PostgreSQL's deadlock check,
 * so it gives up rather than deadlock with a change that takes the same rows in another order.
 */
export async function takeLeaseFor(
  db: Db,
  settings: LeaseSettings,
  keyId: string,
  month: string,
  now: Date,
): Promise<HeldLease | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local lock_timeout = '250ms'`);
    const [key] = await tx
      .select({ ...BATCH_KEY_COLUMNS, orgId: apiKeys.userId })
      .from(apiKeys)
      .where(eq(apiKeys.id, keyId))
      .for("share");
    if (!key || !isUsableApiKey(key, now)) return null;
    const org = await lockedOrganization(tx, key.orgId);
    if (!org) return null;
    const creator = key.createdBy ?? key.orgId;
    const memberId = key.shared ? null : creator;
    let cap: Millicredits | null = null;
    if (memberId !== null) {
      const member = await memberOf(tx, key.orgId, memberId);
      // A member's key stops when they leave or staff disable them (spends.ts): decided under the lock.
      if (!member || member.disabledAt !== null) return null;
      cap = member.cap;
    }
    const grants = await reservableGrants(tx, key.orgId);
    const usage = await monthUsage(tx, keyId, key.orgId, memberId, month);
    const lasting = outlasting(grants, leaseEnd(now, settings.lifetimeMs)).map(unreserved);
    const amount = leaseAmount({
      wanted: settings.wanted,
      unreservedBalance: balance(grants.map(unreserved), now),
      lasting: balance(lasting, now),
      keepAbove: Math.max(org.lowBalanceThreshold ?? 0, org.autoTopUpThreshold ?? 0),
      keyLimitLeft: allowanceLeft(key.monthlyCreditLimit, usage.key.amount, usage.key.reserved),
      memberCapLeft: memberCapRoom(cap, usage.member.amount, usage.member.reserved),
      minimum: settings.minimum,
    });
    if (amount === 0) return null;
    const plan = planLease(grants, amount, now, settings.lifetimeMs);
    if (!plan) return null;
    const id = await takeLease(tx, {
      orgId: key.orgId,
      apiKeyId: keyId,
      memberId,
      month,
      amount,
      takes: plan.takes,
      holder: settings.holder,
      now,
      expiresAt: plan.expiresAt,
    });
    return {
      id,
      orgId: key.orgId,
      apiKeyId: keyId,
      memberId,
      month,
      key: { revokedAt: key.revokedAt, expiresAt: key.expiresAt, features: key.features },
      grants: leaseGrants(grants, plan.takes),
      expiresAt: plan.expiresAt,
      autoTopUpThreshold: org.autoTopUpThreshold,
    };
  });
}

/** The key's organisation, locked, when charges may be made to it; its thresholds in milli-credits. */
async function lockedOrganization(tx: Tx, orgId: string) {
  const [org] = await chargedOrganization(tx)
    .where(eq(organizations.id, orgId))
    .for("no key update", { of: organizations });
  if (!org || isClosedToCharges(org) || org.disputeHoldAt !== null) return null;
  return {
    lowBalanceThreshold: org.lowBalanceThreshold,
    autoTopUpThreshold: org.autoTopUpThreshold === null ? null : toMillicredits(org.autoTopUpThreshold),
  };
}

/** The member's row and their user's, locked for share: a removal, a cap change or a disabling waits. */
async function memberOf(tx: Tx, orgId: string, memberId: string) {
  const [member] = await tx
    .select({ cap: organizationMembers.monthlyCreditCap, disabledAt: users.disabledAt })
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, memberId)))
    .for("share");
  return member;
}

async function monthUsage(tx: Tx, keyId: string, orgId: string, memberId: string | null, month: string) {
  const [key] = await tx
    .select({ amount: apiKeyUsage.amount, reserved: apiKeyUsage.reserved })
    .from(apiKeyUsage)
    .where(and(eq(apiKeyUsage.apiKeyId, keyId), eq(apiKeyUsage.month, month)));
  const [member] =
    memberId === null
      ? []
      : await tx
          .select({ amount: memberCreditUsage.amount, reserved: memberCreditUsage.reserved })
          .from(memberCreditUsage)
          .where(memberMonth(orgId, memberId, month));
  return {
    key: { amount: key?.amount ?? 0, reserved: key?.reserved ?? 0 },
    member: { amount: member?.amount ?? 0, reserved: member?.reserved ?? 0 },
  };
}
