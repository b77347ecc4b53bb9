// For tests on PostgreSQL: it delivers a commit's notifications to the listening connection a few
// milliseconds after the commit, so an app may answer before it has heard of a change made an
// instant before (decision 034 measures that delay between instances; tests/system checks it). A
// test that asks what a change did to an introspection first waits until the app has heard every
// notification committed so far: a marker sent on another channel of the same LISTEN connection
// arrives after them. PGlite delivers a commit's notifications before the statement returns.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Listen } from "../db/listen.ts";
import type { Db } from "../db/types.ts";

const CHANNEL = "portal_test_heard_all";

export function notificationBarrier(db: Db, listen: Listen) {
  const waiting = new Map<string, () => void>();
  const listening = listen(
    CHANNEL,
    (id) => {
      waiting.get(id)?.();
      waiting.delete(id);
    },
    () => {},
  );
  return {
    ready: listening.then(() => undefined),
    /** Settles once everything committed before the call has been heard. */
    async heardAll() {
      await listening;
      const id = randomUUID();
      const heard = new Promise<void>((resolve) => waiting.set(id, resolve));
      await db.execute(sql`select pg_notify(${CHANNEL}, ${id})`);
      await heard;
    },
    async close() {
      await (await listening)();
    },
  };
}
