// Migration 0018 (auto top-up's tables) on a database the previous schema made and filled, as the
// previous code wrote it: users, a team, a subscription, credits, a checkout and a billing customer.
// After it nothing is lost (every row reads as before), auto top-up is off for everyone (no
// settings, no card), and the new tables hold their rules: one open attempt per organisation, and
// consents outlive the organisation they were given for. On PGlite, and on PostgreSQL in a scratch
// database when TEST_DATABASE_URL is set.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { findOpenAttempt, findSettings, openAttempt } from "../billing/auto-top-up/store.ts";
import { migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import type { Db } from "./types.ts";

const NOW = "2026-11-28T10:00:00.000Z";

async function fillAsBefore(db: Db) {
  const ann = randomUUID();
  const team = randomUUID();
  await db.execute(sql`insert into users (id, username, email, password_hash, email_verified, created_at, updated_at)
    values (${ann}, 'ann', 'ann@example.com', 'h', true, ${NOW}, ${NOW})`);
  await db.execute(sql`insert into organizations (id, name, personal, created_by, created_at)
    values (${team}, 'Acme', false, ${ann}, ${NOW})`);
  await db.execute(sql`insert into organization_members (org_id, user_id, role, joined_at)
    values (${team}, ${ann}, 'owner', ${NOW})`);
  await db.execute(sql`insert into subscriptions (id, user_id, provider_subscription_id, customer_id, product_id, status,
      current_period_start, current_period_end, created_at, updated_at)
    values (${randomUUID()}, ${team}, 'sub_team', 'cus_team', 'prod_tier_a', 'active', ${NOW}, '2026-12-28T10:00:00.000Z', ${NOW}, ${NOW})`);
  await db.execute(sql`insert into credit_grants (id, user_id, kind, amount, remaining, granted_at, source, fulfilment_key)
    values (${randomUUID()}, ${team}, 'subscription', 1000000, 400000, ${NOW}, 'Tier A', 'subscription:sub_team:first'),
           (${randomUUID()}, ${ann}, 'free', 50000, 50000, ${NOW}, 'Free plan', ${`free:${ann}`})`);
  await db.execute(sql`insert into billing_customers (user_id, customer_id, name, country, vat_id, created_at)
    values (${team}, 'cus_team', 'Acme GmbH', 'DE', null, ${NOW})`);
  return { ann, team };
}

const tables = [
  "users",
  "organizations",
  "organization_members",
  "subscriptions",
  "credit_grants",
  "billing_customers",
];
async function snapshot(db: Db) {
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    // Without the columns later migrations add (0023's reservations, 0024's latch): this compares
    // what 0018 kept.
    out[table] = rowsOf<Record<string, unknown>>(
      await db.execute(sql`select * from ${sql.identifier(table)} order by 1, 2`),
    ).map(({ reserved: _reserved, low_balance_alerted: _alerted, ...row }) => row);
  }
  return out;
}

describe.each(TEST_DATABASES)("migration 0018: auto top-up's tables (%s)", (kind) => {
  const before = migrationsBefore("0018_auto_top_up");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps every row, leaves auto top-up off, and holds one open attempt per organisation", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const { ann, team } = await fillAsBefore(db.handle.db);
      const was = await snapshot(db.handle.db);

      await db.migrate(MIGRATIONS_FOLDER);
      const tx = db.handle.db;
      expect(await snapshot(tx)).toEqual(was);
      expect(await findSettings(tx, team)).toBeUndefined();
      expect(await findOpenAttempt(tx, team)).toBeUndefined();

      const attempt = {
        orgId: team,
        provider: "local" as const,
        productId: "prod_500",
        credits: 500,
        currency: "eur",
        net: 5000,
        gross: 5950,
        paymentMethodId: "pm_1",
      };
      const now = new Date(NOW);
      expect(await openAttempt(tx, attempt, now)).not.toBeNull();
      // A second open attempt of the same organisation is refused by the index, not by a read.
      expect(await openAttempt(tx, attempt, now)).toBeNull();
      expect(await openAttempt(tx, { ...attempt, orgId: ann }, now)).not.toBeNull();

      // A consent is evidence for 10 years: deleting the organisation's row keeps it.
      await tx.execute(sql`insert into auto_top_up_consents (id, org_id, user_id, user_email, text_version, text, choice, accepted_at)
        values (${randomUUID()}, ${team}, ${ann}, 'ann@example.com', 'v1', 'We will charge...', '{}'::jsonb, ${NOW})`);
      await tx.execute(sql`delete from organizations where id = ${team}`);
      const consents = rowsOf(await tx.execute(sql`select org_id from auto_top_up_consents`));
      expect(consents).toEqual([{ org_id: team }]);
      // The organisation's attempts went with it.
      expect(rowsOf(await tx.execute(sql`select org_id from auto_top_up_attempts`))).toEqual([
        { org_id: ann },
      ]);
    } finally {
      await db.close();
    }
  }, 120_000); // a fresh PGlite runs initdb: seconds, more on a busy machine
});
