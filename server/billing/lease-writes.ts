// The charges made through credit leases, written in one statement for many leases (decision 051,
// step 4): no transaction around it, no organisation's lock and no reads before it. Each charge was
// decided in memory by the plain functions (lease-decisions.ts); the statement writes a charge only
// while its lease is open (and, by the instance's clock, unexpired), holding the lease's row FOR SHARE
// so that ending it (billing/credit-leases.ts) waits for the write and every later write finds it
// ended. What it writes is what a charge under the lock writes (spends.ts), with each amount taken
// from `reserved` as well as `remaining`, so the unreserved balance, `used + reserved` of the key's
// and member's month, and every balance shown move as they would under the lock.
//
// The parameters are JSON documents, so the statement's text (and the server's prepared statement)
// is the same for any batch. A charge whose idempotency key was already used fails the whole
// statement (the unique index): nothing is written, and its charges are decided again under the lock.
import { fillPlaceholders, inArray, type SQLWrapper, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import type { Sql } from "postgres";
import { creditSpends } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import type { Millicredits, SpendTake } from "../domain/ledger.ts";
import { pairKey } from "./spends.ts";

/** A charge decided through a lease, to write. */
export interface LeaseCharge {
  leaseId: string;
  spendId: string;
  orgId: string;
  apiKeyId: string;
  /** The member whose month the charge counts in; null for a shared or personal key. */
  memberId: string | null;
  amount: Millicredits;
  takes: readonly SpendTake[];
  reason: string;
  idempotencyKey: string;
  feature: string;
  people: "one" | "multiple";
  quantity: number;
  /** The Berlin month (its first day) and day the charge counts in. */
  month: string;
  day: string;
  createdAt: Date;
  /** Its place in the batch: a charge's balance after counts the written charges before it. */
  ordinal: number;
}

export interface LeaseWrite {
  /** The leases whose charges were written; a charge of any other was not. */
  written: ReadonlySet<string>;
  /** Each organisation's live balance before the statement (its own charges not counted). */
  balances: ReadonlyMap<string, Millicredits>;
}

/** The rows of `db.execute()`: postgres.js answers an array, PGlite an object with `rows`. */
const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];

const CHARGE_COLUMNS = `id uuid, user_id uuid, amount bigint, reason text, idempotency_key text,
  ordinal integer, takes jsonb, api_key_id text, member_id uuid, feature text, people text,
  quantity integer, month date, day date, created_at timestamptz, lease_id uuid`;

type Values = { leases: string; rows: string; at: string; lockTimeout: string };
/** The statement with its parameters from `p`: placeholders once for its text, or the values. */
const writeStatement = (p: (name: keyof Values) => SQLWrapper) => sql`
    with timeout as materialized (
      -- A lock wait longer than this fails the statement, which then counts as not written: its
      -- leases end and its charges are decided under the lock, rather than wait behind a lock held
      -- for long. Local to the statement's own transaction, so nothing is left on the connection.
      select set_config('lock_timeout', ${p("lockTimeout")}, true) as lock_timeout
    ), lease as (
      select id from credit_leases
      where id in (select jsonb_array_elements_text(${p("leases")}::jsonb)::uuid)
        and ended_at is null and expires_at > ${p("at")}::timestamptz
        -- Set before any lock is waited for: every other part reads this one first.
        and (select lock_timeout from timeout) is not null
      order by id
      -- A lease being ended (held FOR UPDATE) is skipped, not waited for: its charges are decided
      -- again under the lock, and no write of the batch waits on a refund or a deletion.
      for share skip locked
    ), charges as (
      select * from jsonb_to_recordset(${p("rows")}::jsonb) as c(${sql.raw(CHARGE_COLUMNS)})
      where c.lease_id in (select id from lease)
    ), totals as (
      select user_id, sum(remaining)::bigint as balance from credit_grants
      where user_id in (select user_id from charges)
        and granted_at <= ${p("at")}::timestamptz and (expires_at is null or expires_at > ${p("at")}::timestamptz)
      group by user_id
    ), spends as (
      insert into credit_spends (id, user_id, amount, reason, idempotency_key, balance_after, takes,
        requested_by, api_key_id, feature, people, quantity, created_at, lease_id)
      select c.id, c.user_id, c.amount, c.reason, c.idempotency_key,
        coalesce(t.balance, 0) - sum(c.amount) over (partition by c.user_id order by c.ordinal), c.takes, null, c.api_key_id, c.feature,
        c.people, c.quantity, c.created_at, c.lease_id
      from charges c left join totals t on t.user_id = c.user_id
    -- Row order: a batch under the lock writes its rows sorted by key (spends.ts); this statement
    -- updates them in its plan's order. The two can wait on each other, but this statement's lock
    -- timeout is far below PostgreSQL's deadlock check, so it is always the one that gives up (its
    -- charges go to the lock). Locking the rows in key order first, in the statement, measured
    -- consume at 84.9 % / 81.4 % of its floor against 87.8 % / 89.9 % without (decision 051).
    ), grants_taken as (
      update credit_grants g set remaining = g.remaining - x.amount, reserved = g.reserved - x.amount
      from (
        select (t ->> 'grantId')::uuid as id, c.user_id, sum((t ->> 'amount')::bigint) as amount
        from charges c, jsonb_array_elements(c.takes) t group by 1, 2
      ) x
      where g.id = x.id and g.user_id = x.user_id
    ), daily as (
      insert into usage_daily (user_id, day, feature, api_key_id, uses, credits)
      select user_id, day, feature, api_key_id, sum(quantity), sum(amount) from charges group by 1, 2, 3, 4
      on conflict (user_id, day, feature, api_key_id)
      do update set uses = usage_daily.uses + excluded.uses, credits = usage_daily.credits + excluded.credits
    ), key_usage as (
      update api_key_usage k
      set amount = k.amount + x.amount, reserved = coalesce(k.reserved, 0) - x.amount
      from (select api_key_id, month, sum(amount) as amount from charges group by 1, 2) x
      where k.api_key_id = x.api_key_id and k.month = x.month
    ), member_usage as (
      update member_credit_usage m
      set amount = m.amount + x.amount, reserved = coalesce(m.reserved, 0) - x.amount
      from (
        select user_id, member_id, month, sum(amount) as amount from charges
        where member_id is not null group by 1, 2, 3
      ) x
      where m.org_id = x.user_id and m.user_id = x.member_id and m.month = x.month
    )
    select
      (select coalesce(json_agg(id), '[]'::json) from lease)::text as written,
      (select coalesce(json_agg(json_build_array(user_id, balance)), '[]'::json) from totals)::text as balances`;
