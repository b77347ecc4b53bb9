// The metering batch's reads are prepared once per connection, and PostgreSQL may keep the generic
// plan it makes the first time, while the tables are still empty. Asked for that plan on empty
// tables, every read must look its rows up by key: no sequential scan, and the earlier-spends lookup
// in the unique index that begins with the idempotency key (decision 012). PostgreSQL only: PGlite
// runs the batch as an ordinary transaction, planned afresh each time. And the batch's transaction
// runs every read on that generic plan, whatever the first batches on the connection asked
// (decision 041).
import { randomUUID } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, TEST_DATABASES, type TestDatabase } from "../../tests/fixtures/test-db.ts";
import { statementSql, TRANSACTION_BEGIN } from "../db/two-trip-transaction.ts";
import { batchReads } from "./spends.ts";

const onPostgres = TEST_DATABASES.includes("postgres");

describe.runIf(onPostgres)("the metering batch's generic plans on empty tables (postgres)", () => {
  let database: TestDatabase;
  let sql: postgres.Sql;
  beforeAll(async () => {
    database = await openTestDatabase("postgres");
    sql = (database.db as unknown as { $client: postgres.Sql }).$client;
  });
  afterAll(() => database?.close());

  const now = new Date("2026-11-25T12:00:00Z");
  const reads = batchReads([
    {
      userId: randomUUID(),
      amount: 1000,
      reason: "test",
      idempotencyKey: "a",
      requestedBy: null,
      now,
    },
    {
      userId: undefined,
      amount: 1000,
      reason: "test",
      idempotencyKey: "b",
      requestedBy: null,
      now,
      meter: { apiKeyId: "abcdefghijkl", feature: "comic", people: "one", quantity: 1, month: "2026-11-01" },
    },
  ]);

  /** The plan PostgreSQL keeps for a statement prepared now, as the batch's transaction runs it. */
  async function genericPlan(text: string, values: unknown[]): Promise<string> {
    return sql.begin(async (tx) => {
      await tx.unsafe("set local enable_seqscan = off");
      await tx.unsafe("set local plan_cache_mode = force_generic_plan");
      await tx.unsafe(`prepare batch_read as ${text}`);
      const args = values.map((v) =>
        Array.isArray(v) ? `'{${v.map((x) => `"${x}"`).join(",")}}'` : `'${v}'`,
      );
      const rows = await tx.unsafe(`explain execute batch_read(${args.join(", ")})`);
      await tx.unsafe("deallocate batch_read");
      return rows.map((r) => r["QUERY PLAN"] as string).join("\n");
    });
  }

  it("reads nothing by sequential scan", async () => {
    for (const bound of reads) {
      const { text, values } = statementSql(bound);
      const plan = await genericPlan(text, values);
      expect(plan, `${bound.definition.name}:\n${plan}`).not.toMatch(/Seq Scan/);
    }
  });

  it("finds earlier spends in the unique index on (idempotency key, user)", async () => {
    const earlier = reads.find((r) => r.definition.name === "earlier_spends");
    if (!earlier) throw new Error("no earlier_spends read");
    const { text, values } = statementSql(earlier);
    const plan = await genericPlan(text, values);
    expect(plan).toContain("credit_spends_idempotency_key_user");
    expect(plan).not.toContain("credit_spends_user_created_idx");
  });

  it("runs every read on its generic plan, whatever the first batches asked", async () => {
    const request = (i: number) => ({
      userId: undefined as string | undefined,
      amount: 1000,
      reason: "test",
      idempotencyKey: `plans-${i}`,
      requestedBy: null,
      now,
    });
    // Charges by user id first (a staff charge, usage:simulate), then charges by key: without
    // the transaction's plan mode, PostgreSQL keeps planning three of the reads for every batch.
    const byUser = batchReads(Array.from({ length: 5 }, (_, i) => ({ ...request(i), userId: randomUUID() })));
    const byKey = batchReads(
      Array.from({ length: 20 }, (_, i) => ({
        ...request(100 + i),
        meter: {
          apiKeyId: `plankey${String(i).padStart(5, "0")}`,
          feature: "comic" as const,
          people: "one" as const,
          quantity: 1,
          month: "2026-11-01",
        },
      })),
    );
    const connection = await sql.reserve();
    try {
      const batch = async (reads: typeof byUser) => {
        await connection.unsafe(TRANSACTION_BEGIN.join("; "));
        for (const bound of reads) {
          const { text, values } = statementSql(bound);
          await connection.unsafe(text, values as never[], { prepare: true });
        }
        await connection.unsafe("commit");
      };
      for (let i = 0; i < 6; i++) await batch(byUser);
      for (let i = 0; i < 10; i++) await batch(byKey);
      const texts = byKey.map((bound) => statementSql(bound).text);
      const plans = await connection.unsafe<{ statement: string; generic: number; custom: number }[]>(
        "select statement, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements",
      );
      const ours = plans.filter((p) => texts.includes(p.statement));
      expect(ours).toHaveLength(byKey.length);
      for (const plan of ours) {
        expect({ generic: plan.generic, custom: plan.custom }, plan.statement).toEqual({
          generic: 16,
          custom: 0,
        });
      }
    } finally {
      connection.release();
    }
  });
});
