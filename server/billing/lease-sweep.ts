// The sweep of credit leases past their end (decision 051): every few seconds, on every instance,
// each open lease whose `expires_at` has passed by the database's clock is ended and what its
// charges did not spend goes back to its grants, key and member. A lease whose instance stopped or
// crashed is ended by any other instance's sweep. Two sweeps at once are safe: ending takes the
// leases' rows in id order and ends each one once (credit-leases.ts). After ending a lease it checks
// the organisation's and the member's alert latches (alert-latch-checks.ts): a fall its charges
// made is mailed even when no charge under the lock comes after it.
import { and, asc, gt, isNull, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { creditLeases } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import type { Millicredits } from "../domain/ledger.ts";
import { checkAlertLatches, type LatchMails, type LatchScope } from "./alert-latch-checks.ts";
import { endLeases, type LeaseEnd } from "./credit-leases.ts";
import type { MemberCapEvent } from "./spends.ts";

/** How often an instance sweeps: a lease's unspent credits are back within this of its end. */
export const LEASE_SWEEP_INTERVAL_MS = 5_000;

/** Leases read at a time: a sweep reads pages of them until none is left past its end. */
const SWEEP_PAGE = 100;

/**
 * Most leases one sweep ends: a backlog (after a crash of an instance that held many) is worked
 * through 2,000 a run rather than 100, and one run still cannot go on for ever.
 */
const SWEEP_MOST = 2_000;

/**
 * Where the mails go that a lease's ending decides by its latch checks (alerts/low-balance.ts,
 * alerts/member-cap.ts): the sweep's endings and the holder's (leased-spends.ts).
 */
export interface LatchAlerts {
  /** The clock grants' expiry is read by (the app's). */
  clock: Clock;
  lowBalance: { crossed(orgId: string, threshold: Millicredits, balance: Millicredits): void };
  memberCaps: { nearing(event: MemberCapEvent): void };
}

/**
 * Ends the open leases past their end (at most `most`), each in a transaction of its own, so that
 * one that cannot be ended (logged, and passed over: the pages go on by id) keeps none of the others
 * holding credits; how many it ended. With `alerts`, each ending checks its organisation's and
 * member's alert latches in the same transaction and mails after the commit.
 */
export async function sweepExpiredLeases(
  db: Db,
  logger?: Logger,
  alerts?: LatchAlerts,
  { page = SWEEP_PAGE, most = SWEEP_MOST } = {},
): Promise<number> {
  let ended = 0;
  let after = "";
  for (let read = 0; read < most; ) {
    const due = await db
      .select({
        id: creditLeases.id,
        orgId: creditLeases.orgId,
        memberId: creditLeases.memberId,
        month: creditLeases.month,
      })
      .from(creditLeases)
      .where(
        and(
          isNull(creditLeases.endedAt),
          sql`${creditLeases.expiresAt} <= now()`,
          after === "" ? undefined : gt(creditLeases.id, after),
        ),
      )
      .orderBy(asc(creditLeases.id))
      .limit(Math.min(page, most - read));
    for (const lease of due) ended += await endExpired(db, lease, logger, alerts);
    read += due.length;
    if (due.length < page) break;
    after = (due.at(-1) as { id: string }).id;
  }
  return ended;
}

/** A lease to end, with what its latch check needs. */
export type LeaseToEnd = LatchScope & { id: string };

/**
 * Ends one lease in a transaction of its own and, with `alerts`, checks the latches it concerns in
 * the same transaction and mails after the commit: the sweep's endings and the holder's, after
 * which no charge under the lock may come (or may be made) to decide a fall the lease's charges
 * made. 1 when it ended the lease, 0 when it was already ended.
 */
export async function endLeaseCheckingLatches(
  db: Db,
  { id, ...scope }: LeaseToEnd,
  because: LeaseEnd,
  alerts?: LatchAlerts,
  logger?: Logger,
): Promise<number> {
  const [count, mails] = await db.transaction(async (tx) => {
    const count = await endLeases(tx, { leaseId: id }, because);
    if (!alerts || count === 0) return [count, {}] as const;
    // In a savepoint: a check that fails is logged and leaves the lease ended, its credits given
    // back; the next charge under the lock checks the latches again.
    const mails = await tx
      .transaction((checking) => checkAlertLatches(checking, scope, alerts.clock.now()))
      .catch((error: unknown): LatchMails => {
        logger?.error(
          { err: error, lease: id },
          "The alert latches of an ended credit lease could not be checked",
        );
        return {};
      });
    return [count, mails] as const;
  });
  if (alerts) send(alerts, scope.orgId, mails);
  return count;
}

/** Ends one expired lease and checks the latches it concerns; 1 when it ended it, 0 otherwise. */
async function endExpired(db: Db, lease: LeaseToEnd, logger?: Logger, alerts?: LatchAlerts): Promise<number> {
  try {
    return await endLeaseCheckingLatches(db, lease, "expired", alerts, logger);
  } catch (error) {
    logger?.error({ err: error, lease: lease.id }, "A credit lease past its end could not be ended");
    return 0;
  }
}

function send(alerts: LatchAlerts, orgId: string, mails: LatchMails): void {
  if (mails.lowBalance)
    alerts.lowBalance.crossed(orgId, mails.lowBalance.threshold, mails.lowBalance.balance);
  if (mails.capNearing) alerts.memberCaps.nearing(mails.capNearing);
}

export interface LeaseSweep {
  /** Stops the timer; resolves when a sweep under way has finished. */
  stop(): Promise<void>;
}

/** Starts sweeping every `intervalMs`, one sweep at a time; the timer keeps no process alive. */
export function startLeaseSweep(deps: {
  db: Db;
  logger: Logger;
  alerts?: LatchAlerts;
  intervalMs?: number;
}): LeaseSweep {
  let running: Promise<void> | null = null;
  const sweep = () => {
    if (running) return;
    running = sweepExpiredLeases(deps.db, deps.logger, deps.alerts)
      .then((ended) => {
        if (ended > 0) deps.logger.info({ ended }, "Credit leases past their end ended");
      })
      .catch((error: unknown) => deps.logger.error({ err: error }, "Credit lease sweep failed"))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(sweep, deps.intervalMs ?? LEASE_SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
