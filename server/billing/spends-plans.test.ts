// The metering batch's reads are prepared once per connection, and PostgreSQL may keep the generic
// plan it makes the first time, while the tables are still empty. Asked for that plan on empty
// tables, every read must look its rows up by key: no sequential scan, and the earlier-spends lookup
// in the unique index that begins with the idempotency key (decision 012). PostgreSQL only: PGlite
// runs the batch as an ordinary transaction, planned afresh each time.
import { randomUUID } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, TEST_DATABASES, type TestDatabase } from "../../tests/fixtures/test-db.ts";
import { statementSql } from "../db/two-trip-transaction.ts";
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
});
