// A PostgreSQL LISTEN/NOTIFY channel (auth/token-revocations.ts's RevocationChannel). NOTIFY inside
// a transaction is delivered when it commits, and not at all if it rolls back. LISTEN needs a
// connection of its own: postgres.js keeps one for it, reconnects it when it drops, and calls
// `onlisten` every time it is listening again.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import type { RevocationChannel } from "../auth/token-revocations.ts";
import type { Tx } from "./types.ts";

export function postgresChannel(databaseUrl: string, name: string): RevocationChannel {
  const listener = postgres(databaseUrl, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: "genai-portal-listen" },
  });
  return {
    async notify(tx: Tx, payload: string) {
      await tx.execute(sql`select pg_notify(${name}, ${payload})`);
    },
    async listen(onPayload, onResync) {
      await listener.listen(name, onPayload, onResync);
    },
    close: () => listener.end({ timeout: 5 }),
  };
}
