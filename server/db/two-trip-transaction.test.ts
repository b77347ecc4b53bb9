import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase, rowsOf, TEST_DATABASES, type TestDatabase } from "../../tests/fixtures/test-db.ts";
import { connectionLost } from "./lost-connection.ts";
import { apiKeys, organizations, users } from "./schema/index.ts";
import {
  commitFailure,
  connectionsOf,
  statement,
  TRANSACTION_BEGIN,
  twoTripTransaction,
} from "./two-trip-transaction.ts";

const raw = (text: string) => statement(text, (q) => q.execute(sql.raw(text)));
const now = raw("select now()::text as at, txid_current()::text as tx");
const sleep = raw("select pg_sleep(0.02)");
const failingRead = raw("select 1 / 0");
const probeInsert = statement("probe_insert", (q, p) =>
  q.execute(sql`insert into two_trip_probe values (${p("n")}::int)`),
);
const keysOf = statement("keys_of", (q, p) =>
  q
    .select({
      id: apiKeys.id,
      shared: apiKeys.shared,
      monthlyCreditLimit: apiKeys.monthlyCreditLimit,
      features: apiKeys.features,
      createdAt: apiKeys.createdAt,
      expiresAt: apiKeys.expiresAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.userId, p("orgId")))
    .orderBy(apiKeys.id),
);

const userById = statement("user_by_id", (q, p) =>
  q
    .select({ id: users.id, createdAt: users.createdAt, credits: users.lowBalanceThreshold })
    .from(users)
    .where(eq(users.id, p("id"))),
);

