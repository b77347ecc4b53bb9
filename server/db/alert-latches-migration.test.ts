// Migration 0024 (alert latches, decision 051) on a database the previous schema made and filled as
// the previous code wrote it. Each latch starts as sent where what it watches is already past its
// mark, so the upgrade mails no one; the previous code's JSON write of a member's month (no
// cap_warned, so NULL) still succeeds, and NULL reads as not warned. On PGlite, and on PostgreSQL in
// a scratch database when TEST_DATABASE_URL is set.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { spendBatch } from "../billing/spends.ts";
import { fillTeamOfTwo, migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import type { Db } from "./types.ts";

const NOW = "2026-11-20T10:00:00.000Z";
const MONTH = "2026-11-01";
const NEXT_MONTH = "2026-12-01";

async function grant(db: Db, userId: string, remaining: number, expiresAt: string | null) {
  await db.execute(sql`insert into credit_grants (id, user_id, kind, amount, remaining, granted_at, expires_at, source, fulfilment_key)
    values (${randomUUID()}, ${userId}, 'topup', ${remaining}, ${remaining}, '2026-01-01T00:00:00Z', ${expiresAt}, 'pack', ${randomUUID()})`);
}

async function fillAsBefore(db: Db) {
  const { ann, bob, team } = await fillTeamOfTwo(db, NOW);
  // The team: 480 credits, alert at 100. Ann: 30 live (100 more expired), alert at 50. Bob: no alert.
  await grant(db, team, 480_000, null);
  await grant(db, ann, 30_000, null);
  await grant(db, ann, 100_000, "2026-06-01T00:00:00Z");
  await db.execute(sql`update organizations set low_balance_threshold = 100000 where id = ${team}`);
  await db.execute(sql`update organizations set low_balance_threshold = 50000 where id = ${ann}`);
  // Caps of 10 credits: Ann spent past 8 this month, Bob exactly 8.
  await db.execute(sql`update organization_members set monthly_credit_cap = 10000 where org_id = ${team}`);
  await db.execute(sql`insert into member_credit_usage (org_id, user_id, month, amount)
    values (${team}, ${ann}, ${MONTH}, 8001), (${team}, ${bob}, ${MONTH}, 8000)`);
  const key = "keyofbobteam";
  await db.execute(sql`insert into api_keys (id, user_id, created_by, name, prefix, secret_hash, created_at)
    values (${key}, ${team}, ${bob}, 'Studio', 'gpk_keyofbobteam', 'h', ${NOW})`);
  return { ann, bob, team, key };
}

type Row = Record<string, unknown>;
const rows = async (db: Db, query: ReturnType<typeof sql>) => rowsOf<Row>(await db.execute(query));

/** What customers had: balances, keys, charges, usage, invoices; each table's rows in a fixed order. */
const CUSTOMER_TABLES = [
  "organizations",
  "credit_grants",
  "credit_spends",
  "api_keys",
  "api_key_usage",
  "member_credit_usage",
  "usage_daily",
  "invoices",
] as const;
const customerData = async (db: Db) =>
  Object.fromEntries(
    await Promise.all(
      CUSTOMER_TABLES.map(async (table) => {
        const all = await rows(db, sql`select * from ${sql.identifier(table)}`);
        // The two new columns are the migration's; everything else must be as it was.
        const kept = all.map(({ low_balance_alerted, cap_warned, ...rest }) => rest);
        return [table, kept.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))];
      }),
    ),
  );

describe.each(TEST_DATABASES)("migration 0024: alert latches (%s)", (kind) => {
  const before = migrationsBefore("0024_alert_latches");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("latches what is already past its mark, and takes the previous code's writes", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const { ann, bob, team, key } = await fillAsBefore(db.handle.db);
      const had = await customerData(db.handle.db);
      await db.migrate(MIGRATIONS_FOLDER);
      expect(await customerData(db.handle.db)).toEqual(had);
      expect(had.credit_grants).toHaveLength(3);
      expect(had.member_credit_usage).toHaveLength(2);
      const latches = await rows(db.handle.db, sql`select id, low_balance_alerted from organizations`);
      expect(Object.fromEntries(latches.map((r) => [r.id, r.low_balance_alerted]))).toEqual({
        [ann]: true,
        [bob]: false,
        [team]: false,
      });
      const warned = await rows(db.handle.db, sql`select user_id, cap_warned from member_credit_usage`);
      expect(Object.fromEntries(warned.map((r) => [r.user_id, r.cap_warned]))).toEqual({
        [ann]: true,
        [bob]: false,
      });

      // During a rolling upgrade the previous code writes a member's month from JSON, cap_warned
      // absent: it must succeed, and its NULL reads as not warned.
      await db.handle.db.execute(sql`
        insert into member_credit_usage select * from jsonb_populate_recordset(null::member_credit_usage,
          ${JSON.stringify([{ org_id: team, user_id: bob, month: NEXT_MONTH, amount: 8000, reserved: 0 }])}::jsonb)
        on conflict (org_id, user_id, month) do update set amount = member_credit_usage.amount + excluded.amount`);
      const charge = (idempotencyKey: string, month: string) => ({
        userId: undefined,
        amount: 1,
        reason: "Comic",
        idempotencyKey,
        requestedBy: null,
        now: new Date(NOW),
        meter: { apiKeyId: key, feature: "comic", people: "one" as const, quantity: 1, month },
      });
      const [november, december, again] = await spendBatch(db.handle.db, [
        charge("charge-1", MONTH),
        charge("charge-2", NEXT_MONTH),
        charge("charge-3", NEXT_MONTH),
      ]);
      const event = { orgId: team, memberId: bob, cap: 10_000 };
      expect(november).toMatchObject({ ok: true, memberCapNearing: { ...event, month: MONTH, used: 8001 } });
      expect(december).toMatchObject({
        ok: true,
        memberCapNearing: { ...event, month: NEXT_MONTH, used: 8001 },
      });
      expect(again).toMatchObject({ ok: true, memberCapNearing: null });
      const bobs = await rows(
        db.handle.db,
        sql`select month::text as month, cap_warned from member_credit_usage where user_id = ${bob} order by month`,
      );
      expect(bobs).toEqual([
        { month: MONTH, cap_warned: true },
        { month: NEXT_MONTH, cap_warned: true },
      ]);
    } finally {
      await db.close();
    }
  });
});
