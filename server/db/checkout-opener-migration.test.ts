// Migration 0017 on a database the previous schema made and filled, as the previous code wrote it:
// a personal organisation's checkout sessions and a team's, and billing customers with and without
// a VAT ID. After it nothing is lost: every session is as it was and names who opened it where that
// is known (a personal organisation's one member), and every VAT ID on file still gives reverse
// charge (a check says "verified"), as it did before. On PGlite, and on PostgreSQL in a scratch database
// when TEST_DATABASE_URL is set.
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { findBillingDetails } from "../billing/subscription-store.ts";
import { fillTeamOfTwo, migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import type { Db } from "./types.ts";

const NOW = "2026-11-27T10:00:00.000Z";

async function fillAsBefore(db: Db) {
  const { ann, bob, team } = await fillTeamOfTwo(db, NOW);
  const session = (id: string, payer: string, status: string) =>
    sql`(${id}, 'local', ${payer}, 'payment', 'prod_500', 'price_500', 900, 'eur', ${status},
         ${`http://localhost/_checkout/${id}`}, 'http://localhost/ok', 'http://localhost/no', ${`cus_${payer.slice(0, 8)}`},
         ${NOW}, ${NOW})`;
  await db.execute(sql`insert into checkout_sessions (id, provider, user_id, mode, product_id, price_id, amount, currency,
      status, url, success_url, cancel_url, customer_id, created_at, expires_at)
    values ${sql.join(
      [
        session("cs_ann_open", ann, "open"),
        session("cs_ann_paid", ann, "complete"),
        session("cs_teamSessionsopen", team, "open"),
      ],
      sql`, `,
    )}`);
  await db.execute(sql`insert into billing_customers (user_id, customer_id, name, country, vat_id, created_at)
    values (${ann}, 'cus_ann', 'Ann Ltd', 'DE', 'DE123456789', ${NOW}),
           (${bob}, 'cus_bob', 'Bob', 'FR', null, ${NOW}),
           (${team}, 'cus_team', 'Acme SAS', 'FR', 'FR12345678901', ${NOW})`);
  return { ann, bob, team };
}

const sessions = (db: Db) =>
  db.execute(
    sql`select id, user_id, status, amount, customer_id, expires_at from checkout_sessions order by id`,
  );
const customers = (db: Db) =>
  db.execute(
    sql`select user_id, customer_id, name, country, vat_id from billing_customers order by customer_id`,
  );

describe.each(TEST_DATABASES)("migration 0017: who opened a checkout, and VAT IDs' state (%s)", (kind) => {
  const before = migrationsBefore("0017_checkout_opener_and_vat_id_checks");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps every session and customer, names a personal session's opener, and keeps VAT IDs confirmed", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const { ann, bob, team } = await fillAsBefore(db.handle.db);
      const sessionsWere = rowsOf(await sessions(db.handle.db));
      const customersWere = rowsOf(await customers(db.handle.db));

      await db.migrate(MIGRATIONS_FOLDER);
      expect(rowsOf(await sessions(db.handle.db))).toEqual(sessionsWere);
      expect(rowsOf(await customers(db.handle.db))).toEqual(customersWere);

      const openers = rowsOf<{ id: string; opened_by: string | null }>(
        await db.handle.db.execute(sql`select id, opened_by from checkout_sessions order by id`),
      );
      // A personal organisation's sessions were its user's; a team's name nobody.
      expect(openers).toEqual([
        { id: "cs_ann_open", opened_by: ann },
        { id: "cs_ann_paid", opened_by: ann },
        { id: "cs_teamSessionsopen", opened_by: null },
      ]);
      const checks = rowsOf(
        await db.handle.db.execute(
          sql`select customer_id, vat_id, status from vat_id_checks order by customer_id`,
        ),
      );
      expect(checks).toEqual([
        { customer_id: "cus_ann", vat_id: "DE123456789", status: "verified" },
        { customer_id: "cus_team", vat_id: "FR12345678901", status: "verified" },
      ]);
      // As the billing details read them: each VAT ID on file confirmed, as it was before.
      expect((await findBillingDetails(db.handle.db, ann))?.vatIdStatus).toBe("verified");
      expect((await findBillingDetails(db.handle.db, team))?.vatIdStatus).toBe("verified");
      expect((await findBillingDetails(db.handle.db, bob))?.vatIdStatus).toBeNull();

      // A session opened after the migration names its opener; deleting the opener's account keeps
      // the team's session, naming nobody.
      await db.handle.db.execute(
        sql`update checkout_sessions set opened_by = ${bob} where id = 'cs_teamSessionsopen'`,
      );
      await db.handle.db.execute(sql`delete from users where id = ${bob}`);
      const teamSessions = rowsOf(
        await db.handle.db.execute(sql`select id, opened_by from checkout_sessions where user_id = ${team}`),
      );
      expect(teamSessions).toEqual([{ id: "cs_teamSessionsopen", opened_by: null }]);
    } finally {
      await db.close();
    }
  });
});
