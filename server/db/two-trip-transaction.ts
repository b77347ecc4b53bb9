// A transaction that reads, decides in memory, and writes, in two round trips to PostgreSQL: the
// BEGIN goes out with the reads, and the COMMIT with the writes. Drizzle's transaction waits for
// the answer to BEGIN and to each batch of statements before the next, which made a batch of
// metered charges five round trips (decision 012). On one connection PostgreSQL runs statements in
// the order they arrive, so sending them together changes nothing of what each one sees.
//
// The statements are written once, with Drizzle's query builder and named parameters
// (`statement("name", (q, p) => q.select()...where(eq(t.id, p("id"))))`), and their SQL text is built once
// per process: Drizzle builds a query's SQL on every call, and for a batch's ten statements that
// was a sixth of the metering route's CPU time. On PostgreSQL each text is then a prepared
// statement of the connection, sent straight to postgres.js in the order given. On PGlite (in
// process: no round trips, no cost worth saving) each statement is built with its values and run in
// an ordinary Drizzle transaction.
import { Column, fillPlaceholders, is, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { PostgresJsDatabase, PostgresJsSession } from "drizzle-orm/postgres-js";
import type { ReservedSql, Sql } from "postgres";
import {
  ANSWER_DEADLINE_MS,
  answeredAfterAll,
  COMMIT_NOT_KEPT,
  RESERVE_DEADLINE_MS,
  reservedWithin,
  watchedConnection,
} from "./lost-connection.ts";
import type { Db } from "./types.ts";

/** The query builder a statement is written with: the same calls on PostgreSQL and in PGlite's transaction. */
export type Queries = Pick<Db, "select" | "insert" | "update" | "execute">;

/** A named parameter of a statement: a placeholder in the text built once, the value itself on PGlite. */
export type Param = (name: string) => SQLWrapper;

type Built<R> = PromiseLike<R> & SQLWrapper;

/** A statement and its parameters' values, ready to run in a two-trip transaction. */
export interface Bound<R> {
  readonly definition: Definition<R>;
  readonly values: Readonly<Record<string, unknown>>;
  /** Never set: carries the answer's type. */
  readonly answer?: R;
}

interface Definition<R> {
  readonly build: (q: Queries, p: Param) => Built<R>;
  /** What errors and tests call the statement. */
  readonly name: string;
}

/**
 * A statement of a two-trip transaction, written once: `build` gets the query builder and `p`, and
 * must take every value that varies from `p(name)`. Selects answer their rows as Drizzle maps them;
 * other statements' answers are not used. Call the result with the values to bind them.
 */
export function statement<R>(
  name: string,
  build: (q: Queries, p: Param) => Built<R>,
): (values?: Record<string, unknown>) => Bound<R> {
  const definition: Definition<R> = { name, build };
  return (values = {}) => ({ definition, values });
}

type Bounds = readonly Bound<unknown>[];
export type Answers<T extends Bounds> = { -readonly [K in keyof T]: T[K] extends Bound<infer R> ? R : never };

export interface TwoTripSteps<T extends Bounds, R> {
  /** The reads, sent right after BEGIN, in this order. */
  reads: T;
  /** What to answer and which writes to commit, from what the reads answered (in their order). */
  decide(answers: Answers<T>): { result: R; writes: Bounds };
}

const DIALECT = new PgDialect();

/** Builds statements' SQL and never runs anything: its client is never called. */
const BUILDER = new PostgresJsDatabase(
  DIALECT,
  new PostgresJsSession({} as Sql, DIALECT, undefined),
  undefined,
) as unknown as Queries;

/**
 * How a select's rows (arrays of the driver's values, in the selection's order) become records: the
 * key of each value, and the column that decodes it, undefined where decoding changes nothing (text,
 * uuid, boolean: the driver's value as it is). Skipping those calls, and the per-row closure of a
 * forEach, cost a charge's batch reads about a third of their decoding (issue 35).
 */
interface Decoder {
  keys: readonly string[];
  decoders: readonly (Column | undefined)[];
}

interface Compiled {
  text: string;
  params: unknown[];
  /** For a select: how its answer is decoded. */
  columns: Decoder | undefined;
}

const IDENTITY = Column.prototype.mapFromDriverValue;

function decoderOf(columns: readonly (readonly [string, Column])[]): Decoder {
  return {
    keys: columns.map(([key]) => key),
    decoders: columns.map(([, column]) => (column.mapFromDriverValue === IDENTITY ? undefined : column)),
  };
}

const compiled = new WeakMap<Definition<unknown>, Compiled>();

function compile(definition: Definition<unknown>): Compiled {
  const known = compiled.get(definition);
  if (known) return known;
  const query = definition.build(BUILDER, (name) => sql.placeholder(name));
  const { sql: text, params } = DIALECT.sqlToQuery(query.getSQL() as SQL);
  const selected = (query as { _?: { selectedFields?: Record<string, unknown> } })._?.selectedFields;
  const columns = selected ? Object.entries(selected) : undefined;
  for (const [key, field] of columns ?? []) {
    // A flat selection of columns is all the batches need, and all this decoding knows.
    if (!is(field, Column)) throw new Error(`Statement ${definition.name}: ${key} is not a column`);
  }
  const result = {
    text,
    params,
    columns: columns ? decoderOf(columns as (readonly [string, Column])[]) : undefined,
  };
  compiled.set(definition, result);
  return result;
}

/** A bound statement's SQL text and values as PostgreSQL gets them (for EXPLAIN in tests). */
export function statementSql(bound: Bound<unknown>): { text: string; values: unknown[] } {
  const { text, params } = compile(bound.definition);
  return { text, values: fillPlaceholders(params, bound.values) };
}

function decode(columns: Compiled["columns"], rows: unknown[][]): unknown {
  if (!columns) return rows;
  const { keys, decoders } = columns;
  const records: Record<string, unknown>[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as unknown[];
    const record: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const value = row[i];
      const decoder = decoders[i];
      record[keys[i] as string] =
        value === null || value === undefined ? null : decoder ? decoder.mapFromDriverValue(value) : value;
    }
    records[r] = record;
  }
  return records;
}

