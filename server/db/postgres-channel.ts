// A PostgreSQL LISTEN/NOTIFY channel (auth/token-revocations.ts's RevocationChannel). NOTIFY inside
// a transaction is delivered when it commits, and not at all if it rolls back. It listens on the
// process's one LISTEN connection (db/listen.ts), which the database handle closes.
import { sql } from "drizzle-orm";
import type { RevocationChannel } from "../auth/token-revocations.ts";
import type { Listen } from "./listen.ts";
import type { Tx } from "./types.ts";

export function postgresChannel(listen: Listen, name: string): RevocationChannel {
  return {
    async notify(tx: Tx, payload: string) {
      await tx.execute(sql`select pg_notify(${name}, ${payload})`);
    },
    async listen(onPayload, onResync) {
      await listen(name, onPayload, onResync);
    },
  };
}
