import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase, rowsOf, TEST_DATABASES, type TestDatabase } from "../../tests/fixtures/test-db.ts";
import { twoTripTransaction } from "./two-trip-transaction.ts";

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
      reads: (q) =>
        [
          q.execute(sql`select now()::text as at, txid_current() as tx`),
          q.execute(sql`select pg_sleep(0.02)`),
          q.execute(sql`select now()::text as at, txid_current() as tx`),
        ] as const,
      decide: (q, [first, , last]) => ({
        result: [rowsOf<{ at: string; tx: string }>(first)[0], rowsOf<{ at: string; tx: string }>(last)[0]],
        writes: [
          q.execute(sql`insert into two_trip_probe values (1)`),
          q.execute(sql`insert into two_trip_probe values (2)`),
        ],
      }),
    });
    expect(result[0]).toEqual(result[1]);
    expect(await count()).toBe(2);
  });

  it("keeps none of the writes when one of them fails", async () => {
    await database.db.execute(sql`insert into two_trip_probe values (2)`);
    const attempt = twoTripTransaction(database.db, {
      reads: (q) => [q.execute(sql`select 1`)] as const,
      decide: (q) => ({
        result: "written",
        writes: [
          q.execute(sql`insert into two_trip_probe values (1)`),
          q.execute(sql`insert into two_trip_probe values (2)`),
          q.execute(sql`insert into two_trip_probe values (3)`),
        ],
      }),
    });
    await expect(attempt).rejects.toThrow();
    expect(await count()).toBe(1);
  });

  it("writes nothing and leaves the connection usable when a read or the decision fails", async () => {
    await expect(
      twoTripTransaction(database.db, {
        reads: (q) => [q.execute(sql`select 1 / 0`)] as const,
        decide: (q) => ({ result: 0, writes: [q.execute(sql`insert into two_trip_probe values (1)`)] }),
      }),
    ).rejects.toThrow();
    await expect(
      twoTripTransaction(database.db, {
        reads: (q) => [q.execute(sql`insert into two_trip_probe values (5)`)] as const,
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
          reads: (q) => [q.execute(sql`select 1`)] as const,
          decide: (q) => ({
            result: i,
            writes: [q.execute(sql`insert into two_trip_probe values (${100 + i})`)],
          }),
        }),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(await count()).toBe(12);
  });
});
