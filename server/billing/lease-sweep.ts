// The sweep of credit leases past their end (decision 050): every few seconds, on every instance,
// each open lease whose `expires_at` has passed by the database's clock is ended and what its
// charges did not spend goes back to its grants, key and member. A lease whose instance stopped or
// crashed is ended by any other instance's sweep. Two sweeps at once are safe: ending takes the
// leases' rows in id order and ends each one once (credit-leases.ts).
import type { Logger } from "pino";
import type { Db } from "../db/types.ts";
import { endLeases } from "./credit-leases.ts";

/** How often an instance sweeps: a lease's unspent credits are back within this of its end. */
export const LEASE_SWEEP_INTERVAL_MS = 5_000;

/** Ends every open lease past its end, in a transaction of its own; how many it ended. */
export function sweepExpiredLeases(db: Db): Promise<number> {
  return db.transaction((tx) => endLeases(tx, { expired: true }, "expired"));
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
    running = sweepExpiredLeases(deps.db)
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
