// Spending credits: once per (user, idempotency key), never partially, never below zero, and for a
// charge made with an API key only while the key is usable, for its features, and never past its
// monthly limit. Concurrent spends are gathered into batches (pipelined-batches.ts): one transaction
// locks the batch's users (in id order, so batches on other instances cannot deadlock with it),
// reads their keys, grants, earlier spends and key usage, decides every spend in arrival order in
// memory, and writes the outcome in one statement, in two round trips on PostgreSQL
// (two-trip-transaction.ts) instead of a charge's own eight statements (decision 012); while batches
// keep coming, a batch's writes and COMMIT travel with the next one's reads, one round trip a batch
// (decision 036). Lists travel as array parameters and
// rows as one JSON parameter, so each statement's text, and the server's prepared statement, is the
// same whatever the batch.
import { randomUUID } from "node:crypto";
import { asc, type SQLWrapper, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { isUserId } from "../accounts/users.ts";
import { insertJsonRows, jsonRows } from "../db/json-rows.ts";
import {
  type ApiKeyRow,
  apiKeys,
  apiKeyUsage,
  autoTopUpSettings,
  creditGrants,
  creditSpends,
  memberCreditUsage,
  organizationMembers,
  organizations,
  usageDaily,
  users,
} from "../db/schema/index.ts";
import {
  type Answers,
  type Bound,
  connectionsOf,
  type Param,
  type Queries,
  statement,
  type TwoTripSteps,
  twoTripTransaction,
} from "../db/two-trip-transaction.ts";
import type { Db } from "../db/types.ts";
import { capWarningStep, lowBalanceStep } from "../domain/alert-latches.ts";
import { berlinDay } from "../domain/berlin-time.ts";
import { type ReservableGrant, unreserved } from "../domain/credit-leases.ts";
import { type ChargeFingerprint, isSameCharge } from "../domain/idempotency.ts";
import {
  applySpend,
  balance,
  type CreditGrant,
  planSpend,
  type SpendTake,
  toMillicredits,
} from "../domain/ledger.ts";
import { exceedsCap } from "../domain/member-caps.ts";
import { batched } from "./batched.ts";
import type { LeaseScope } from "./credit-leases.ts";
import { keyRefusal } from "./key-refusal.ts";
import { GRANT_COLUMNS, NEWEST_GRANT_FIRST, toCreditGrant } from "./ledger-store.ts";
import { pipeline } from "./pipelined-batches.ts";
import { settleRetriedSpend } from "./retried-spends.ts";

/** Why a spend was refused (consume answers each with the contract's status and message). */
export type SpendRefusal =
  | "insufficient"
  | "no_user"
  | "no_key"
  | "feature_not_allowed"
  | "key_limit"
  /** The key's member reached their monthly cap in the organisation (ORGANISATIONS.md). */
  | "member_cap"
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
       * The organisation's low-balance threshold (milli-credits) when this spend is the first to
       * see its balance below it since it was last at or above it (the organisation's latch,
       * domain/alert-latches.ts), else null. Decided under the organisation's lock, so of
       * concurrent spends exactly one mails; a repeated spend never does.
       */
      lowBalanceCrossed: number | null;
      /**
       * The member whose key paid, when this charge is the first to see their month's spending
       * past 80 % of their cap (the month's latch, decided under the organisation's lock, so once
       * per month and cap); else null.
       */
      memberCapNearing: MemberCapEvent | null;
      /**
       * The organisation's auto top-up is active and this spend left its balance below the
       * threshold: the caller nudges auto top-up (after the commit, never inside the spend).
       */
      autoTopUpDue: boolean;
    }
  | {
      ok: false;
      reason: SpendRefusal;
      /** Refused for credits while auto top-up is active: the organisation the caller nudges. */
      autoTopUpOrg?: string;
      /** For a refusal by the member's cap: whose and which month (the first such refusal mails). */
      memberCap?: MemberCapEvent;
      /**
       * Refused only because open credit leases hold what it needed (decision 051): the leases to
       * end before deciding it again. Absent when what is spent, not held, refuses it.
       */
      leasesInTheWay?: LeaseScope;
    };

/** A member's monthly cap in an organisation, and what their keys spent of it. */
export interface MemberCapEvent {
  orgId: string;
  memberId: string;
  /** Berlin month, by its first day. */
  month: string;
  /** Milli-credits. */
  cap: number;
  used: number;
}

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
/** Database handles whose charges go through credit leases (leased-spends.ts, CREDIT_LEASES). */
const routed = new WeakMap<Db, (request: SpendRequest) => Promise<SpendResult>>();

