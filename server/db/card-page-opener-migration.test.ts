// Migration 0020 on a database the previous schema made and filled, as the previous code wrote it:
// the local stand-in's card pages (its Billing Portal), open, used and lapsed, of a personal
// organisation and of a team. After it every page is as it was, a personal organisation's pages name
// their user as the opener and stay open, and a team's open pages, whose opener nobody knows, are
// closed: no loss of billing could end them, and a page takes a card only for an opener who may
// still manage billing (decision 045). On PGlite, and on PostgreSQL in a scratch database when
// TEST_DATABASE_URL is set.
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { fillTeamOfTwo, migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import type { Db } from "./types.ts";

const NOW = "2026-12-01T08:00:00.000Z";
/** Far enough ahead that the pages open before the migration are still open after it. */
const LATER = "2999-01-01T00:00:00.000Z";
const EARLIER = "2026-11-30T08:00:00.000Z";

async function fillAsBefore(db: Db) {
  const { ann, bob, team } = await fillTeamOfTwo(db, NOW);
  const page = (id: string, payer: string, expiresAt: string, usedAt: string | null) =>
    sql`(${id}, ${payer}, 'http://localhost/profile/billing', ${NOW}, ${expiresAt}, ${usedAt})`;
  await db.execute(sql`insert into local_card_sessions (id, user_id, return_url, created_at, expires_at, used_at)
    values ${sql.join(
      [
        page("bps_ann_open", ann, LATER, null),
        page("bps_ann_used", ann, LATER, NOW),
        page("bps_team_lapsed", team, EARLIER, null),
        page("bps_team_open", team, LATER, null),
        page("bps_team_used", team, LATER, NOW),
      ],
      sql`, `,
    )}`);
  return { ann, bob, team };
}

type Page = { id: string } & Record<string, unknown>;
const pages = async (db: Db) =>
  rowsOf<Page>(
    await db.execute(sql`select id, user_id, return_url, created_at, expires_at, used_at
      from local_card_sessions order by id`),
  );

describe.each(TEST_DATABASES)("migration 0020: who opened a card page (%s)", (kind) => {
  const before = migrationsBefore("0020_card_page_opener");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps every page, names a personal page's opener, and closes a team's open pages", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const { ann, bob, team } = await fillAsBefore(db.handle.db);
      const were = await pages(db.handle.db);

      await db.migrate(MIGRATIONS_FOLDER);
      const after = await pages(db.handle.db);
      // Only the team's open page changed: it lapsed at the migration.
      const unchanged = (rows: Page[]) => rows.filter((p) => p.id !== "bps_team_open");
      expect(unchanged(after)).toEqual(unchanged(were));
      const [open] = rowsOf<{ lapsed: boolean; used: boolean }>(
        await db.handle.db.execute(sql`select expires_at <= now() as lapsed, used_at is not null as used
          from local_card_sessions where id = 'bps_team_open'`),
      );
      expect(open).toEqual({ lapsed: true, used: false });

      const openers = rowsOf<{ id: string; opened_by: string | null }>(
        await db.handle.db.execute(sql`select id, opened_by from local_card_sessions order by id`),
      );
      // A personal organisation's pages were its user's; a team's name nobody.
      expect(openers).toEqual([
        { id: "bps_ann_open", opened_by: ann },
        { id: "bps_ann_used", opened_by: ann },
        { id: "bps_team_lapsed", opened_by: null },
        { id: "bps_team_open", opened_by: null },
        { id: "bps_team_used", opened_by: null },
      ]);

      // A page opened after the migration names its opener; deleting the opener's account keeps the
      // team's page, naming nobody.
      await db.handle.db.execute(sql`insert into local_card_sessions (id, user_id, opened_by, return_url, created_at, expires_at)
        values ('bps_team_new', ${team}, ${bob}, 'http://localhost/profile/billing', ${NOW}, ${LATER})`);
      await db.handle.db.execute(sql`delete from users where id = ${bob}`);
      const teamPages = rowsOf(
        await db.handle.db.execute(
          sql`select id, opened_by from local_card_sessions where id = 'bps_team_new'`,
        ),
      );
      expect(teamPages).toEqual([{ id: "bps_team_new", opened_by: null }]);
    } finally {
      await db.close();
    }
  });
});
