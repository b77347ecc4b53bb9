// Migration 0015 (credit_grants.note) on a database the previous schema made and filled: the
// grants there keep their credits and read as having no note; a new grant stores one.
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll, describe, expect, it } from "vitest";
import { GOODWILL_SOURCE } from "../../contract/billing.ts";
import { rowsOf } from "../../tests/fixtures/test-db.ts";
import { insertUser } from "../accounts/users.ts";
import { insertGrant, userGrants } from "../billing/ledger-store.ts";
import { toLedgerEntry } from "../billing/reads.ts";
import { migrationsBefore } from "../testing/migrations.ts";
import { openPglite } from "./client.ts";

const NOTE_MIGRATION = "0015_grant_notes";

describe("migration 0015: notes on credit grants", () => {
  const before = migrationsBefore(NOTE_MIGRATION);
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps the grants the previous schema stored, with no note, and stores new notes", async () => {
    const handle = await openPglite(undefined);
    try {
      await migrate(drizzle(handle.client), { migrationsFolder: before });
      const columns = async () =>
        rowsOf<{ column_name: string }>(
          await handle.db.execute(
            sql`select column_name from information_schema.columns where table_name = 'credit_grants'`,
          ),
        ).map((r) => r.column_name);
      expect(await columns()).not.toContain("note");

      const now = new Date("2026-11-20T10:00:00Z");
      const user = await insertUser(handle.db, {
        username: "cora",
        email: "cora@example.com",
        passwordHash: "h",
        now,
      });
      // Written as the previous code wrote it: no note column to name.
      await handle.db.execute(sql`
        insert into credit_grants (id, user_id, kind, amount, remaining, granted_at, expires_at, source, fulfilment_key)
        values (gen_random_uuid(), ${user.id}, 'free', 250000, 200000, ${now.toISOString()}, null,
                ${GOODWILL_SOURCE}, 'operator-grant:old')`);

      await handle.migrate();
      expect(await columns()).toContain("note");

      await insertGrant(
        handle.db,
        user.id,
        {
          kind: "free",
          amount: 10_000,
          grantedAt: new Date(now.getTime() + 1000),
          expiresAt: null,
          source: GOODWILL_SOURCE,
          fulfilmentKey: "operator-grant:new",
          note: "Sorry for Tuesday",
        },
        { paymentReference: null, eventId: null },
      );
      const entries = (await userGrants(handle.db, user.id)).map(toLedgerEntry);
      expect(entries).toEqual([
        expect.objectContaining({ amount: 10, remaining: 10, note: "Sorry for Tuesday" }),
        expect.objectContaining({ amount: 250, remaining: 200, source: GOODWILL_SOURCE }),
      ]);
      expect(entries[1]).not.toHaveProperty("note");
    } finally {
      await handle.close();
    }
  }, 120_000); // a fresh PGlite runs initdb: seconds, more on a busy machine
});
