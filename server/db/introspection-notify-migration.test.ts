// Migration 0019 (the introspection cache's triggers, decision 034) on a database the previous schema
// made and filled: users, a team with a capped member, personal and team keys (one used, one
// revoked). After it every row reads as before, and each committed change that can make a kept
// introspection wrong notifies portal_introspection once, naming its table, while the writes that
// happen all the time (last used, last login, a role, a low-balance threshold) and a change rolled
// back notify nothing. On PGlite, and on PostgreSQL in a scratch database when TEST_DATABASE_URL is set.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { INTROSPECTION_CHANNEL } from "../api-access/introspection-cache.ts";
import { generateKey } from "../api-access/key-format.ts";
import { migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import type { Db } from "./types.ts";

const NOW = "2026-11-28T10:00:00.000Z";

async function fillAsBefore(db: Db) {
  const ann = randomUUID();
  const bob = randomUUID();
  const team = randomUUID();
  const [annKey, bobKey, oldKey] = [generateKey("api"), generateKey("api"), generateKey("api")];
  const statements = [
    sql`insert into users (id, username, email, password_hash, email_verified, created_at, updated_at)
      values (${ann}, 'ann', 'ann@example.com', 'h', true, ${NOW}, ${NOW}),
             (${bob}, 'bob', 'bob@example.com', 'h', true, ${NOW}, ${NOW})`,
    // Each user's personal organisation comes with the user's row (migration 0016's trigger).
    sql`insert into organizations (id, name, personal, created_by, created_at)
      values (${team}, 'Acme', false, ${ann}, ${NOW})`,
    sql`insert into organization_members (org_id, user_id, role, monthly_credit_cap, joined_at)
      values (${team}, ${ann}, 'owner', null, ${NOW}), (${team}, ${bob}, 'developer', 5000, ${NOW})`,
    sql`insert into api_keys (id, user_id, created_by, name, prefix, secret_hash, monthly_credit_limit, features, created_at, last_used_at, revoked_at)
      values (${annKey.id}, ${ann}, ${ann}, 'Render farm', ${annKey.prefix}, ${annKey.hash}, 100000, ${JSON.stringify(["comic"])}::jsonb, ${NOW}, ${NOW}, null),
             (${bobKey.id}, ${team}, ${bob}, 'CI', ${bobKey.prefix}, ${bobKey.hash}, null, null, ${NOW}, null, null),
             (${oldKey.id}, ${team}, ${bob}, 'Old', ${oldKey.prefix}, ${oldKey.hash}, null, null, ${NOW}, null, ${NOW})`,
  ];
  for (const statement of statements) await db.execute(statement);
  return { ann, bob, team, annKey: annKey.id, bobKey: bobKey.id };
}

const tables = ["users", "organizations", "organization_members", "api_keys"];
async function snapshot(db: Db) {
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    // Without the column migration 0024 adds (its latch): this compares what 0019 kept.
    out[table] = rowsOf<Record<string, unknown>>(
      await db.execute(sql`select * from ${sql.identifier(table)} order by 1, 2`),
    ).map(({ low_balance_alerted: _alerted, ...row }) => row);
  }
  return out;
}

