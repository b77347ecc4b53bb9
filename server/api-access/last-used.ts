// `last_used_at` of API keys and service keys without a database write per request: each process
// remembers when it last recorded a key's use and writes again only a minute later, and the write
// itself only moves a value that is a minute old, so several instances together still write at
// most about once a minute per key. The list may show a use up to a minute late.
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { BackgroundTasks } from "../background.ts";
import { apiKeys, serviceKeys } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";

export const LAST_USED_RESOLUTION_MS = 60_000;

/** How many keys a process remembers (about 100 bytes each); the oldest are forgotten first. */
const REMEMBERED = 50_000;

export interface LastUsed {
  /** Notes a use of the key at `now`; writes to the database in the background when due. */
  touch(table: "api" | "service", keyId: string, now: Date): void;
}

export function createLastUsed(db: Db, tasks: BackgroundTasks): LastUsed {
  const written = new Map<string, number>();
  return {
    touch(table, keyId, now) {
      const at = now.getTime();
      const name = `${table}:${keyId}`;
      const last = written.get(name);
      if (last !== undefined && at - last < LAST_USED_RESOLUTION_MS) return;
      written.delete(name);
      written.set(name, at);
      if (written.size > REMEMBERED) written.delete(written.keys().next().value as string);
      const target = table === "api" ? apiKeys : serviceKeys;
      const staleBefore = new Date(at - LAST_USED_RESOLUTION_MS);
      tasks.run("last used", async () => {
        await db
          .update(target)
          .set({ lastUsedAt: now })
          .where(
            and(eq(target.id, keyId), or(isNull(target.lastUsedAt), lt(target.lastUsedAt, staleBefore))),
          );
      });
    },
  };
}