interface Ready {
  text: string;
  params: unknown[] | undefined;
  columns: Compiled["columns"];
}

/**
 * Each statement's text and values, or an error (a missing value, say) before anything is sent:
 * a statement that cannot be sent must not leave the ones before it sent without their COMMIT.
 */
function ready(statements: readonly (Bound<unknown> | string)[]): Ready[] {
  return statements.map((s) => {
    if (typeof s === "string") return { text: s, params: undefined, columns: undefined };
    const { text, params, columns } = compile(s.definition);
    const values = fillPlaceholders(params, s.values);
    // postgres.js would fail an undefined value inside its send, on the statement before it.
    if (values.includes(undefined)) throw new Error(`Statement ${s.definition.name}: a value is undefined`);
    return { text, params: values, columns };
  });
}

/**
 * The statements sent to the pinned connection at once, in this order: postgres.js queries are sent
 * once started, and `execute()` starts each now rather than when first awaited.
 */
function send(connection: Sql, statements: readonly Ready[]): Promise<unknown>[] {
  return statements.map(({ text, params, columns }) => {
    if (!params) return connection.unsafe(text).execute();
    const query = connection.unsafe(text, params as never[], { prepare: true });
    return (columns ? query.values() : query).execute().then((rows) => decode(columns, rows as unknown[][]));
  });
}

