// Migration 0016 (organisations) on a database the previous schema made and filled, as the previous
// code wrote it: users with plans, top-ups, invoices, credit notes, keys, spends, a low-balance alert
// and a dispute hold. After it every row is kept as it was, every balance and sum is unchanged,
// every key introspects as before (its user as `sub`, the same plan, balance and usage), and the
// billing rows now name each user's personal organisation, whose id is the user's. On PGlite, and on
// PostgreSQL in a scratch database when TEST_DATABASE_URL is set.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { tierForProductId } from "../../contract/catalogue.ts";
import { PRODUCT_IDS } from "../../contract/product-ids.ts";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { introspect } from "../api-access/introspection.ts";
import { generateKey } from "../api-access/key-format.ts";
import type { AccessTokens } from "../auth/access-tokens.ts";
import { spendCredits } from "../billing/spends.ts";
import { userBilling } from "../billing/user-billing.ts";
import { migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import type { Db } from "./types.ts";

const ORGANISATIONS = "0016_organizations";

const NOW = new Date("2026-11-20T10:00:00Z");
const iso = (d: Date) => d.toISOString();
const DAY = 86_400_000;

/** What the previous code stored, written with SQL of its columns (today's schema has more). */
async function fillAsBefore(db: Db) {
  const ann = randomUUID();
  const bob = randomUUID();
  const annKey = generateKey("api");
  const bobKey = generateKey("api");
  const tierD = PRODUCT_IDS.test.tiers.D.product;
  const statements = [
    sql`insert into users (id, username, email, password_hash, email_verified, low_balance_threshold, created_at, updated_at)
        values (${ann}, 'ann', 'ann@example.com', 'h', true, 5000, ${iso(NOW)}, ${iso(NOW)})`,
    sql`insert into users (id, username, email, password_hash, email_verified, dispute_hold_at, created_at, updated_at)
        values (${bob}, 'bob', 'bob@example.com', 'h', true, ${iso(NOW)}, ${iso(NOW)}, ${iso(NOW)})`,
    sql`insert into credit_grants (id, user_id, kind, amount, remaining, granted_at, expires_at, source, fulfilment_key)
        values (${randomUUID()}, ${ann}, 'free', 250000, 200000, ${iso(NOW)}, null, 'free', ${`free:${ann}`}),
               (${randomUUID()}, ${ann}, 'topup', 500000, 500000, ${iso(NOW)}, ${iso(new Date(NOW.getTime() + 365 * DAY))}, 'topup 500', 'checkout:cs_1'),
               (${randomUUID()}, ${bob}, 'subscription', 1000000, 700000, ${iso(NOW)}, ${iso(new Date(NOW.getTime() + 30 * DAY))}, 'Tier D', 'invoice:in_1')`,
    sql`insert into api_keys (id, user_id, name, prefix, secret_hash, monthly_credit_limit, features, created_at)
        values (${annKey.id}, ${ann}, 'Render farm', ${annKey.prefix}, ${annKey.hash}, 100000, ${JSON.stringify(["comic"])}::jsonb, ${iso(NOW)}),
               (${bobKey.id}, ${bob}, 'CI', ${bobKey.prefix}, ${bobKey.hash}, null, null, ${iso(NOW)})`,
    sql`insert into credit_spends (id, user_id, amount, reason, idempotency_key, balance_after, takes, api_key_id, feature, people, quantity, created_at)
        values (${randomUUID()}, ${ann}, 50000, 'Comic × 1', 'gen-1', 700000, '[]'::jsonb, ${annKey.id}, 'comic', 'one', 1, ${iso(NOW)}),
               (${randomUUID()}, ${bob}, 300000, 'manual', 'm-1', 700000, '[]'::jsonb, null, null, null, null, ${iso(NOW)})`,
    sql`insert into api_key_usage (api_key_id, month, amount) values (${annKey.id}, '2026-11-01', 50000)`,
    sql`insert into usage_daily (user_id, day, feature, api_key_id, uses, credits)
        values (${ann}, '2026-11-20', 'comic', ${annKey.id}, 1, 50000), (${bob}, '2026-11-20', '', '', 1, 300000)`,
    sql`insert into subscriptions (id, user_id, provider_subscription_id, customer_id, product_id, status, current_period_start, current_period_end)
        values (${randomUUID()}, ${bob}, 'sub_1', 'cus_bob', ${tierD}, 'active', ${iso(NOW)}, ${iso(new Date(NOW.getTime() + 30 * DAY))})`,
    sql`insert into billing_customers (user_id, customer_id, name, country, vat_id)
        values (${ann}, 'cus_ann', 'Ann Ltd', 'DE', null), (${bob}, 'cus_bob', null, 'FR', 'FR12345678901')`,
  ];
  for (const statement of statements) await db.execute(statement);
  const annInvoice = randomUUID();
  await db.execute(sql`insert into invoices (id, user_id, fulfilment_key, provider, kind, status, number, series, sequence,
      issued_at, description, currency, net, tax, total, refunded, seller, buyer, created_at, updated_at)
    values (${annInvoice}, ${ann}, 'checkout:cs_1', 'local', 'topup', 'paid', 'INV-2026-000001', 'INV-2026', 1,
      ${iso(NOW)}, '500 credits', 'eur', 1000, 190, 1190, 595, '{"name":"Seller"}'::jsonb, '{"name":"Ann Ltd","country":"DE","vatId":null}'::jsonb, ${iso(NOW)}, ${iso(NOW)}),
      (${randomUUID()}, ${bob}, 'invoice:in_1', 'local', 'subscription', 'paid', 'INV-2026-000002', 'INV-2026', 2,
      ${iso(NOW)}, 'Tier D', 'eur', 5000, 0, 5000, 0, '{"name":"Seller"}'::jsonb, '{"name":null,"country":"FR","vatId":"FR12345678901"}'::jsonb, ${iso(NOW)}, ${iso(NOW)})`);
  await db.execute(sql`insert into credit_notes (id, user_id, invoice_id, number, series, sequence, issued_at, currency, net, tax, total, reference, created_at)
    values (${randomUUID()}, ${ann}, ${annInvoice}, 'CN-2026-000001', 'CN-2026', 1, ${iso(NOW)}, 'eur', 500, 95, 595, 'refund:ch_1:595', ${iso(NOW)})`);
  return { ann, bob, annKey, bobKey };
}

const BILLING_TABLES = [
  "credit_grants",
  "credit_spends",
  "usage_daily",
  "api_key_usage",
  "subscriptions",
  "invoices",
  "credit_notes",
] as const;

/** Every billing row as JSON, in a fixed order: the rows before and after must be the same. */
async function snapshot(db: Db) {
  const out: Record<string, unknown[]> = {};
  for (const table of BILLING_TABLES) {
    // Without the columns later migrations add (0023's reservations and leases): this compares what 0016 kept.
    out[table] = rowsOf<Record<string, unknown>>(
      await db.execute(sql.raw(`select * from ${table} order by 1, 2, 3`)),
    ).map(({ reserved: _reserved, lease_id: _lease, ...row }) => row);
  }
  out.api_keys = rowsOf(
    await db.execute(
      sql`select id, user_id, name, prefix, secret_hash, monthly_credit_limit, features, created_at, revoked_at from api_keys order by id`,
    ),
  );
  out.billing_customers = rowsOf(
    await db.execute(
      sql`select user_id, customer_id, name, country, vat_id from billing_customers order by user_id`,
    ),
  );
  out.sums = rowsOf(
    await db.execute(sql`select user_id, sum(remaining)::text as remaining, sum(amount)::text as granted
      from credit_grants group by user_id order by user_id`),
  );
  return JSON.parse(JSON.stringify(out)) as Record<string, unknown[]>;
}

const NO_TOKENS = { verify: async () => undefined } as unknown as AccessTokens;

async function introspectKey(db: Db, key: string) {
  return introspect(
    { db, accessTokens: NO_TOKENS, tiers: (id) => tierForProductId(id), lastUsed: { touch: () => {} } },
    key,
    NOW,
  );
}

describe.each(TEST_DATABASES)("migration 0016: organisations (%s)", (kind) => {
  const before = migrationsBefore(ORGANISATIONS);
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps every row, sum and invoice, and every key introspects as before", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const { ann, bob, annKey, bobKey } = await fillAsBefore(db.handle.db);
      const was = await snapshot(db.handle.db);

      await db.migrate(MIGRATIONS_FOLDER);
      const now = await snapshot(db.handle.db);
      expect(now).toEqual(was);

      // Each user has a personal organisation with their id, as its owner, with their alert and hold.
      const orgs = rowsOf<{
        id: string;
        personal: boolean;
        name: string | null;
        threshold: string | null;
        held: unknown;
      }>(
        await db.handle.db.execute(sql`select id, personal, name, low_balance_threshold::text as threshold,
          dispute_hold_at as held from organizations order by id`),
      );
      expect(orgs.map((o) => [o.id, o.personal, o.name])).toEqual(
        [ann, bob].sort().map((id) => [id, true, null]),
      );
      expect(orgs.find((o) => o.id === ann)?.threshold).toBe("5000");
      expect(orgs.find((o) => o.id === bob)?.held).not.toBeNull();
      const members = rowsOf<{ org_id: string; user_id: string; role: string }>(
        await db.handle.db.execute(
          sql`select org_id, user_id, role from organization_members order by org_id`,
        ),
      );
      expect(members).toEqual([ann, bob].sort().map((id) => ({ org_id: id, user_id: id, role: "owner" })));
      const creators = rowsOf<{ id: string; created_by: string; shared: boolean }>(
        await db.handle.db.execute(sql`select id, created_by, shared from api_keys`),
      );
      expect(creators).toEqual(
        expect.arrayContaining([
          { id: annKey.id, created_by: ann, shared: false },
          { id: bobKey.id, created_by: bob, shared: false },
        ]),
      );

      // The balances as the User answer reads them: 200 + 500 credits, and 700 on Tier D.
      expect((await userBilling(db.handle.db, ann, NOW)).credit_balance).toBe(700);
      expect((await userBilling(db.handle.db, bob, NOW)).credit_balance).toBe(700);

      expect(await introspectKey(db.handle.db, annKey.key)).toMatchObject({
        active: true,
        sub: ann,
        org_id: ann,
        member_id: ann,
        username: "ann",
        plan: "FREE",
        credit_balance: 700,
        monthly_credit_limit: 100,
        credits_used_this_month: 50,
        features: ["comic"],
        member_monthly_credit_cap: null,
      });
      expect(await introspectKey(db.handle.db, bobKey.key)).toMatchObject({
        active: true,
        sub: bob,
        username: "bob",
        plan: "D",
        credit_balance: 700,
      });

      // An old key spends its user's credits, counted against its limit as before.
      const spent = await spendCredits(db.handle.db, {
        userId: undefined,
        amount: 10_000,
        reason: "Comic × 1",
        idempotencyKey: "gen-2",
        requestedBy: null,
        now: NOW,
        meter: { apiKeyId: annKey.id, feature: "comic", people: "one", quantity: 1, month: "2026-11-01" },
      });
      expect(spent).toMatchObject({ ok: true, userId: ann, balanceAfter: 690_000 });
      // The same idempotency key as before the migration is still the same charge for its user.
      const repeated = await spendCredits(db.handle.db, {
        userId: undefined,
        amount: 50_000,
        reason: "Comic × 1",
        idempotencyKey: "gen-1",
        requestedBy: null,
        now: NOW,
        meter: { apiKeyId: annKey.id, feature: "comic", people: "one", quantity: 1, month: "2026-11-01" },
      });
      expect(repeated).toMatchObject({ ok: true, repeated: true });

      // A user an instance of the previous version registers during the deploy gets a personal
      // organisation from the database, and a key it makes (no creator) works as that user's.
      const cleo = randomUUID();
      const cleoKey = generateKey("api");
      await db.handle.db.execute(sql`insert into users (id, username, email, password_hash, email_verified)
        values (${cleo}, 'cleo', 'cleo@example.com', 'h', true)`);
      await db.handle.db.execute(sql`insert into api_keys (id, user_id, name, prefix, secret_hash, created_at)
        values (${cleoKey.id}, ${cleo}, 'old', ${cleoKey.prefix}, ${cleoKey.hash}, ${iso(NOW)})`);
      expect(await introspectKey(db.handle.db, cleoKey.key)).toMatchObject({
        active: true,
        sub: cleo,
        member_id: cleo,
        credit_balance: 0,
      });
      // Deleting a user takes their personal organisation and its rows along, as before.
      await db.handle.db.execute(sql`delete from users where id = ${cleo}`);
      expect(
        rowsOf(await db.handle.db.execute(sql`select id from organizations where id = ${cleo}`)),
      ).toEqual([]);
    } finally {
      await db.close();
    }
  }, 180_000);
});
