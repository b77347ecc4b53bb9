// LISTEN on either database: the process hears what other transactions (this instance's and every
// other's) NOTIFY when they commit, and nothing from those that roll back. On PostgreSQL one
// connection of its own listens to every channel of the process: postgres.js keeps it, reconnects
// it when it drops and says so (`onResync`), since what was sent meanwhile is lost. PGlite is in
// the process: it delivers a committed transaction's notifications before the statement's promise
// resolves, and never drops.
import type { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";

/** Stops one listening. */
export type Unlisten = () => Promise<void>;

/**
 * Calls `onPayload` for each notification on `channel`, and `onResync` once listening, then again
 * after each reconnect (anything sent while the connection was down was missed).
 */
export type Listen = (
  channel: string,
  onPayload: (payload: string) => void,
  onResync: () => void,
) => Promise<Unlisten>;

export function pgliteListen(client: PGlite): Listen {
  return async (channel, onPayload, onResync) => {
    const unlisten = await client.listen(channel, onPayload);
    onResync();
    return () => unlisten();
  };
}

/** The process's one LISTEN connection to PostgreSQL, opened at the first `listen`. */
export function postgresListener(databaseUrl: string): { listen: Listen; close(): Promise<void> } {
  let listener: postgres.Sql | undefined;
  return {
    async listen(channel, onPayload, onResync) {
      listener ??= postgres(databaseUrl, {
        max: 1,
        onnotice: () => {},
        connection: { application_name: "genai-portal-listen" },
      });
      const { unlisten } = await listener.listen(channel, onPayload, onResync);
      return async () => {
        await unlisten();
      };
    },
    close: async () => {
      await listener?.end({ timeout: 5 });
    },
  };
}