const WRITE_TEXT = new PgDialect().sqlToQuery(writeStatement((name) => sql.placeholder(name)));

/**
 * Runs the statement: on PostgreSQL prepared once per connection (planning a statement of this size
 * for every batch cost more than running it), on PGlite as it is.
 */
function run(db: Db, values: Values): Promise<unknown> {
  if (db instanceof PostgresJsDatabase) {
    const client = (db as unknown as { $client: Sql }).$client;
    return client.unsafe(WRITE_TEXT.sql, fillPlaceholders(WRITE_TEXT.params, values) as never[], {
      prepare: true,
    });
  }
  return db.execute(writeStatement((name) => sql`${values[name]}`));
}

/**
 * Which of `charges` name an idempotency key their organisation already used: read only after the
 * statement failed on the unique index, so that the others can be written without them. Each as
 * `pairKey(organisation, idempotency key)`, as spends.ts keys earlier spends.
 */
export async function usedIdempotencyKeys(db: Db, charges: readonly LeaseCharge[]): Promise<Set<string>> {
  const rows = await db
    .select({ userId: creditSpends.userId, idempotencyKey: creditSpends.idempotencyKey })
    .from(creditSpends)
    .where(
      inArray(
        creditSpends.idempotencyKey,
        charges.map((c) => c.idempotencyKey),
      ),
    );
  return new Set(rows.map((r) => pairKey(r.userId, r.idempotencyKey)));
}

/**
 * How long the write waits for a row lock before it fails (and its charges go to the lock): well
 * below PostgreSQL's deadlock_timeout (1 s by default), so that in a wait with a batch under the
 * lock the write gives up first, and the batch, whose charges have no other way, goes on.
 */
export const LEASE_WRITE_LOCK_TIMEOUT_MS = 200;

/** Writes the charges of open leases; see the top of this file. Throws when the statement fails. */
export async function writeLeaseCharges(
  db: Db,
  charges: readonly LeaseCharge[],
  now: Date,
  lockTimeoutMs = LEASE_WRITE_LOCK_TIMEOUT_MS,
): Promise<LeaseWrite> {
  const leases = JSON.stringify([...new Set(charges.map((c) => c.leaseId))].sort());
  const rows = JSON.stringify(
    charges.map((c) => ({
      id: c.spendId,
      user_id: c.orgId,
      amount: c.amount,
      reason: c.reason,
      idempotency_key: c.idempotencyKey,
      ordinal: c.ordinal,
      takes: c.takes,
      api_key_id: c.apiKeyId,
      member_id: c.memberId,
      feature: c.feature,
      people: c.people,
      quantity: c.quantity,
      month: c.month,
      day: c.day,
      created_at: c.createdAt.toISOString(),
      lease_id: c.leaseId,
    })),
  );
  const values = { leases, rows, at: now.toISOString(), lockTimeout: `${lockTimeoutMs}ms` };
  const result = await run(db, values);
  const [answer] = rowsOf<{ written: string; balances: string }>(result);
  if (!answer) throw new Error("The lease write answered no row");
  return {
    written: new Set(JSON.parse(answer.written) as string[]),
    balances: new Map(
      (JSON.parse(answer.balances) as [string, number | string][]).map(([org, balance]) => [
        org,
        Number(balance),
      ]),
    ),
  };
}