/** Sends `db`'s charges through `spend` (credit leases), which decides under the lock what it cannot. */
export function routeSpends(db: Db, spend: (request: SpendRequest) => Promise<SpendResult>): void {
  routed.set(db, spend);
}

/**
 * Spends `request.amount` milli-credits (see the top of this file), through a credit lease where
 * the instance holds one for the charge's key (decision 051), else under the organisation's lock.
 */
export function spendCredits(db: Db, request: SpendRequest): Promise<SpendResult> {
  const leased = routed.get(db);
  return leased ? leased(request) : spendUnderLock(db, request);
}

/**
 * Spends under the organisation's lock. Calls made at the same time on the same database handle
 * share a transaction; each gets its own answer.
 */
export function spendUnderLock(db: Db, request: SpendRequest): Promise<SpendResult> {
  let spend = spenders.get(db);
  if (!spend) {
    spend = spender(db);
    spenders.set(db, spend);
  }
  return spend(request);
}

/**
 * What spendCredits spends through on `db`: the pipeline on PostgreSQL, whose pinned connection
 * may stay silent for `deadlineMs` at most (its tests shorten it); on PGlite (no pinned
 * connections: in process, no round trips to save) a batch at a time.
 */
export function spender(db: Db, deadlineMs?: number): (request: SpendRequest) => Promise<SpendResult> {
  const connections = connectionsOf(db, deadlineMs);
  const options = { maxBatch: MAX_BATCH };
  return connections
    ? pipeline(connections, spendSteps, { ...options, settle: settleRetriedSpend })
    : batched((requests: readonly SpendRequest[]) => spendBatch(db, requests), options);
}

/** Two ids as one map key (an organisation's idempotency key, a key's month). */
export const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

/**
 * The columns of a batch's API keys that its decisions read. Not the whole row: the name, prefix,
 * hash, creation and last use were read, decoded and dropped for every charge (issue 35).
 */
export const BATCH_KEY_COLUMNS = {
  id: apiKeys.id,
  userId: apiKeys.userId,
  createdBy: apiKeys.createdBy,
  shared: apiKeys.shared,
  monthlyCreditLimit: apiKeys.monthlyCreditLimit,
  features: apiKeys.features,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
};

/** An API key of the batch with what decides whether its member may spend through it. */
interface BatchKey extends Pick<ApiKeyRow, keyof typeof BATCH_KEY_COLUMNS> {
  /** The member the key's spending counts against: its creator; null for a shared key. */
  memberId: string | null;
  /** False when the creator left the organisation or staff disabled them: the key is inactive. */
  creatorActive: boolean;
  /** The creator's monthly cap in the organisation (milli-credits), null: none. */
  memberCap: number | null;
}

/** What the batch's transaction read, under the organisations' locks. */
interface BatchState {
  /** The locked organisations (the billing accounts; a personal one has its user's id). */
  users: Set<string>;
  /** Those of them that are personal: the only ones a user id (consume {user_id}) may charge. */
  personal: Set<string>;
  /** The locked users whose account staff disabled: nothing is charged to them. */
  disabled: Set<string>;
  /** The locked users on a dispute hold (billing/dispute-hold.ts): nothing is charged to them either. */
  held: Set<string>;
  /** Each locked user's low-balance threshold in milli-credits, or null for no alert. */
  thresholds: Map<string, number | null>;
  /** Each locked organisation's low-balance latch as read, then as this batch's spends leave it. */
  alerted: Map<string, boolean>;
  /** The auto top-up threshold (milli-credits) of the locked organisations where it is active. */
  autoTopUpThresholds: Map<string, number>;
  /** The batch's API keys, read after the locks (a key revoked a moment ago is seen revoked). */
  keys: Map<string, BatchKey>;
  /**
   * Each user's grants as a spend outside credit leases sees them (what is left less what open
   * leases hold, decision 051), updated in memory as the batch's spends take from them.
   */
  grants: Map<string, CreditGrant[]>;
  /** What open leases hold of each user's grants (remaining = reserved), only grants with a reservation. */
  reservations: Map<string, CreditGrant[]>;
  /**
   * Spends already made, by user and idempotency key (this batch's own added as they are decided),
   * with what they were asked for: a repeat must ask the same.
   */
  earlier: Map<string, { result: Extract<SpendResult, { ok: true }>; asked: ChargeFingerprint }>;
  /** Milli-credits used per API key and month, this batch's spends included. */
  usage: Map<string, number>;
  /** Milli-credits open leases hold per API key and month: counted against its limit too. */
  keyReserved: Map<string, number>;
  /** Milli-credits used per (organisation, member, month), this batch's spends included. */
  memberUsage: Map<string, number>;
  /** Milli-credits open leases hold per (organisation, member, month): counted against the cap too. */
  memberReserved: Map<string, number>;
  /** Whether the member's month was warned of its cap, as read and as the batch's spends leave it. */
  capWarned: Map<string, boolean>;
}