// Every statement of a two-trip transaction finds its rows by key, and each is prepared once per
// connection, so PostgreSQL may keep a generic plan made while a table was small: a sequential scan
// of credit_spends chosen at a few hundred rows went on scanning it at 50,000 (33 ms a batch,
// metering falling from 1,000 to 560 charges a second within a minute). Without sequential scans,
// every plan made at any size is an index lookup (decision 012). Without parameters, postgres.js
// sends them all as one simple-protocol message.
//
// And every statement runs on that generic plan from its first execution (decision 041). By
// default PostgreSQL plans a prepared statement for its values five times, then uses the generic
// plan only while it looks cheaper than the running average of every custom plan so far. A server
// whose first batches charged one user by id (the benchmark's 100,000 seeded charges, a staff
// charge, usage:simulate) had an average so cheap that the batches by key after them did not
// raise it within a benchmark's rounds: three of the six reads were planned anew for every batch,
// and PostgreSQL's time a charge was 12-15 % higher. The generic plans are those
// spends-plans.test.ts checks.
//
// And no transaction waits for ever: one batch at a time meters every charge, so a batch stuck on
// a lock (held by a session that is gone from here but not yet from the server), or a statement
// that never ends, would stop all of metering. Past the limits it fails, and each of its charges
// runs again alone (pipelined-batches.ts), safe by its idempotency key. A transaction left open
// (its process gave up on the connection) is ended by the server, and its locks with it. A batch
// takes milliseconds; the limits are far above that.
/** What opens a two-trip transaction, sent before its reads. */
export const TRANSACTION_BEGIN: readonly string[] = [
  "begin; set local enable_seqscan = off; set local plan_cache_mode = force_generic_plan; " +
    "set local lock_timeout = '5s'; " +
    "set local statement_timeout = '10s'; set local idle_in_transaction_session_timeout = '10s'",
];

/** A connection of the pool, pinned for one or more two-trip transactions in a row. */
export interface PinnedConnection {
  /**
   * Sends the statements now, in this order; each promise settles with its statement's answer.
   * Throws, having sent none of them, when one cannot be sent (a value missing, say).
   */
  send(statements: readonly (Bound<unknown> | string)[]): Promise<unknown>[];
  /** Ends the open transaction; if even that fails, the connection is gone and the caller's error says why. */
  rollBack(): Promise<void>;
  release(): void;
}

/**
 * Pins a connection of `db`'s pool; undefined on PGlite, which runs in process and has one. Once a
 * statement says the connection is gone, nothing more is sent on it and it is not handed back:
 * postgres.js has already put it with its closed connections (it reconnects one when needed). On
 * the driver as published, a statement sent on it failed inside the driver where nobody could
 * catch it, and handing it back listed it as open again; the patch of decision 037 makes both
 * harmless, and this stays the first guard. A pool with no connection free within
 * `reserveDeadlineMs` fails the pinning, nothing sent (lost-connection.ts RESERVE_DEADLINE_MS).
 */
export function connectionsOf(
  db: Db,
  deadlineMs = ANSWER_DEADLINE_MS,
  reserveDeadlineMs = RESERVE_DEADLINE_MS,
): (() => Promise<PinnedConnection>) | undefined {
  if (!(db instanceof PostgresJsDatabase)) return undefined;
  const client = (db as unknown as { $client: Sql }).$client;
  return async () => {
    const connection = await reservedWithin(client.reserve(), reserveDeadlineMs, (late) => late.release());
    const watch = watchedConnection(deadlineMs);
    // Every statement sent and not yet answered, as the driver will settle it.
    const inFlight = new Set<Promise<unknown>>();
    const watched = (answers: Promise<unknown>[]) => {
      for (const answer of answers) {
        inFlight.add(answer);
        const done = () => inFlight.delete(answer);
        answer.then(done, done);
      }
      // A connection that goes silent is taken for gone (lost-connection.ts ANSWER_DEADLINE_MS).
      return answers.map(watch.settled);
    };
    return {
      send: (statements) => {
        // Sent on a connection postgres.js has let go, a statement could wait for ever or go out on
        // the connection it reconnects for someone else.
        if (watch.lost()) throw new Error("The pinned connection is gone");
        return watched(send(connection, ready(statements)));
      },
      // Watched too: a connection lost during the ROLLBACK is not handed back.
      rollBack: () => (watch.lost() ? Promise.resolve() : rollBack(connection, watched)),
      release: () => {
        if (!watch.lost()) return connection.release();
        // Silent, it may still be alive: once everything sent has answered, rolled back and handed
        // back. If it never answers, postgres.js lets it go when its socket closes.
        if (watch.silent()) void handBackIfAnswered(connection, [...inFlight]);
      },
    };
  };
}

