// Migration 0023 (credit leases, decision 051) on a database the previous schema made and filled as
// the previous code wrote it: grants partly spent, charges with their key's and member's monthly
// usage. After it every row is as it was, nothing is reserved and no charge names a lease, so every
// balance, limit and cap reads as before; and the charges made after it, under the lock, add to the
// same rows. On PGlite, and on PostgreSQL in a scratch database when TEST_DATABASE_URL is set.
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

async function fillAsBefore(db: Db) {
  const { ann, team } = await fillTeamOfTwo(db, NOW);
  const grant = randomUUID();
  const key = "keyofannteam";
  await db.execute(sql`insert into credit_grants (id, user_id, kind, amount, remaining, granted_at, expires_at, source, fulfilment_key, frozen)
    values (${grant}, ${team}, 'topup', 500000, 480000, ${NOW}, null, '500 credit pack', 'pack:1', 10000)`);
  await db.execute(sql`insert into api_keys (id, user_id, created_by, name, prefix, secret_hash, monthly_credit_limit, created_at)
    values (${key}, ${team}, ${ann}, 'Studio', 'gpk_keyofannteam', 'h', 100000, ${NOW})`);
  await db.execute(sql`insert into credit_spends (id, user_id, amount, reason, idempotency_key, balance_after, takes, api_key_id, feature, people, quantity, created_at)
    values (${randomUUID()}, ${team}, 10000, 'Comic', 'charge-1', 480000,
            ${JSON.stringify([{ grantId: grant, amount: 10000 }])}::jsonb, ${key}, 'comic', 'one', 1, ${NOW})`);
  await db.execute(
    sql`insert into api_key_usage (api_key_id, month, amount) values (${key}, ${MONTH}, 10000)`,
  );
  await db.execute(
    sql`insert into member_credit_usage (org_id, user_id, month, amount) values (${team}, ${ann}, ${MONTH}, 10000)`,
  );
  return { ann, team, key };
}

type Row = Record<string, unknown>;
const rows = async (db: Db, table: string) =>
  rowsOf<Row>(await db.execute(sql`select * from ${sql.identifier(table)} order by 1`));
const TABLES = ["credit_grants", "credit_spends", "api_key_usage", "member_credit_usage"];

describe.each(TEST_DATABASES)("migration 0023: credit leases (%s)", (kind) => {
  const before = migrationsBefore("0023_credit_leases");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps every grant, charge and month's usage, with nothing reserved and no lease", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const { ann, team, key } = await fillAsBefore(db.handle.db);
      const were = Object.fromEntries(
        await Promise.all(TABLES.map(async (t) => [t, await rows(db.handle.db, t)])),
      );

      await db.migrate(MIGRATIONS_FOLDER);
      for (const table of TABLES) {
        const now = await rows(db.handle.db, table);
        expect(
          // cap_warned: migration 0024's, after this one.
          now.map(({ reserved, lease_id, cap_warned, ...rest }) => rest),
          table,
        ).toEqual(were[table]);
        for (const row of now) {
          if (table === "credit_spends") expect(row.lease_id).toBeNull();
          else expect(Number(row.reserved)).toBe(0);
        }
      }
      expect(await rows(db.handle.db, "credit_leases")).toEqual([]);

      // During a rolling upgrade the previous code still writes its charges' month usage as it did:
      // every column from JSON, `reserved` absent (its write_batch). It must still succeed, for a
      // new row and an existing one, and its NULL reads as nothing reserved.
      for (const month of [MONTH, "2026-12-01"]) {
        await db.handle.db.execute(sql`
          insert into api_key_usage select * from jsonb_populate_recordset(null::api_key_usage,
            ${JSON.stringify([{ api_key_id: key, month, amount: 0 }])}::jsonb)
          on conflict (api_key_id, month) do update set amount = api_key_usage.amount + excluded.amount`);
        await db.handle.db.execute(sql`
          insert into member_credit_usage select * from jsonb_populate_recordset(null::member_credit_usage,
            ${JSON.stringify([{ org_id: team, user_id: ann, month, amount: 0 }])}::jsonb)
          on conflict (org_id, user_id, month) do update set amount = member_credit_usage.amount + excluded.amount`);
      }

      // A charge under the lock after the upgrade counts the month as before and adds to its rows.
      const [answer] = await spendBatch(db.handle.db, [
        {
          userId: undefined,
          amount: 90_000,
          reason: "Comic",
          idempotencyKey: "charge-2",
          requestedBy: null,
          now: new Date(NOW),
          meter: { apiKeyId: key, feature: "comic", people: "one", quantity: 1, month: MONTH },
        },
      ]);
      expect(answer).toMatchObject({ ok: true, userId: team, balanceAfter: 390_000 });
      const [over] = await spendBatch(db.handle.db, [
        {
          userId: undefined,
          amount: 1,
          reason: "Comic",
          idempotencyKey: "charge-3",
          requestedBy: null,
          now: new Date(NOW),
          meter: { apiKeyId: key, feature: "comic", people: "one", quantity: 1, month: MONTH },
        },
      ]);
      expect(over).toEqual({ ok: false, reason: "key_limit" });
      const usage = async (table: string) =>
        (await rows(db.handle.db, table))
          .map((r) => [
            String(r.month).slice(0, 10),
            Number(r.amount),
            r.reserved === null ? null : Number(r.reserved),
          ])
          .sort((x, y) => String(x[0]).localeCompare(String(y[0])));
      expect(await usage("member_credit_usage")).toEqual([
        [MONTH, 100_000, 0],
        ["2026-12-01", 0, null],
      ]);
      expect(await usage("api_key_usage")).toEqual([
        [MONTH, 100_000, 0],
        ["2026-12-01", 0, null],
      ]);
      // The next month's row the previous code made, NULL and all, counts as nothing reserved.
      const [december] = await spendBatch(db.handle.db, [
        {
          userId: undefined,
          amount: 100_000,
          reason: "Comic",
          idempotencyKey: "charge-4",
          requestedBy: null,
          now: new Date(NOW),
          meter: { apiKeyId: key, feature: "comic", people: "one", quantity: 1, month: "2026-12-01" },
        },
      ]);
      expect(december).toMatchObject({ ok: true, balanceAfter: 290_000 });
    } finally {
      await db.close();
    }
  });
});
