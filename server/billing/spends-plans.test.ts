// The metering batch's statements are prepared once per connection, and its transaction makes
// PostgreSQL run each on its generic plan from the first execution (decision 041): one plan per
// connection, made while the tables may still be empty. Asked for that plan on empty tables, every
// read and the write must look their rows up by key: no sequential scan, no index read whole, and
// the earlier-spends lookup in the unique index that begins with the idempotency key (decision
// 012). PostgreSQL only: PGlite runs the batch as an ordinary transaction, planned afresh each time.
import { randomUUID } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, TEST_DATABASES, type TestDatabase } from "../../tests/fixtures/test-db.ts";
import { openPostgres } from "../db/client.ts";
import { statementSql, TRANSACTION_BEGIN } from "../db/two-trip-transaction.ts";
import { batchReads, spendBatch } from "./spends.ts";

/** A node of `explain (format json)`'s plan tree. */
interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan whose scan reads a table or an index whole, by its description. */
function wholeReads(node: PlanNode): string[] {
  const type = node["Node Type"];
  const reads =
    type === "Seq Scan" || (type.includes("Index") && type.endsWith("Scan") && !node["Index Cond"])
      ? [`${type}${node["Index Name"] ? ` on ${node["Index Name"]}` : ""}`]
      : [];
  return [...reads, ...(node.Plans ?? []).flatMap(wholeReads)];
}

/** The index names a plan uses. */
function indexesOf(node: PlanNode): string[] {
  return [...(node["Index Name"] ? [node["Index Name"]] : []), ...(node.Plans ?? []).flatMap(indexesOf)];
}

/** The plan tree of `explain (format json) execute …`. */
function planOf(rows: Record<string, unknown>[]): PlanNode {
  const [explained] = (rows[0]?.["QUERY PLAN"] ?? []) as { Plan: PlanNode }[];
  if (!explained) throw new Error(`No plan in ${JSON.stringify(rows)}`);
  return explained.Plan;
}

/** What the batch's transaction sets, without its BEGIN: `begin()` sends one. */
const BATCH_SETTINGS = TRANSACTION_BEGIN.join("; ").replace(/^begin; /, "");

/**
 * The plan `client` keeps for `execute` (an EXECUTE of a prepared statement) under the batch's
 * settings; with `prepare`, the statement is prepared first and deallocated after, in the same
 * transaction.
 */
async function batchPlan(client: postgres.Sql, execute: string, prepare?: string): Promise<PlanNode> {
  return client.begin(async (tx) => {
    await tx.unsafe(BATCH_SETTINGS);
    if (prepare) await tx.unsafe(prepare);
    const rows = await tx.unsafe(`explain (format json) ${execute}`);
    if (prepare) await tx.unsafe("deallocate batch_read");
    return planOf(rows);
  });
}

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
  function genericPlan(text: string, values: unknown[]): Promise<PlanNode> {
    const args = values.map((v) => (Array.isArray(v) ? `'{${v.map((x) => `"${x}"`).join(",")}}'` : `'${v}'`));
    return batchPlan(sql, `execute batch_read(${args.join(", ")})`, `prepare batch_read as ${text}`);
  }

  it("reads nothing whole: every scan looks its rows up by key", async () => {
    for (const bound of reads) {
      const { text, values } = statementSql(bound);
      const plan = await genericPlan(text, values);
      expect(wholeReads(plan), bound.definition.name).toEqual([]);
    }
  });

  it("finds earlier spends in the unique index on (idempotency key, user)", async () => {
    const earlier = reads.find((r) => r.definition.name === "earlier_spends");
    if (!earlier) throw new Error("no earlier_spends read");
    const { text, values } = statementSql(earlier);
    const indexes = indexesOf(await genericPlan(text, values));
    expect(indexes).toContain("credit_spends_idempotency_key_user");
    expect(indexes).not.toContain("credit_spends_user_created_idx");
  });

  it("writes a batch's grants by key too", async () => {
    // The write's text is the batch's own: made by a real spend on a pool of one connection,
    // then explained there as prepared.
    const pool = openPostgres(database.url as string, 1);
    try {
      const client = (pool.db as unknown as { $client: postgres.Sql }).$client;
      const userId = randomUUID();
      await client`insert into users (id, username, email, password_hash)
                   values (${userId}, ${`plans-${userId.slice(0, 8)}`}, ${`${userId}@example.com`}, 'x')`;
      await client`insert into credit_grants (id, user_id, kind, amount, remaining, granted_at, source, fulfilment_key)
                   values (gen_random_uuid(), ${userId}, 'topup', 100000, 100000, '2026-11-01T00:00:00Z', 'test', ${`plans:${userId}`})`;
      const [spent] = await spendBatch(pool.db, [
        { userId, amount: 1000, reason: "test", idempotencyKey: "plans-write", requestedBy: null, now },
      ]);
      expect(spent).toMatchObject({ ok: true, balanceAfter: 99_000 });
      const [write] = await client<{ name: string }[]>`
        select name from pg_prepared_statements where statement like 'with taken_from_grants%'`;
      if (!write) throw new Error("the batch's write was not prepared");
      // Quoted: postgres.js names statements with random base-36 text, which may begin with a digit.
      const plan = await batchPlan(
        client,
        `execute "${write.name}"('{}', '{}', '[]', '[]', '[]', '[]', '{}', '{}')`,
      );
      expect(wholeReads(plan)).toEqual([]);
      expect(indexesOf(plan)).toContain("credit_grants_pkey");
    } finally {
      await pool.close();
    }
  });

  it("runs every read on its generic plan from the first execution, whatever the batches ask", async () => {
    const request = (i: number) => ({
      userId: undefined as string | undefined,
      amount: 1000,
      reason: "test",
      idempotencyKey: `plans-${i}`,
      requestedBy: null,
      now,
    });
    // Charges by user id first (a staff charge, usage:simulate), then charges by key. Without the
    // transaction's plan mode, PostgreSQL plans at least each read's first five executions for
    // their values, and may go on doing so for as long as the generic plan looks dearer.
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
      // A statement that failed partway leaves its transaction open: ended before the pool gets it back.
      await connection.unsafe("rollback").catch(() => {});
      connection.release();
    }
  });
});
