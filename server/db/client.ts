// Opens the database: PGlite in DATA_DIR/db by default (nothing to install), PostgreSQL through
// postgres.js when DATABASE_URL is set. Both give the same Drizzle API and run the same migrations.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { driverPatchMissing } from "./driver-patch.ts";
import { type Listen, pgliteListen, postgresListener } from "./listen.ts";
import { migratePglite, migratePostgres } from "./migrate.ts";
import { lockPgliteDir } from "./pglite-lock.ts";
import * as schema from "./schema/index.ts";
import type { Db } from "./types.ts";

export interface DatabaseHandle {
  kind: "pglite" | "postgres";
  db: Db;
  /** Applies pending migrations (idempotent; safe with several instances starting at once). */
  migrate(): Promise<void>;
  /** Hears what committed transactions NOTIFY (one LISTEN connection on PostgreSQL, closed with the handle). */
  listen: Listen;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; absent means PGlite. */
  databaseUrl?: string | undefined;
  /** Folder for PGlite's files (`<dataDir>/db`); absent with no URL means an in-memory PGlite (tests). */
  dataDir?: string | undefined;
  /** Connections in the postgres.js pool. */
  poolSize?: number;
}

/** A handle over an already created PGlite (tests build theirs from a migrated template). */
export function pgliteHandle(
  client: PGlite,
  unlock: () => void = () => {},
): DatabaseHandle & { client: PGlite } {
  const db = drizzlePglite({ client, schema });
  return {
    kind: "pglite",
    db,
    client,
    migrate: () => migratePglite(db),
    listen: pgliteListen(client),
    close: async () => {
      if (!client.closed) await client.close();
      unlock();
    },
  };
}

export async function openPglite(dataDir: string | undefined): Promise<DatabaseHandle & { client: PGlite }> {
  if (!dataDir) return pgliteHandle(await PGlite.create());
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockPgliteDir(join(dataDir, "db.lock"), dataDir);
  try {
    return pgliteHandle(await PGlite.create(join(dataDir, "db")), unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

export function openPostgres(databaseUrl: string, poolSize = 10): DatabaseHandle {
  const unpatched = driverPatchMissing();
  if (unpatched) throw new Error(unpatched);
  const client = postgres(databaseUrl, {
    max: poolSize,
    onnotice: () => {},
    connection: { application_name: "genai-portal" },
  });
  const db = drizzlePostgres({ client, schema });
  const listener = postgresListener(databaseUrl);
  return {
    kind: "postgres",
    db,
    migrate: () => migratePostgres(databaseUrl),
    listen: listener.listen,
    close: async () => {
      await Promise.all([listener.close(), client.end({ timeout: 5 })]);
    },
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize);
  return openPglite(options.dataDir);
}
