// A transaction that reads, decides in memory, and writes, in two round trips to PostgreSQL: the
// BEGIN goes out with the reads, and the COMMIT with the writes. Drizzle's transaction waits for
// the answer to BEGIN and to each batch of statements before the next, which made a batch of
// metered charges five round trips (decision 012). On one connection PostgreSQL runs statements in
// the order they arrive, so sending them together changes nothing of what each one sees.
// On PGlite (in process: no round trips) this is an ordinary Drizzle transaction.
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { PostgresJsDatabase, PostgresJsSession } from "drizzle-orm/postgres-js";
import type { Sql } from "postgres";
import type { Db } from "./types.ts";

/** The query builder the steps get: the same calls on PostgreSQL's pinned connection and in PGlite's transaction. */
export type Queries = Pick<Db, "select" | "insert" | "update" | "execute">;

/**
 * Statements not yet started: Drizzle's queries run when first awaited, so `q.select()...` is one.
 * An already running promise would break the order the statements are sent in.
 */
type Statements = readonly PromiseLike<unknown>[];
export type Answers<T extends Statements> = { -readonly [K in keyof T]: Awaited<T[K]> };

export interface TwoTripSteps<T extends Statements, R> {
  /** The reads, sent right after BEGIN, in this order. */
  reads(q: Queries): T;
  /** What to answer and which writes to commit, from what the reads answered (in their order). */
  decide(q: Queries, answers: Answers<T>): { result: R; writes: Statements };
}

const DIALECT = new PgDialect();

/**
 * Starts the statements in order: each `then` is called from a job of its own, and the jobs run in
 * the order they were queued, so each statement reaches the connection's queue in that order.
 */
const sendInOrder = (statements: Statements) => statements.map((s) => Promise.resolve(s));

export async function twoTripTransaction<T extends Statements, R>(
  db: Db,
  steps: TwoTripSteps<T, R>,
): Promise<R> {
  if (!(db instanceof PostgresJsDatabase)) {
    return db.transaction(async (tx) => {
      const answers = (await Promise.all(steps.reads(tx))) as Answers<T>;
      const { result, writes } = steps.decide(tx, answers);
      await Promise.all(writes);
      return result;
    });
  }
  const connection = await (db as unknown as { $client: Sql }).$client.reserve();
  try {
    // A Drizzle database over the pinned connection. No schema: the steps use the query builder only.
    // Values are parsed as the pool's drizzle() set up, as the connection shares the pool's options.
    // Every statement is a prepared one: Drizzle runs a query it did not prepare by name with
    // postgres.js's `prepare: false`, and postgres.js then asks the server for the parameter types
    // first, a round trip of its own that holds back every statement queued behind it. Prepared,
    // the types are asked once per connection and statement text, and the statements go out together.
    const pinned = {
      unsafe: (query: string, params: unknown[], options?: object) =>
        connection.unsafe(query, params as never[], { ...options, prepare: true }),
    } as unknown as Sql;
    const q = new PostgresJsDatabase(
      DIALECT,
      new PostgresJsSession(pinned, DIALECT, undefined),
      undefined,
    ) as unknown as Queries;
    const [begun, ...reads] = sendInOrder([q.execute(sql`begin`), ...steps.reads(q)]);
    const readsDone = await Promise.allSettled([begun, ...reads]);
    const readFailure = readsDone.find((o) => o.status === "rejected");
    if (readFailure) {
      await rollBack(q);
      throw readFailure.reason;
    }
    const answers = readsDone.slice(1).map((o) => (o as PromiseFulfilledResult<unknown>).value) as Answers<T>;
    let planned: { result: R; writes: Statements };
    try {
      planned = steps.decide(q, answers);
    } catch (error) {
      await rollBack(q);
      throw error;
    }
    // If a write fails, PostgreSQL aborts the transaction and turns this COMMIT into a ROLLBACK,
    // so either every write is kept or none is.
    const outcomes = await Promise.allSettled(sendInOrder([...planned.writes, q.execute(sql`commit`)]));
    const failed = outcomes.find((o) => o.status === "rejected");
    if (failed) throw failed.reason;
    return planned.result;
  } finally {
    connection.release();
  }
}

/** Ends the open transaction; if even that fails, the connection is gone and the caller's error says why. */
async function rollBack(q: Queries): Promise<void> {
  try {
    await q.execute(sql`rollback`);
  } catch {
    // Nothing to add to the error being thrown.
  }
}
