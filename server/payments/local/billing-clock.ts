// The local provider's billing clock: real time plus an offset kept in the database, so that
// `npm run billing:advance -- --days N` can move a running development server into the future
// (renewals, scheduled changes, cancellations, expiry) and the jump survives a restart. In
// development with the local provider the whole app reads this clock, so tokens, grants and
// webhook signatures all agree on what "now" is.
import { eq, sql } from "drizzle-orm";
import type { Clock } from "../../clock.ts";
import { localBillingSettings } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";

const OFFSET_KEY = "clock_offset_ms";

export interface OffsetClock extends Clock {
  offsetMs(): number;
  setOffset(ms: number): void;
}

export function offsetClock(base: Clock, initialOffsetMs = 0): OffsetClock {
  let offset = initialOffsetMs;
  return {
    now: () => new Date(base.now().getTime() + offset),
    offsetMs: () => offset,
    setOffset(ms) {
      offset = ms;
    },
  };
}

export async function readClockOffset(db: DbOrTx): Promise<number> {
  const [row] = await db.select().from(localBillingSettings).where(eq(localBillingSettings.key, OFFSET_KEY));
  return row?.value ?? 0;
}

/** Moves the stored offset forward by `ms` (never back: time must not run backwards for a ledger). */
export async function advanceClockOffset(db: DbOrTx, ms: number): Promise<number> {
  const [row] = await db
    .insert(localBillingSettings)
    .values({ key: OFFSET_KEY, value: ms })
    .onConflictDoUpdate({
      target: localBillingSettings.key,
      set: { value: sql`${localBillingSettings.value} + ${ms}` },
    })
    .returning();
  return row?.value ?? ms;
}