/**
 * A list as one array parameter: `= any($1::uuid[])` has the same text for any length. Sent as
 * text[] and cast by the server: the postgres.js driver cannot send a date[] as Drizzle sets it up.
 */
const list = (values: SQLWrapper, type: "uuid" | "text" | "date" | "bigint" | "boolean") =>
  sql`${values}::text[]::${sql.raw(type)}[]`;

const keyIdOf = (request: SpendRequest) => request.meter?.apiKeyId ?? undefined;

/**
 * The batch's users: those named, and those whose keys are charged. As one array (computed once
 * per statement), so the indexes on user_id serve: an OR with a subquery made credit_spends a
 * sequential scan.
 */
const ofBatch = (userId: AnyPgColumn, p: Param) =>
  sql`${userId} = any(array(select unnest(${list(p("userIds"), "uuid")}) union select ${apiKeys.userId} from ${apiKeys} where ${apiKeys.id} = any(${list(p("keyIds"), "text")})))`;

/** The member a key's spending counts against: its creator (a key of the previous version: its user). */
const creatorOf = sql`coalesce(${apiKeys.createdBy}, ${apiKeys.userId})`;

// The batch's reads, in the order they are sent: the organisations locked in id order (every batch
// takes them in the same order, so two never deadlock), then their keys, earlier spends, grants,
// key usage and member usage. A user id names only its personal organisation (consume {user_id}):
// a team organisation is charged through its keys alone. Sent together, the reads run after the lock on the same connection, so each sees what was
// committed before the lock.
/**
 * What a charge reads of its organisation under the lock (here and when a credit lease is taken,
 * leased-spends.ts), from `organizations` joined as `chargedOrganization` joins it.
 */
export const CHARGED_ORGANIZATION_COLUMNS = {
  id: organizations.id,
  personal: organizations.personal,
  lowBalanceThreshold: organizations.lowBalanceThreshold,
  lowBalanceAlerted: organizations.lowBalanceAlerted,
  disabledAt: organizations.disabledAt,
  deletedAt: organizations.deletedAt,
  disputeHoldAt: organizations.disputeHoldAt,
  /** A personal organisation is disabled with its user. */
  userDisabledAt: users.disabledAt,
  /** Whole credits; null unless auto top-up is active (AUTO-TOP-UP.md). */
  autoTopUpThreshold: autoTopUpSettings.threshold,
};

/** Organisations with their user (a personal one's) and their active auto top-up. */
export const chargedOrganization = (q: Pick<Queries, "select">) =>
  q
    .select(CHARGED_ORGANIZATION_COLUMNS)
    .from(organizations)
    .leftJoin(users, sql`${users.id} = ${organizations.id}`)
    .leftJoin(
      autoTopUpSettings,
      sql`${autoTopUpSettings.orgId} = ${organizations.id} and ${autoTopUpSettings.status} = 'active'`,
    );

/** Nothing is charged to an organisation disabled or deleted, or a personal one whose user is disabled. */
export const isClosedToCharges = (o: {
  personal: boolean;
  disabledAt: Date | null;
  deletedAt: Date | null;
  userDisabledAt: Date | null;
}) => o.disabledAt !== null || o.deletedAt !== null || (o.personal && o.userDisabledAt !== null);

const lockOrganizations = statement("lock_organizations", (q, p) =>
  chargedOrganization(q)
    .where(
      sql`${organizations.id} = any(array(select unnest(${list(p("userIds"), "uuid")}) union select ${apiKeys.userId} from ${apiKeys} where ${apiKeys.id} = any(${list(p("keyIds"), "text")})))`,
    )
    .orderBy(asc(organizations.id))
    // NO KEY UPDATE, as lockUser (ledger-store.ts) takes it: a credit lease's charge inserted
    // beside the batch checks its foreign key to the organisation without waiting for the batch.
    .for("no key update", { of: organizations }),
);

