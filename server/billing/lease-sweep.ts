// The sweep of credit leases past their end (decision 051): every few seconds, on every instance,
// each open lease whose `expires_at` has passed by the database's clock is ended and what its
// charges did not spend goes back to its grants, key and member. A lease whose instance stopped or
// crashed is ended by any other instance's sweep. Two sweeps at once are safe: ending takes the
// leases' rows in id order and ends each one once (credit-leases.ts).
import { and, asc, isNull, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { creditLeases } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { endLeases } from "./credit-leases.ts";

/** How often an instance sweeps: a lease's unspent credits are back within this of its end. */
export const LEASE_SWEEP_INTERVAL_MS = 5_000;

/** Most leases one sweep ends: the next sweep takes the rest. */
const SWEEP_BATCH = 100;

/**
 * Ends the open leases past their end (at most SWEEP_BATCH), each in a transaction of its own, so
 * that one that cannot be ended (logged) keeps none of the others holding credits; how many it ended.
 */
export async function sweepExpiredLeases(db: Db, logger?: Logger): Promise<number> {
  const due = await db
    .select({ id: creditLeases.id })
    .from(creditLeases)
    .where(and(isNull(creditLeases.endedAt), sql`${creditLeases.expiresAt} <= now()`))
    .orderBy(asc(creditLeases.id))
    .limit(SWEEP_BATCH);
  let ended = 0;
  for (const { id } of due) {
    try {
      ended += await db.transaction((tx) => endLeases(tx, { leaseId: id }, "expired"));
    } catch (error) {
      logger?.error({ err: error, lease: id }, "A credit lease past its end could not be ended");
    }
  }
  return ended;
}

export interface LeaseSweep {
  /** Stops the timer; resolves when a sweep under way has finished. */
  stop(): Promise<void>;
}

/** Starts sweeping every `intervalMs`, one sweep at a time; the timer keeps no process alive. */
export function startLeaseSweep(deps: { db: Db; logger: Logger; intervalMs?: number }): LeaseSweep {
  let running: Promise<void> | null = null;
  const sweep = () => {
    if (running) return;
    running = sweepExpiredLeases(deps.db, deps.logger)
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
