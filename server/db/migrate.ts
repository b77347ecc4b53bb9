// Applies the committed SQL migrations in server/db/migrations (written by `npm run db:generate`).
import { fileURLToPath } from "node:url";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePgliteDb } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgresDb } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));

/** Any constant works; it only has to be the same in every instance of this service. */
const MIGRATION_LOCK_ID = 7_314_925_001;

export async function migratePglite(db: PgliteDatabase<Record<string, unknown>>): Promise<void> {
  await migratePgliteDb(db, { migrationsFolder: MIGRATIONS_FOLDER });
}

/**
 * Several API instances may start at once against one PostgreSQL: a session advisory lock on a
 * single dedicated connection makes them take turns, and the later ones find nothing to do.
 */
export async function migratePostgres(databaseUrl: string): Promise<void> {
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    try {
      await migratePostgresDb(drizzlePostgres({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}
