// Migration 0021 on a database the previous schema made and filled, as the previous code wrote it:
// address changes of one account, pending and used, and its ways back. A change link records the
// token version it was asked under, and works only while the account keeps it (a review's MEDIUM
// 2). Nobody wrote that version down for the links pending before: they end at the migration (the
// owner asks again), while used changes stay as history and the ways back, the owner's, stay as
// they were. On PGlite, and on PostgreSQL in a scratch database when TEST_DATABASE_URL is set.
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { fillTeamOfTwo, migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import type { Db } from "./types.ts";

const NOW = "2026-12-01T08:00:00.000Z";
const LATER = "2999-01-01T00:00:00.000Z";
const EARLIER = "2026-11-30T08:00:00.000Z";

async function fillAsBefore(db: Db) {
  const { ann } = await fillTeamOfTwo(db, NOW);
  const link = (id: string, kind: "change" | "revert", expiresAt: string, usedAt: string | null) =>
    sql`(${id}::uuid, ${ann}, ${kind}, ${`${id.slice(0, 4)}@example.net`}, ${`hash-${id}`}, ${expiresAt}, ${usedAt}, ${NOW})`;
  await db.execute(sql`insert into email_changes (id, user_id, kind, email, token_hash, expires_at, used_at, created_at)
    values ${sql.join(
      [
        link("00000000-0000-4000-8000-000000000001", "change", LATER, null),
        link("00000000-0000-4000-8000-000000000002", "change", EARLIER, null),
        link("00000000-0000-4000-8000-000000000003", "change", LATER, NOW),
        link("00000000-0000-4000-8000-000000000004", "revert", LATER, null),
        link("00000000-0000-4000-8000-000000000005", "revert", LATER, NOW),
      ],
      sql`, `,
    )}`);
  return { ann };
}

type Link = { id: string } & Record<string, unknown>;
const links = async (db: Db) =>
  rowsOf<Link>(
    await db.execute(sql`select id, user_id, kind, email, token_hash, expires_at, used_at, created_at
      from email_changes order by id`),
  );

describe.each(TEST_DATABASES)("migration 0021: a change link's token version (%s)", (kind) => {
  const before = migrationsBefore("0021_email_change_token_version");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("ends the change links pending, keeps used changes and every way back, and stores the version", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const { ann } = await fillAsBefore(db.handle.db);
      const were = await links(db.handle.db);

      await db.migrate(MIGRATIONS_FOLDER);
      const after = await links(db.handle.db);
      // The pending change links (open or lapsed) are gone; every other row is as it was.
      const pending = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"];
      expect(after).toEqual(were.filter((l) => !pending.includes(l.id)));
      const versions = rowsOf<{ token_version: number | null }>(
        await db.handle.db.execute(sql`select token_version from email_changes`),
      );
      expect(versions.map((v) => v.token_version)).toEqual([null, null, null]);

      // A change link asked after the migration records the version it was asked under.
      await db.handle.db.execute(sql`insert into email_changes
        (id, user_id, kind, email, token_hash, expires_at, created_at, token_version)
        values ('00000000-0000-4000-8000-000000000006', ${ann}, 'change', 'new@example.net', 'hash-6', ${LATER}, ${NOW}, 3)`);
      const [stored] = rowsOf<{ token_version: number }>(
        await db.handle.db.execute(
          sql`select token_version from email_changes where id = '00000000-0000-4000-8000-000000000006'`,
        ),
      );
      expect(stored).toEqual({ token_version: 3 });
    } finally {
      await db.close();
    }
  });
});