/** A connection taken for gone for its silence, handed back once all it was sent has answered. */
async function handBackIfAnswered(connection: ReservedSql, inFlight: Promise<unknown>[]): Promise<void> {
  if (!answeredAfterAll(await Promise.allSettled(inFlight))) return;
  try {
    await connection.unsafe("rollback").execute();
  } catch {
    return; // Gone after all: postgres.js has put it with its closed connections.
  }
  connection.release();
}

export const firstFailure = (outcomes: PromiseSettledResult<unknown>[]) =>
  outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");

/**
 * Why a transaction's writes and COMMIT (sent last) did not commit, or undefined when they did.
 * Every statement answering is not enough: postgres.js sends a prepared statement again on its
 * own when the server lost it (FetchPreparedStatement, RevalidateCachedQuery), after everything
 * already sent. A write that failed so aborts the transaction, COMMIT answers ROLLBACK, and the
 * write's second try succeeds outside it: only COMMIT's own answer says the writes were kept.
 */
export function commitFailure(outcomes: PromiseSettledResult<unknown>[]): { error: unknown } | undefined {
  const failed = firstFailure(outcomes);
  if (failed) return { error: failed.reason };
  const last = outcomes.at(-1) as PromiseFulfilledResult<{ command?: unknown } | undefined> | undefined;
  const command = last?.value?.command;
  if (command === "COMMIT") return undefined;
  // Every statement answered, yet the transaction ended: a write failed and was sent again, and its
  // second try may have been kept outside the transaction (lost-connection.ts outcomeUnknown).
  return {
    error: Object.assign(new Error(`The transaction was not committed: COMMIT answered ${String(command)}`), {
      code: COMMIT_NOT_KEPT,
    }),
  };
}

/** The answers of the statements sent after TRANSACTION_BEGIN, once all have succeeded. */
export const answersAfterBegin = (outcomes: PromiseSettledResult<unknown>[]) =>
  outcomes.slice(TRANSACTION_BEGIN.length).map((o) => (o as PromiseFulfilledResult<unknown>).value);

export async function twoTripTransaction<T extends Bounds, R>(db: Db, steps: TwoTripSteps<T, R>): Promise<R> {
  const pin = connectionsOf(db);
  if (!pin) return inDrizzleTransaction(db, steps);
  const connection = await pin();
  // Whether a transaction is open on the connection, so that it is never handed back inside one.
  let open = false;
  try {
    const reads = connection.send([...TRANSACTION_BEGIN, ...steps.reads]);
    open = true;
    const readsDone = await Promise.allSettled(reads);
    const readFailure = firstFailure(readsDone);
    if (readFailure) throw readFailure.reason;
    const planned = steps.decide(answersAfterBegin(readsDone) as Answers<T>);
    // If a write fails, PostgreSQL aborts the transaction and turns this COMMIT into a ROLLBACK,
    // so either every write is kept or none is; either way the transaction has ended.
    const writes = connection.send([...planned.writes, "commit"]);
    open = false;
    const failed = commitFailure(await Promise.allSettled(writes));
    if (failed) throw failed.error;
    return planned.result;
  } finally {
    if (open) await connection.rollBack();
    connection.release();
  }
}

/** PGlite: each statement built with its values, in a Drizzle transaction. */
function inDrizzleTransaction<T extends Bounds, R>(db: Db, steps: TwoTripSteps<T, R>): Promise<R> {
  const run = (q: Queries, bound: Bound<unknown>) =>
    bound.definition.build(q, (name) => {
      if (!(name in bound.values))
        throw new Error(`Statement ${bound.definition.name}: no value for ${name}`);
      return sql.param(bound.values[name]);
    });
  return db.transaction(async (tx) => {
    const answers: unknown[] = [];
    for (const read of steps.reads) answers.push(await run(tx, read));
    const { result, writes } = steps.decide(answers as Answers<T>);
    for (const write of writes) await run(tx, write);
    return result;
  });
}

async function rollBack(
  connection: Sql,
  watched: (answers: Promise<unknown>[]) => Promise<unknown>[],
): Promise<void> {
  try {
    await watched([connection.unsafe("rollback").execute()])[0];
  } catch {
    // Nothing to add to the error being thrown.
  }
}