const keysOfBatch = statement("api_keys_of_batch", (q, p) =>
  q
    // Flat, as two-trip statements must be: the key's columns and its creator's state beside them.
    .select({
      ...BATCH_KEY_COLUMNS,
      creatorDisabledAt: users.disabledAt,
      memberCap: organizationMembers.monthlyCreditCap,
      /** Null when the creator is not (any more) a member of the key's organisation. */
      memberUserId: organizationMembers.userId,
    })
    .from(apiKeys)
    .leftJoin(users, sql`${users.id} = ${creatorOf}`)
    .leftJoin(
      organizationMembers,
      sql`${organizationMembers.orgId} = ${apiKeys.userId} and ${organizationMembers.userId} = ${creatorOf}`,
    )
    .where(sql`${apiKeys.id} = any(${list(p("keyIds"), "text")})`),
);

/** What the batch's members (the creators of its keys) spent in its months. */
const memberUsageOfBatch = statement("member_usage_of_batch", (q, p) =>
  q
    // Two keys of one member give the same row twice; batchState's map keeps one.
    .select({
      orgId: memberCreditUsage.orgId,
      userId: memberCreditUsage.userId,
      month: memberCreditUsage.month,
      amount: memberCreditUsage.amount,
      reserved: memberCreditUsage.reserved,
      capWarned: memberCreditUsage.capWarned,
    })
    .from(memberCreditUsage)
    .innerJoin(
      apiKeys,
      sql`${apiKeys.userId} = ${memberCreditUsage.orgId} and ${creatorOf} = ${memberCreditUsage.userId}`,
    )
    .where(
      sql`${apiKeys.id} = any(${list(p("keyIds"), "text")}) and ${memberCreditUsage.month} = any(${list(p("months"), "date")})`,
    ),
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
    .select({ ...GRANT_COLUMNS, reserved: creditGrants.reserved, userId: creditGrants.userId })
    .from(creditGrants)
    .where(ofBatch(creditGrants.userId, p))
    .orderBy(...NEWEST_GRANT_FIRST),
);

const keyUsageOfBatch = statement("key_usage_of_batch", (q, p) =>
  q
    .select({
      apiKeyId: apiKeyUsage.apiKeyId,
      month: apiKeyUsage.month,
      amount: apiKeyUsage.amount,
      reserved: apiKeyUsage.reserved,
    })
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
    lockOrganizations(values),
    keysOfBatch(values),
    earlierSpends(values),
    grantsOfBatch(values),
    keyUsageOfBatch(values),
    memberUsageOfBatch(values),
  ] as const;
}

function batchState([locked, keyRows, earlierRows, grantRows, usageRows, memberRows]: Answers<
  ReturnType<typeof batchReads>
>): BatchState {
  const lockedIds = locked.map((u) => u.id);
  const grants = new Map<string, CreditGrant[]>(lockedIds.map((id) => [id, []]));
  const reservations = new Map<string, CreditGrant[]>();
  for (const row of grantRows) {
    const grant: ReservableGrant = { ...toCreditGrant(row), reserved: row.reserved };
    grants.get(row.userId)?.push(unreserved(grant));
    if (row.reserved > 0) {
      const held = reservations.get(row.userId) ?? [];
      held.push({ ...grant, remaining: row.reserved });
      reservations.set(row.userId, held);
    }
  }
  return {
    users: new Set(lockedIds),
    personal: new Set(locked.filter((o) => o.personal).map((o) => o.id)),
    disabled: new Set(locked.filter(isClosedToCharges).map((o) => o.id)),
    held: new Set(locked.filter((u) => u.disputeHoldAt !== null).map((u) => u.id)),
    thresholds: new Map(locked.map((u) => [u.id, u.lowBalanceThreshold])),
    alerted: new Map(locked.map((o) => [o.id, o.lowBalanceAlerted])),
    autoTopUpThresholds: new Map(
      locked.flatMap((o) =>
        o.autoTopUpThreshold === null ? [] : [[o.id, toMillicredits(o.autoTopUpThreshold)]],
      ),
    ),
    keys: new Map(
      keyRows.map(({ creatorDisabledAt, memberCap, memberUserId, ...key }) => [
        key.id,
        {
          ...key,
          memberId: key.shared ? null : (key.createdBy ?? key.userId),
          // A shared key outlives its creator's membership and account (ORGANISATIONS.md); a
          // member's key stops when they leave or staff disable them.
          creatorActive: key.shared || (creatorDisabledAt === null && memberUserId !== null),
          memberCap: key.shared ? null : memberCap,
        },
      ]),
    ),
    grants,
    reservations,
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
            memberCapNearing: null,
            autoTopUpDue: false,
          },
          asked: e,
        },
      ]),
    ),
    usage: new Map(usageRows.map((u) => [pairKey(u.apiKeyId, u.month), u.amount])),
    // Null from a row the code before migration 0023 inserted: nothing reserved.
    keyReserved: new Map(usageRows.map((u) => [pairKey(u.apiKeyId, u.month), u.reserved ?? 0])),
    memberUsage: new Map(memberRows.map((u) => [memberKey(u.orgId, u.userId, u.month), u.amount])),
    memberReserved: new Map(memberRows.map((u) => [memberKey(u.orgId, u.userId, u.month), u.reserved ?? 0])),
    // Null from a row the code before migration 0024 inserted: not warned.
    capWarned: new Map(memberRows.map((u) => [memberKey(u.orgId, u.userId, u.month), u.capWarned ?? false])),
  };
}