describe.each(TEST_DATABASES)("migration 0019: the introspection cache's triggers (%s)", (kind) => {
  const before = migrationsBefore("0019_introspection_notify");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps every row, and notifies once per committed change an introspection reads", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const { ann, bob, team, annKey, bobKey } = await fillAsBefore(db.handle.db);
      const was = await snapshot(db.handle.db);

      await db.migrate(MIGRATIONS_FOLDER);
      const tx = db.handle.db;
      expect(await snapshot(tx)).toEqual(was);
      const triggers = rowsOf<{ tgname: string }>(
        await tx.execute(sql`select tgname from pg_trigger where tgname like '%introspection%' order by 1`),
      ).map((t) => t.tgname);
      expect(triggers).toEqual(
        ["api_keys", "organization_members", "organizations", "users"].flatMap((table) => [
          `${table}_introspection_delete`,
          `${table}_introspection_update`,
        ]),
      );

      // What each statement notifies (sorted): a marker sent after it, in commit order, ends its share.
      const heard: string[] = [];
      const unlisten = await db.handle.listen(
        INTROSPECTION_CHANNEL,
        (p) => heard.push(p),
        () => {},
      );
      const notified = async (run: () => Promise<unknown>) => {
        heard.length = 0;
        await run().catch(() => undefined);
        await tx.execute(sql`select pg_notify(${INTROSPECTION_CHANNEL}, 'marker')`);
        const until = Date.now() + 5000;
        while (!heard.includes("marker") && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
        return heard.filter((p) => p !== "marker").sort();
      };
      const cases: Array<[string, SQL, string[]]> = [
        ["a key used", sql`update api_keys set last_used_at = now() where id = ${annKey}`, []],
        ["a key renamed", sql`update api_keys set name = 'Farm' where id = ${annKey}`, []],
        ["a key revoked", sql`update api_keys set revoked_at = now() where id = ${annKey}`, ["api_keys"]],
        [
          "a revoked key revoked again at the same time",
          sql`update api_keys set revoked_at = revoked_at`,
          [],
        ],
        [
          "its features edited",
          sql`update api_keys set features = '["a"]'::jsonb where id = ${bobKey}`,
          ["api_keys"],
        ],
        [
          "its limit edited",
          sql`update api_keys set monthly_credit_limit = 7 where id = ${bobKey}`,
          ["api_keys"],
        ],
        ["its expiry edited", sql`update api_keys set expires_at = now() where id = ${bobKey}`, ["api_keys"]],
        [
          "every key revoked at once: one notification",
          sql`update api_keys set revoked_at = null`,
          ["api_keys"],
        ],
        ["a login", sql`update users set last_login_at = now(), token_version = 1 where id = ${bob}`, []],
        ["a user disabled", sql`update users set disabled_at = now() where id = ${bob}`, ["users"]],
        ["a user renamed", sql`update users set username = 'robert' where id = ${bob}`, ["users"]],
        [
          "a user deleted (pseudonymised)",
          sql`update users set deleted_at = now() where id = ${bob}`,
          ["users"],
        ],
        [
          "a member's role changed",
          sql`update organization_members set role = 'manager' where user_id = ${bob}`,
          [],
        ],
        [
          "a member's cap changed",
          sql`update organization_members set monthly_credit_cap = 1 where user_id = ${bob} and org_id = ${team}`,
          ["organization_members"],
        ],
        [
          "an organisation's threshold",
          sql`update organizations set low_balance_threshold = 5 where id = ${team}`,
          [],
        ],
        [
          "an organisation disabled",
          sql`update organizations set disabled_at = now() where id = ${team}`,
          ["organizations"],
        ],
        [
          "an organisation renamed",
          sql`update organizations set name = 'Acme 2' where id = ${team}`,
          ["organizations"],
        ],
        [
          "an organisation deleted (kept)",
          sql`update organizations set deleted_at = now() where id = ${team}`,
          ["organizations"],
        ],
        [
          "a member removed",
          sql`delete from organization_members where user_id = ${bob} and org_id = ${team}`,
          ["organization_members"],
        ],
        ["a key deleted", sql`delete from api_keys where id = ${bobKey}`, ["api_keys"]],
        [
          "a user's row deleted, with their personal organisation and what cascades",
          sql`delete from users where id = ${ann}`,
          ["api_keys", "organization_members", "organizations", "users"],
        ],
        [
          "an organisation's row deleted",
          sql`delete from organizations where id = ${team}`,
          ["api_keys", "organizations"],
        ],
      ];
      for (const [what, statement, expected] of cases) {
        expect(await notified(() => tx.execute(statement)), what).toEqual(expected);
      }
      const rolledBack = await notified(() =>
        tx.transaction(async (inner) => {
          await inner.execute(sql`update users set disabled_at = now() where id = ${bob}`);
          throw new Error("rolled back");
        }),
      );
      expect(rolledBack, "a change rolled back").toEqual([]);
      await unlisten();
    } finally {
      await db.close();
    }
  }, 120_000); // a fresh PGlite runs initdb: seconds, more on a busy machine
});