describe.each(TEST_DATABASES)("twoTripTransaction (%s)", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
    await database.db.execute(sql`create table if not exists two_trip_probe (n integer primary key)`);
  });
  beforeEach(() => database.db.execute(sql`delete from two_trip_probe`));
  afterAll(async () => {
    await database.db.execute(sql`drop table if exists two_trip_probe`);
    await database.close();
  });

  const count = async () =>
    rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from two_trip_probe`))[0]
      ?.n;

  it("runs the reads inside the transaction, after BEGIN and in their order, and commits the writes", async () => {
    const result = await twoTripTransaction(database.db, {
      // now() is the transaction's start: equal in every statement only if all ran after BEGIN.
      reads: [now(), sleep(), now()] as const,
      decide: ([first, , last]) => ({
        result: [rowsOf<{ at: string; tx: string }>(first)[0], rowsOf<{ at: string; tx: string }>(last)[0]],
        writes: [probeInsert({ n: 1 }), probeInsert({ n: 2 })],
      }),
    });
    expect(result[0]?.tx).toMatch(/^\d+$/);
    expect(result[0]).toEqual(result[1]);
    expect(await count()).toBe(2);
  });

  it("answers a select's rows as Drizzle maps them, each statement with its own values", async () => {
    const [user] = await database.db
      .insert(users)
      .values({
        id: randomUUID(),
        email: `two-trip-${kind}@example.com`,
        username: `two_trip_${kind}`,
        passwordHash: "x",
        lowBalanceThreshold: 12_345,
      })
      .returning({ id: users.id, createdAt: users.createdAt });
    if (!user) throw new Error("no user");
    const answers = await twoTripTransaction(database.db, {
      reads: [userById({ id: user.id }), userById({ id: "00000000-0000-4000-8000-000000000000" })] as const,
      decide: (found) => ({ result: found, writes: [] }),
    });
    expect(answers).toEqual([[{ id: user.id, createdAt: user.createdAt, credits: 12_345 }], []]);
    expect(answers[0][0]?.createdAt).toBeInstanceOf(Date);
  });

  it("decodes every kind of column the batches read: jsonb, bigint, timestamps, booleans and nulls", async () => {
    const id = randomUUID();
    await database.db.insert(organizations).values({ id, name: `decode ${kind}` });
    const createdAt = new Date("2026-11-29T22:00:00.123Z");
    await database.db.insert(apiKeys).values([
      {
        id: `decode_a_${kind}`,
        userId: id,
        shared: true,
        name: "a",
        prefix: "gpk_a",
        secretHash: "x",
        monthlyCreditLimit: 9_007_199_254_740,
        features: ["comic", "cloth-swap"],
        createdAt,
        expiresAt: createdAt,
      },
      { id: `decode_b_${kind}`, userId: id, name: "b", prefix: "gpk_b", secretHash: "y", createdAt },
    ]);
    const [rows] = await twoTripTransaction(database.db, {
      reads: [keysOf({ orgId: id })] as const,
      decide: (found) => ({ result: found, writes: [] }),
    });
    expect(rows).toEqual([
      {
        id: `decode_a_${kind}`,
        shared: true,
        monthlyCreditLimit: 9_007_199_254_740,
        features: ["comic", "cloth-swap"],
        createdAt,
        expiresAt: createdAt,
      },
      {
        id: `decode_b_${kind}`,
        shared: false,
        monthlyCreditLimit: null,
        features: null,
        createdAt,
        expiresAt: null,
      },
    ]);
    expect(rows[0]?.createdAt).toBeInstanceOf(Date);
    expect(typeof rows[0]?.monthlyCreditLimit).toBe("number");
  });

  it("keeps none of the writes when one of them fails", async () => {
    await database.db.execute(sql`insert into two_trip_probe values (2)`);
    const attempt = twoTripTransaction(database.db, {
      reads: [now()] as const,
      decide: () => ({
        result: "written",
        writes: [probeInsert({ n: 1 }), probeInsert({ n: 2 }), probeInsert({ n: 3 })],
      }),
    });
    await expect(attempt).rejects.toThrow();
    expect(await count()).toBe(1);
  });

  it("refuses a statement whose value is missing, and writes nothing", async () => {
    await expect(
      twoTripTransaction(database.db, {
        reads: [now()] as const,
        decide: () => ({ result: 0, writes: [probeInsert({ n: 7 }), probeInsert({})] }),
      }),
    ).rejects.toThrow(/placeholder|no value/i);
    expect(await count()).toBe(0);
  });

  it("refuses a statement with an undefined value before sending it, and writes nothing", async () => {
    await expect(
      twoTripTransaction(database.db, {
        reads: [now()] as const,
        decide: () => ({ result: 0, writes: [probeInsert({ n: 7 }), probeInsert({ n: undefined })] }),
      }),
    ).rejects.toThrow(kind === "pglite" ? /./ : "Statement probe_insert: a value is undefined");
    expect(await count()).toBe(0);
  });

  it("writes nothing and leaves the connection usable when a read or the decision fails", async () => {
    await expect(
      twoTripTransaction(database.db, {
        reads: [failingRead()] as const,
        decide: () => ({ result: 0, writes: [probeInsert({ n: 1 })] }),
      }),
    ).rejects.toThrow();
    await expect(
      twoTripTransaction(database.db, {
        reads: [probeInsert({ n: 5 })] as const,
        decide: () => {
          throw new Error("refused");
        },
      }),
    ).rejects.toThrow("refused");
    expect(await count()).toBe(0);
    // Every pooled connection still works (none was left inside a failed transaction).
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        twoTripTransaction(database.db, {
          reads: [now()] as const,
          decide: () => ({ result: i, writes: [probeInsert({ n: 100 + i })] }),
        }),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(await count()).toBe(12);
  });

  // PGlite has no pinned connections (connectionsOf is undefined there): these are PostgreSQL's.
  const pin = () => connectionsOf(database.db);

  it("counts writes as kept only when COMMIT says so, though postgres.js tried a write again", async () => {
    const connect = pin();
    if (!connect) return expect(kind).toBe("pglite");
    const connection = await connect();
    try {
      // The insert is prepared on this connection, then the server forgets it inside a transaction:
      // the insert fails, COMMIT answers ROLLBACK, and postgres.js sends the insert again after it.
      const prepared = await Promise.allSettled(
        connection.send([...TRANSACTION_BEGIN, probeInsert({ n: 1 }), "commit"]),
      );
      expect(commitFailure(prepared)).toBeUndefined();
      const outcomes = await Promise.allSettled(
        connection.send([...TRANSACTION_BEGIN, "deallocate all", probeInsert({ n: 2 }), "commit"]),
      );
      expect(outcomes.every((o) => o.status === "fulfilled")).toBe(true);
      expect(commitFailure(outcomes)?.error).toMatchObject({
        message: "The transaction was not committed: COMMIT answered ROLLBACK",
        // The insert's second try may have been kept outside the transaction (outcomeUnknown).
        code: "COMMIT_NOT_KEPT",
      });
      const committed = await Promise.allSettled(
        connection.send([...TRANSACTION_BEGIN, probeInsert({ n: 3 }), "commit"]),
      );
      expect(commitFailure(committed)).toBeUndefined();
    } finally {
      connection.release();
    }
  });

  it("sends nothing more on a connection that is gone and does not hand it back", async () => {
    const connect = pin();
    if (!connect) return expect(kind).toBe("pglite");
    const connection = await connect();
    const outcomes = await Promise.allSettled(
      connection.send([...TRANSACTION_BEGIN, "select pg_terminate_backend(pg_backend_pid())"]),
    );
    const ended = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(connectionLost(ended?.reason)).toBe(true);
    // Nothing more goes out on it: a statement would wait for ever, or reach another's connection.
    expect(() => connection.send(["select 1"])).toThrow("The pinned connection is gone");
    // Sent on the dead connection, a ROLLBACK would fail inside the driver, where nothing catches it.
    await connection.rollBack();
    connection.release();
    // The pool goes on: every connection it hands out works.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        twoTripTransaction(database.db, {
          reads: [now()] as const,
          decide: () => ({ result: i, writes: [probeInsert({ n: 200 + i })] }),
        }),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it("gives up waiting for a lock after 5 s: a stuck batch would stop all of metering", async () => {
    const connect = pin();
    if (!connect) return expect(kind).toBe("pglite");
    await database.db.execute(sql`insert into two_trip_probe values (1)`);
    const holder = await connect();
    try {
      const held = holder.send([...TRANSACTION_BEGIN, raw("select n from two_trip_probe for update")()]);
      await Promise.all(held);
      const started = Date.now();
      const waited = twoTripTransaction(database.db, {
        reads: [raw("select n from two_trip_probe where n = 1 for update")()] as const,
        decide: () => ({ result: 0, writes: [] }),
      });
      await expect(waited).rejects.toMatchObject({ code: "55P03" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    } finally {
      await holder.rollBack();
      holder.release();
    }
  }, 15_000);

  it("settles every statement sent when the connection goes, those postgres.js still held back too", async () => {
    const connect = pin();
    if (!connect) return expect(kind).toBe("pglite");
    // A statement new to the connection is described before it runs, and postgres.js holds back
    // what is sent behind it on a pinned connection until then; the connection ends meanwhile.
    const kill = statement("kill", (q, p) =>
      q.execute(
        sql`select pg_terminate_backend(pg_backend_pid()) /* ${sql.raw(randomUUID())} */ where ${p("go")}::int = 1`,
      ),
    );
    const connection = await connect();
    const outcomes = await Promise.allSettled(
      connection.send([...TRANSACTION_BEGIN, kill({ go: 1 }), probeInsert({ n: 1 }), "commit"]),
    );
    expect(outcomes.slice(1).map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    for (const o of outcomes.slice(1)) expect(connectionLost((o as PromiseRejectedResult).reason)).toBe(true);
    connection.release();
  });

  it("takes a connection that stays silent for gone, and hands it back once it has answered after all", async () => {
    const connect = connectionsOf(database.db, 300);
    if (!connect) return expect(kind).toBe("pglite");
    // A lock held elsewhere keeps the pinned statement from answering, as a silent connection would.
    const holder = await connect();
    await Promise.all(holder.send([...TRANSACTION_BEGIN, "select pg_advisory_xact_lock(35037)"]));
    const connection = await connect();
    const [pid] = await Promise.all(connection.send(["select pg_backend_pid() as pid"]));
    const outcomes = await Promise.allSettled(
      connection.send([...TRANSACTION_BEGIN, "select pg_advisory_xact_lock(35037)"]),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: "NO_ANSWER" });
    expect(() => connection.send(["select 1"])).toThrow("The pinned connection is gone");
    await connection.rollBack();
    connection.release();
    // The lock is let go: the statement answers after all, and the connection is rolled back (not
    // left inside its transaction) and handed back, so the pool (5 connections) can pin all of them.
    await holder.rollBack();
    holder.release();
    const backend = (pid as { pid: number }[])[0]?.pid;
    await expect
      .poll(
        async () => {
          const [row] = rowsOf<{ state: string }>(
            await database.db.execute(sql`select state from pg_stat_activity where pid = ${backend}`),
          );
          return row?.state;
        },
        { timeout: 5000, interval: 100 },
      )
      .toBe("idle");
    const pinned = await Promise.all(Array.from({ length: 5 }, () => connect()));
    for (const p of pinned) p.release();
  });

  it("fails, having sent nothing, when no connection of the pool is free within the deadline", async () => {
    const connect = connectionsOf(database.db, undefined, 300);
    if (!connect) return expect(kind).toBe("pglite");
    // Every connection of the pool (5) pinned elsewhere, as by hung statements.
    const held = await Promise.all(Array.from({ length: 5 }, () => connect()));
    const started = performance.now();
    await expect(connect()).rejects.toMatchObject({ code: "NO_CONNECTION" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    // The connection that frees up goes to the reservation given up on, which hands it straight
    // back: kept, it would leave the pool one short for good, and this pinning would fail too.
    held.pop()?.release();
    const again = await connect();
    const [answer] = await Promise.all(again.send(["select 1 as one"]));
    expect(answer).toEqual([{ one: 1 }]);
    again.release();
    for (const h of held) h.release();
  });
});