const memberKey = (orgId: string, memberId: string, month: string) =>
  `${orgId}\u0000${memberId}\u0000${month}`;

/** The spends of a batch, decided in arrival order and written together; one answer per request. */
export function spendBatch(db: Db, requests: readonly SpendRequest[]): Promise<SpendResult[]> {
  return twoTripTransaction(db, spendSteps(requests));
}

/** A batch's transaction: its reads, and from their answers each spend's decision and the writes. */
function spendSteps(
  requests: readonly SpendRequest[],
): TwoTripSteps<ReturnType<typeof batchReads>, SpendResult[]> {
  return {
    reads: batchReads(requests),
    decide: (answers) => {
      const state = batchState(answers);
      const alertedAsRead = new Map(state.alerted);
      const results: SpendResult[] = [];
      const spendRows: (typeof creditSpends.$inferInsert)[] = [];
      const taken = new Map<string, number>();
      const addedUsage = new Map<string, typeof apiKeyUsage.$inferInsert>();
      const daily = new Map<string, typeof usageDaily.$inferInsert>();
      const addedMemberUsage = new Map<string, typeof memberCreditUsage.$inferInsert>();
      for (const request of requests) {
        const answer = decide(state, request);
        results.push(answer.result);
        if (!answer.spend) continue;
        const { takes, row, member } = answer.spend;
        spendRows.push(row);
        if (member) {
          const key = memberKey(member.orgId, member.userId, member.month);
          // jsonRows sends every column: `reserved` is 0 for a new row, and the upsert adds only
          // amounts; `cap_warned` only ever turns true here (a cap change re-arms it).
          const added = addedMemberUsage.get(key) ?? { ...member, amount: 0, reserved: 0, capWarned: false };
          added.amount += request.amount;
          added.capWarned = state.capWarned.get(key) ?? false;
          addedMemberUsage.set(key, added);
        }
        for (const take of takes) taken.set(take.grantId, (taken.get(take.grantId) ?? 0) + take.amount);
        const meter = request.meter;
        addToDay(daily, row, meter);
        if (meter?.apiKeyId) {
          const usageKey = pairKey(meter.apiKeyId, meter.month);
          const added = addedUsage.get(usageKey) ?? {
            apiKeyId: meter.apiKeyId,
            month: meter.month,
            amount: 0,
            reserved: 0,
          };
          added.amount += request.amount;
          addedUsage.set(usageKey, added);
        }
      }
      return {
        result: results,
        writes: batchWrites(spendRows, {
          taken,
          usage: sortedByKey(addedUsage),
          daily: sortedByKey(daily),
          memberUsage: sortedByKey(addedMemberUsage),
          latches: [...state.alerted].filter(([id, alerted]) => alertedAsRead.get(id) !== alerted),
        }),
      };
    },
  };
}

/**
 * A map's values in the order of its keys: two batches writing the same rows take their row locks
 * in one order. A lease's write does not sort; when it and a batch wait on each other, its lock
 * timeout ends its wait before PostgreSQL's deadlock check would end either (decision 051).
 */
