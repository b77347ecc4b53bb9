// For migration tests: a database at an earlier migration, filled as the code of that time wrote
// it, then migrated to today's schema. On PGlite in memory, or on PostgreSQL in a scratch database
// of its own (made and dropped here) when TEST_DATABASE_URL is set.
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePgliteDb } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgresDb } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { expect } from "vitest";
import { type DatabaseHandle, openPglite, openPostgres } from "../db/client.ts";
import { MIGRATIONS_FOLDER } from "../db/migrate.ts";
import type { Db } from "../db/types.ts";

/** A copy of the migrations that stops before `tag`: the schema as it was before that migration. */
export function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), "migrations-before-"));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = join(dir, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  expect(cut).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, cut);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/**
 * Two users, Ann and Bob, and a team organisation Ann owns and Bob manages the billing of, written
 * as the code since migration 0016 writes them (its trigger made each user's personal organisation
 * with the user's row), at `now`.
 */
export async function fillTeamOfTwo(
  db: Db,
  now: string,
): Promise<{ ann: string; bob: string; team: string }> {
  const ann = randomUUID();
  const bob = randomUUID();
  const team = randomUUID();
  await db.execute(sql`insert into users (id, username, email, password_hash, email_verified, created_at, updated_at)
    values (${ann}, 'ann', 'ann@example.com', 'h', true, ${now}, ${now}),
           (${bob}, 'bob', 'bob@example.com', 'h', true, ${now}, ${now})`);
  await db.execute(sql`insert into organizations (id, name, personal, created_by, created_at)
    values (${team}, 'Acme', false, ${ann}, ${now})`);
  await db.execute(sql`insert into organization_members (org_id, user_id, role, joined_at)
    values (${team}, ${ann}, 'owner', ${now}), (${team}, ${bob}, 'billing', ${now})`);
  return { ann, bob, team };
}

export interface ScratchDatabase {
  /** Applies the migrations of `folder` (those before the one under test, then all). */
  migrate(folder: string): Promise<void>;
  handle: DatabaseHandle;
  close(): Promise<void>;
}

export async function scratchDatabase(kind: "pglite" | "postgres"): Promise<ScratchDatabase> {
  if (kind === "pglite") {
    const handle = await openPglite(undefined);
    return {
      handle,
      migrate: (folder) => migratePgliteDb(drizzlePglite(handle.client), { migrationsFolder: folder }),
      close: () => handle.close(),
    };
  }
  const base = process.env.TEST_DATABASE_URL as string;
  const name = `migration_${randomUUID().replaceAll("-", "")}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const handle = openPostgres(url.toString(), 4);
  return {
    handle,
    migrate: async (folder) => {
      const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        await migratePostgresDb(drizzlePostgres({ client }), { migrationsFolder: folder });
      } finally {
        await client.end({ timeout: 5 });
      }
    },
    close: async () => {
      await handle.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
