// Spending credits: once per (user, idempotency key), never partially, never below zero, and for a
// charge made with an API key only while the key is usable, for its features, and never past its
// monthly limit. Concurrent spends are gathered into batches (batched.ts): one transaction locks the
// batch's users (in id order, so batches on other instances cannot deadlock with it), reads their
// keys, grants, earlier spends and key usage, decides every spend in arrival order in memory, and
// writes the outcome in one statement, in two round trips on PostgreSQL (two-trip-transaction.ts)
// instead of a charge's own eight statements (decision 012). Lists travel as array parameters and
// rows as one JSON parameter, so each statement's text, and the server's prepared statement, is the
// same whatever the batch.
import { randomUUID } from "node:crypto";
import { asc, type SQLWrapper, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { isUserId } from "../accounts/users.ts";
import { isUsableApiKey } from "../api-access/api-keys.ts";
import { insertJsonRows, jsonRows } from "../db/json-rows.ts";
import {
  type ApiKeyRow,
  apiKeys,
  apiKeyUsage,
  creditGrants,
  creditSpends,
  usageDaily,
  users,
} from "../db/schema/index.ts";
import {
  type Answers,
  type Bound,
  type Param,
  statement,
  twoTripTransaction,
} from "../db/two-trip-transaction.ts";
import type { Db } from "../db/types.ts";
import { berlinDay } from "../domain/berlin-time.ts";
import { type ChargeFingerprint, isSameCharge } from "../domain/idempotency.ts";
import { applySpend, balance, type CreditGrant, planSpend, type SpendTake } from "../domain/ledger.ts";
import { batched } from "./batched.ts";
import { GRANT_COLUMNS, NEWEST_GRANT_FIRST, toCreditGrant } from "./ledger-store.ts";

/** Why a spend was refused (consume answers each with the contract's status and message). */
export type SpendRefusal =
  | "insufficient"
  | "no_user"
  | "no_key"
  | "feature_not_allowed"
  | "key_limit"
  | "disabled"
  | "dispute_hold"
  /** The idempotency key was used for a different request (domain/idempotency.ts). */
  | "idempotency_mismatch";

export type SpendResult =
  | {
      ok: true;
      /** Whose credits were spent (for a charge by API key: the key's user). */
      userId: string;
      balanceAfter: number;
      repeated: boolean;
      spendId: string;
      amount: number;
      /**
       * The user's low-balance threshold (milli-credits) when this spend took the balance from at
       * least it to below it, else null. Decided under the user's lock, so of concurrent spends
       * exactly one sees the crossing; a repeated spend never does.
       */
      lowBalanceCrossed: number | null;
    }
  | { ok: false; reason: SpendRefusal };

/** What a metered charge (consume by feature) records besides the amount. */
export interface Metering {
  /** The API key that pays: its user is charged, within its features and monthly limit. */
  apiKeyId: string | null;
  feature: string;
  people: "one" | "multiple";
  quantity: number;
  /** The Berlin month the charge counts in, by its first day ("2026-11-01"). */
  month: string;
}

export interface SpendRequest {
  /** Whose credits; ignored when `meter.apiKeyId` names the key whose user pays. */
  userId: string | undefined;
  amount: number;
  reason: string;
  idempotencyKey: string;
  requestedBy: string | null;
  now: Date;
  /** When the spend is recorded as made (a simulated, back-dated charge); default: `now`. */
  recordedAt?: Date | undefined;
  meter?: Metering | undefined;
}

/** Most spends one transaction decides: enough to share a commit widely, short enough to hold locks briefly. */
const MAX_BATCH = 64;

const spenders = new WeakMap<Db, (request: SpendRequest) => Promise<SpendResult>>();

/**
 * Spends `request.amount` milli-credits (see the top of this file). Calls made at the same time on
 * the same database handle share a transaction; each gets its own answer.
 */
export function spendCredits(db: Db, request: SpendRequest): Promise<SpendResult> {
  let spend = spenders.get(db);
  if (!spend) {
    spend = batched((requests: readonly SpendRequest[]) => spendBatch(db, requests), { maxBatch: MAX_BATCH });
    spenders.set(db, spend);
  }
  return spend(request);
}

const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

/** What the batch's transaction read, under the users' locks. */
interface BatchState {
  users: Set<string>;
  /** The locked users whose account staff disabled: nothing is charged to them. */
  disabled: Set<string>;
  /** The locked users on a dispute hold (billing/dispute-hold.ts): nothing is charged to them either. */
  held: Set<string>;
  /** Each locked user's low-balance threshold in milli-credits, or null for no alert. */
  thresholds: Map<string, number | null>;
  /** The batch's API keys, read after the locks (a key revoked a moment ago is seen revoked). */
  keys: Map<string, ApiKeyRow>;
  /** Each user's grants, updated in memory as the batch's spends take from them. */
  grants: Map<string, CreditGrant[]>;
  /**
   * Spends already made, by user and idempotency key (this batch's own added as they are decided),
   * with what they were asked for: a repeat must ask the same.
   */
  earlier: Map<string, { result: Extract<SpendResult, { ok: true }>; asked: ChargeFingerprint }>;
  /** Milli-credits used per API key and month, this batch's spends included. */
  usage: Map<string, number>;
}

/**
 * A list as one array parameter: `= any($1::uuid[])` has the same text for any length. Sent as
 * text[] and cast by the server: the postgres.js driver cannot send a date[] as Drizzle sets it up.
 */
const list = (values: SQLWrapper, type: "uuid" | "text" | "date" | "bigint") =>
  sql`${values}::text[]::${sql.raw(type)}[]`;

const keyIdOf = (request: SpendRequest) => request.meter?.apiKeyId ?? undefined;

/**
 * The batch's users: those named, and those whose keys are charged. As one array (computed once
 * per statement), so the indexes on user_id serve: an OR with a subquery made credit_spends a
 * sequential scan.
 */
const ofBatch = (userId: AnyPgColumn, p: Param) =>
  sql`${userId} = any(array(select unnest(${list(p("userIds"), "uuid")}) union select ${apiKeys.userId} from ${apiKeys} where ${apiKeys.id} = any(${list(p("keyIds"), "text")})))`;

// The batch's reads, in the order they are sent: the users locked in id order (every batch takes
// them in the same order, so two never deadlock), then their keys, earlier spends, grants and key
// usage. Sent together, the reads run after the lock on the same connection, so each sees what was
// committed before the lock.
const lockUsers = statement("lock_users", (q, p) =>
  q
    .select({
      id: users.id,
      lowBalanceThreshold: users.lowBalanceThreshold,
      disabledAt: users.disabledAt,
      disputeHoldAt: users.disputeHoldAt,
    })
    .from(users)
    .where(ofBatch(users.id, p))
    .orderBy(asc(users.id))
    .for("update"),
);

const keysOfBatch = statement("api_keys_of_batch", (q, p) =>
  q
    .select()
    .from(apiKeys)
    .where(sql`${apiKeys.id} = any(${list(p("keyIds"), "text")})`),
);

/**
 * The spends already made under the batch's idempotency keys, whoever's they are: batchState keys
 * them by (user, idempotency key) and a charge finds only its own user's. Looked up by key alone,
 * in the unique index that begins with the key, because no other index can serve that. Joined to
 * the users, the lookup had two indexes beginning with user_id to choose from; on a nearly empty
 * credit_spends both looked like one row, PostgreSQL chose (user_id, created_at) and filtered by
 * key, and as the statement is prepared once per connection that plan stayed while the table
 * grew: every charge read every earlier spend of its user (20,000 rows a charge at 20,000 spends,
 * 10 to 160 ms a batch). spends-plans.test.ts asks PostgreSQL for the plan on an empty table.
 */
const earlierSpends = statement("earlier_spends", (q, p) =>
  q
    .select({
      id: creditSpends.id,
      userId: creditSpends.userId,
      idempotencyKey: creditSpends.idempotencyKey,
      amount: creditSpends.amount,
      balanceAfter: creditSpends.balanceAfter,
      apiKeyId: creditSpends.apiKeyId,
      feature: creditSpends.feature,
      people: creditSpends.people,
      quantity: creditSpends.quantity,
    })
    .from(creditSpends)
    .where(sql`${creditSpends.idempotencyKey} = any(${list(p("idempotencyKeys"), "text")})`),
);

const grantsOfBatch = statement("grants_of_batch", (q, p) =>
  q
    .select({ ...GRANT_COLUMNS, userId: creditGrants.userId })
    .from(creditGrants)
    .where(ofBatch(creditGrants.userId, p))
    .orderBy(...NEWEST_GRANT_FIRST),
);

const keyUsageOfBatch = statement("key_usage_of_batch", (q, p) =>
  q
    .select({ apiKeyId: apiKeyUsage.apiKeyId, month: apiKeyUsage.month, amount: apiKeyUsage.amount })
    .from(apiKeyUsage)
    .where(
      sql`${apiKeyUsage.apiKeyId} = any(${list(p("keyIds"), "text")}) and ${apiKeyUsage.month} = any(${list(p("months"), "date")})`,
    ),
);

/** The batch's reads with its values: lists of its users, keys, months and idempotency keys. */
export function batchReads(requests: readonly SpendRequest[]) {
  const values = {
    userIds: [...new Set(requests.flatMap((r) => (r.userId && isUserId(r.userId) ? [r.userId] : [])))],
    keyIds: [...new Set(requests.flatMap((r) => keyIdOf(r) ?? []))],
    months: [...new Set(requests.flatMap((r) => r.meter?.month ?? []))],
    idempotencyKeys: [...new Set(requests.map((r) => r.idempotencyKey))],
  };
  return [
    lockUsers(values),
    keysOfBatch(values),
    earlierSpends(values),
    grantsOfBatch(values),
    keyUsageOfBatch(values),
  ] as const;
}

function batchState([locked, keyRows, earlierRows, grantRows, usageRows]: Answers<
  ReturnType<typeof batchReads>
>): BatchState {
  const lockedIds = locked.map((u) => u.id);
  const grants = new Map<string, CreditGrant[]>(lockedIds.map((id) => [id, []]));
  for (const row of grantRows) grants.get(row.userId)?.push(toCreditGrant(row));
  return {
    users: new Set(lockedIds),
    disabled: new Set(locked.filter((u) => u.disabledAt !== null).map((u) => u.id)),
    held: new Set(locked.filter((u) => u.disputeHoldAt !== null).map((u) => u.id)),
    thresholds: new Map(locked.map((u) => [u.id, u.lowBalanceThreshold])),
    keys: new Map(keyRows.map((k) => [k.id, k])),
    grants,
    earlier: new Map(
      earlierRows.map((e) => [
        pairKey(e.userId, e.idempotencyKey),
        {
          result: {
            ok: true,
            userId: e.userId,
            balanceAfter: e.balanceAfter,
            repeated: true,
            spendId: e.id,
            amount: e.amount,
            lowBalanceCrossed: null,
          },
          asked: e,
        },
      ]),
    ),
    usage: new Map(usageRows.map((u) => [pairKey(u.apiKeyId, u.month), u.amount])),
  };
}

/** The spends of a batch, decided in arrival order and written together; one answer per request. */
export function spendBatch(db: Db, requests: readonly SpendRequest[]): Promise<SpendResult[]> {
  return twoTripTransaction(db, {
    reads: batchReads(requests),
    decide: (answers) => {
      const state = batchState(answers);
      const results: SpendResult[] = [];
      const spendRows: (typeof creditSpends.$inferInsert)[] = [];
      const taken = new Map<string, number>();
      const addedUsage = new Map<string, { apiKeyId: string; month: string; amount: number }>();
      const daily = new Map<string, typeof usageDaily.$inferInsert>();
      for (const request of requests) {
        const answer = decide(state, request);
        results.push(answer.result);
        if (!answer.spend) continue;
        const { takes, row } = answer.spend;
        spendRows.push(row);
        for (const take of takes) taken.set(take.grantId, (taken.get(take.grantId) ?? 0) + take.amount);
        const meter = request.meter;
        addToDay(daily, row, meter);
        if (meter?.apiKeyId) {
          const usageKey = pairKey(meter.apiKeyId, meter.month);
          const added = addedUsage.get(usageKey) ?? {
            apiKeyId: meter.apiKeyId,
            month: meter.month,
            amount: 0,
          };
          added.amount += request.amount;
          addedUsage.set(usageKey, added);
        }
      }
      return {
        result: results,
        writes: batchWrites(spendRows, taken, [...addedUsage.values()], [...daily.values()]),
      };
    },
  });
}

/** Adds a spend to its user's Berlin day, feature and key in the batch's daily sums (usage_daily). */
function addToDay(
  daily: Map<string, typeof usageDaily.$inferInsert>,
  spend: typeof creditSpends.$inferInsert,
  meter: Metering | undefined,
): void {
  const day = berlinDay(spend.createdAt);
  const feature = meter?.feature ?? "";
  const apiKeyId = meter?.apiKeyId ?? "";
  const key = [spend.userId, day, feature, apiKeyId].join("\u0000");
  const sums = daily.get(key) ?? { userId: spend.userId, day, feature, apiKeyId, uses: 0, credits: 0 };
  sums.uses += meter?.quantity ?? 1;
  sums.credits += spend.amount;
  daily.set(key, sums);
}

/** What a spend request asks for, in the shape its spend row records it. */
function fingerprintOf(request: SpendRequest): ChargeFingerprint {
  const meter = request.meter;
  return {
    apiKeyId: meter?.apiKeyId ?? null,
    feature: meter?.feature ?? null,
    people: meter?.people ?? null,
    quantity: meter?.quantity ?? null,
    amount: request.amount,
  };
}

interface Decision {
  result: SpendResult;
  spend?: { takes: SpendTake[]; row: typeof creditSpends.$inferInsert };
}

/** One spend against the batch's state as the spends before it in the batch left it. */
function decide(state: BatchState, request: SpendRequest): Decision {
  const meter = request.meter;
  const keyId = keyIdOf(request);
  const key = keyId === undefined ? undefined : state.keys.get(keyId);
  if (keyId !== undefined) {
    if (!key || !isUsableApiKey(key, request.now)) return { result: { ok: false, reason: "no_key" } };
    if (meter && key.features && !key.features.includes(meter.feature)) {
      return { result: { ok: false, reason: "feature_not_allowed" } };
    }
  }
  const userId = key?.userId ?? request.userId;
  if (userId === undefined || !state.users.has(userId)) return { result: { ok: false, reason: "no_user" } };
  const idempotency = pairKey(userId, request.idempotencyKey);
  const earlier = state.earlier.get(idempotency);
  if (earlier) {
    if (!isSameCharge(earlier.asked, fingerprintOf(request))) {
      return { result: { ok: false, reason: "idempotency_mismatch" } };
    }
    return { result: { ...earlier.result, repeated: true, lowBalanceCrossed: null } };
  }
  // A disabled account's keys are inactive, and nothing else may charge it either; nor one on hold.
  if (state.disabled.has(userId)) return { result: { ok: false, reason: key ? "no_key" : "disabled" } };
  if (state.held.has(userId)) return { result: { ok: false, reason: "dispute_hold" } };

  const usageKey = key && meter ? pairKey(key.id, meter.month) : undefined;
  const used = usageKey ? (state.usage.get(usageKey) ?? 0) : 0;
  if (key?.monthlyCreditLimit != null && used + request.amount > key.monthlyCreditLimit) {
    return { result: { ok: false, reason: "key_limit" } };
  }
  const grants = state.grants.get(userId) ?? [];
  const plan = planSpend(grants, request.amount, request.now);
  if (!plan.ok) return { result: { ok: false, reason: "insufficient" } };

  const balanceBefore = balance(grants, request.now);
  const balanceAfter = balanceBefore - request.amount;
  state.grants.set(userId, applySpend(grants, plan.takes));
  if (usageKey) state.usage.set(usageKey, used + request.amount);
  const spendId = randomUUID();
  const threshold = state.thresholds.get(userId) ?? null;
  const result = {
    ok: true,
    userId,
    balanceAfter,
    repeated: false,
    spendId,
    amount: request.amount,
    lowBalanceCrossed:
      threshold !== null && balanceBefore >= threshold && balanceAfter < threshold ? threshold : null,
  } as const;
  state.earlier.set(idempotency, { result, asked: fingerprintOf(request) });
  return {
    result,
    spend: {
      takes: plan.takes,
      row: {
        id: spendId,
        userId,
        amount: request.amount,
        reason: request.reason,
        idempotencyKey: request.idempotencyKey,
        balanceAfter,
        takes: plan.takes,
        requestedBy: request.requestedBy,
        apiKeyId: meter?.apiKeyId ?? null,
        feature: meter?.feature ?? null,
        people: meter?.people ?? null,
        quantity: meter?.quantity ?? null,
        createdAt: request.recordedAt ?? request.now,
      },
    },
  };
}

const onConflict = (columns: readonly AnyPgColumn[]) =>
  sql`on conflict (${sql.join(
    columns.map((c) => sql.identifier(c.name)),
    sql`, `,
  )})`;

/**
 * The batch's outcome as one statement of fixed text: the grants taken from, the spends, the daily
 * usage sums and the keys' monthly usage. One statement, not four: each statement costs PostgreSQL
 * and the driver a parse of its own messages and answer, and the four tables' writes do not
 * depend on each other (a data-modifying WITH runs every part on the same snapshot).
 */
const writeBatch = statement("write_batch", (q, p) =>
  q.execute(
    sql`with taken_from_grants as (
          update ${creditGrants} set remaining = ${creditGrants.remaining} - taken.amount
          from unnest(${list(p("grantIds"), "uuid")}, ${list(p("amounts"), "bigint")}) as taken(id, amount)
          where ${creditGrants.id} = taken.id
        ), spends as (
          ${insertJsonRows(creditSpends, p("spends"))}
        ), daily as (
          ${insertJsonRows(usageDaily, p("daily"))}
          ${onConflict([usageDaily.userId, usageDaily.day, usageDaily.feature, usageDaily.apiKeyId])}
          do update set uses = ${usageDaily.uses} + excluded.uses, credits = ${usageDaily.credits} + excluded.credits
        ), key_usage as (
          ${insertJsonRows(apiKeyUsage, p("keyUsage"))}
          ${onConflict([apiKeyUsage.apiKeyId, apiKeyUsage.month])}
          do update set amount = ${apiKeyUsage.amount} + excluded.amount
        )
        select 1`,
  ),
);

/** The batch's outcome (none when it spent nothing). */
function batchWrites(
  spendRows: readonly (typeof creditSpends.$inferInsert)[],
  taken: ReadonlyMap<string, number>,
  usage: readonly { apiKeyId: string; month: string; amount: number }[],
  daily: readonly (typeof usageDaily.$inferInsert)[],
): Bound<unknown>[] {
  if (spendRows.length === 0) return [];
  return [
    writeBatch({
      grantIds: [...taken.keys()],
      amounts: [...taken.values()].map(String),
      spends: jsonRows(creditSpends, spendRows),
      daily: jsonRows(usageDaily, daily),
      keyUsage: jsonRows(apiKeyUsage, usage),
    }),
  ];
}