const sortedByKey = <V>(rows: ReadonlyMap<string, V>): V[] =>
  [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);

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
  spend?: {
    takes: SpendTake[];
    row: typeof creditSpends.$inferInsert;
    /** The member whose month the charge counts in (a member's key), if any. */
    member?: { orgId: string; userId: string; month: string } | undefined;
  };
}

/** `{[name]: value}` when there is a value, else nothing (exactOptionalPropertyTypes). */
const optional = <K extends string, V>(name: K, value: V | undefined) =>
  (value === undefined ? {} : { [name]: value }) as Partial<Record<K, V>>;

/** One spend against the batch's state as the spends before it in the batch left it. */
function decide(state: BatchState, request: SpendRequest): Decision {
  const meter = request.meter;
  const keyId = keyIdOf(request);
  const key = keyId === undefined ? undefined : state.keys.get(keyId);
  if (keyId !== undefined) {
    const refusal = keyRefusal(key, meter?.feature, request.now);
    if (refusal) return { result: { ok: false, reason: refusal } };
  }
  const userId = key?.userId ?? request.userId;
  if (userId === undefined || !state.users.has(userId) || (!key && !state.personal.has(userId))) {
    return { result: { ok: false, reason: "no_user" } };
  }
  const idempotency = pairKey(userId, request.idempotencyKey);
  const earlier = state.earlier.get(idempotency);
  if (earlier) {
    if (!isSameCharge(earlier.asked, fingerprintOf(request))) {
      return { result: { ok: false, reason: "idempotency_mismatch" } };
    }
    return {
      result: {
        ...earlier.result,
        repeated: true,
        lowBalanceCrossed: null,
        memberCapNearing: null,
        autoTopUpDue: false,
      },
    };
  }
  // A disabled account's keys are inactive, and nothing else may charge it either; nor one on hold.
  // So are the keys of a member who left or whom staff disabled (the organisation goes on).
  if (state.disabled.has(userId)) return { result: { ok: false, reason: key ? "no_key" : "disabled" } };
  if (key && !key.creatorActive) return { result: { ok: false, reason: "no_key" } };
  if (state.held.has(userId)) return { result: { ok: false, reason: "dispute_hold" } };

  const usageKey = key && meter ? pairKey(key.id, meter.month) : undefined;
  const used = usageKey ? (state.usage.get(usageKey) ?? 0) : 0;
  const keyReserved = usageKey ? (state.keyReserved.get(usageKey) ?? 0) : 0;
  if (key?.monthlyCreditLimit != null && used + keyReserved + request.amount > key.monthlyCreditLimit) {
    const held = used + request.amount <= key.monthlyCreditLimit;
    return {
      result: { ok: false, reason: "key_limit", ...(held ? { leasesInTheWay: { apiKeyId: key.id } } : {}) },
    };
  }
  const memberUsageKey = key?.memberId && meter ? memberKey(userId, key.memberId, meter.month) : undefined;
  const memberUsed = memberUsageKey ? (state.memberUsage.get(memberUsageKey) ?? 0) : 0;
  // What leases hold of the member's month counts against the cap as spent (not its warning).
  const memberCounted = memberUsed + (memberUsageKey ? (state.memberReserved.get(memberUsageKey) ?? 0) : 0);
  const cap = key?.memberCap ?? null;
  const capEvent = (used: number): MemberCapEvent | undefined =>
    key?.memberId && meter && cap !== null
      ? { orgId: userId, memberId: key.memberId, month: meter.month, cap, used }
      : undefined;
  if (exceedsCap(memberCounted, request.amount, cap)) {
    const held = key?.memberId && !exceedsCap(memberUsed, request.amount, cap);
    return {
      result: {
        ok: false,
        reason: "member_cap",
        ...optional("memberCap", capEvent(memberUsed)),
        ...(held && key?.memberId ? { leasesInTheWay: { orgId: userId, memberId: key.memberId } } : {}),
      },
    };
  }
  const grants = state.grants.get(userId) ?? [];
  const plan = planSpend(grants, request.amount, request.now);
  const autoTopUpThreshold = state.autoTopUpThresholds.get(userId);
  if (!plan.ok) {
    const due = autoTopUpThreshold !== undefined;
    const held = balance(grants, request.now) + balance(state.reservations.get(userId) ?? [], request.now);
    return {
      result: {
        ok: false,
        reason: "insufficient",
        ...(due ? { autoTopUpOrg: userId } : {}),
        ...(held >= request.amount ? { leasesInTheWay: { orgId: userId } } : {}),
      },
    };
  }

  // Auto top-up's threshold is crossed by what no lease holds (decision 051); the low-balance
  // alert is a latch (domain/alert-latches.ts). The answer's balance is the customer's, what
  // leases hold included.
  const unreservedBefore = balance(grants, request.now);
  const unreservedAfter = unreservedBefore - request.amount;
  const balanceAfter = unreservedAfter + balance(state.reservations.get(userId) ?? [], request.now);
  state.grants.set(userId, applySpend(grants, plan.takes));
  if (usageKey) state.usage.set(usageKey, used + request.amount);
  if (memberUsageKey) state.memberUsage.set(memberUsageKey, memberUsed + request.amount);
  const spendId = randomUUID();
  const threshold = state.thresholds.get(userId) ?? null;
  const low = lowBalanceStep({
    threshold,
    alerted: state.alerted.get(userId) ?? false,
    unreservedBefore,
    wholeAfter: balanceAfter,
  });
  state.alerted.set(userId, low.latched);
  const warning = memberUsageKey
    ? capWarningStep(state.capWarned.get(memberUsageKey) ?? false, memberUsed + request.amount, cap)
    : undefined;
  if (memberUsageKey && warning) state.capWarned.set(memberUsageKey, warning.latched);
  const result = {
    ok: true,
    userId,
    balanceAfter,
    repeated: false,
    spendId,
    amount: request.amount,
    lowBalanceCrossed: low.mail ? threshold : null,
    memberCapNearing: warning?.mail ? (capEvent(memberUsed + request.amount) ?? null) : null,
    autoTopUpDue: autoTopUpThreshold !== undefined && unreservedAfter < autoTopUpThreshold,
  } as const;
  state.earlier.set(idempotency, { result, asked: fingerprintOf(request) });
  return {
    result,
    spend: {
      takes: plan.takes,
      member:
        key?.memberId && meter ? { orgId: userId, userId: key.memberId, month: meter.month } : undefined,
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
        ), member_usage as (
          ${insertJsonRows(memberCreditUsage, p("memberUsage"))}
          ${onConflict([memberCreditUsage.orgId, memberCreditUsage.userId, memberCreditUsage.month])}
          do update set amount = ${memberCreditUsage.amount} + excluded.amount,
            cap_warned = coalesce(${memberCreditUsage.capWarned}, false) or coalesce(excluded.cap_warned, false)
        ), low_balance_latches as (
          update ${organizations} set low_balance_alerted = latch.alerted
          from unnest(${list(p("latchOrgIds"), "uuid")}, ${list(p("latchValues"), "boolean")}) as latch(id, alerted)
          where ${organizations.id} = latch.id
        )
        select 1`,
  ),
);

/** What a batch writes besides its spends; the rows of each table sorted by key (`sortedByKey`). */
interface BatchOutcome {
  /** Milli-credits taken per grant. */
  taken: ReadonlyMap<string, number>;
  usage: readonly (typeof apiKeyUsage.$inferInsert)[];
  daily: readonly (typeof usageDaily.$inferInsert)[];
  memberUsage: readonly (typeof memberCreditUsage.$inferInsert)[];
  /** The organisations whose low-balance latch the batch changed, with its new value. */
  latches: readonly (readonly [string, boolean])[];
}

/** The batch's outcome (none when it spent nothing). */
function batchWrites(
  spendRows: readonly (typeof creditSpends.$inferInsert)[],
  outcome: BatchOutcome,
): Bound<unknown>[] {
  if (spendRows.length === 0) return [];
  const grantIds = [...outcome.taken.keys()].sort();
  return [
    writeBatch({
      grantIds,
      amounts: grantIds.map((id) => String(outcome.taken.get(id))),
      spends: jsonRows(creditSpends, spendRows),
      daily: jsonRows(usageDaily, outcome.daily),
      keyUsage: jsonRows(apiKeyUsage, outcome.usage),
      memberUsage: jsonRows(memberCreditUsage, outcome.memberUsage),
      latchOrgIds: outcome.latches.map(([id]) => id),
      latchValues: outcome.latches.map(([, alerted]) => String(alerted)),
    }),
  ];
}
