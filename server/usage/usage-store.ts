// Usage history: sums per Berlin day, feature, API key and member from the daily sums the spends
// keep (usage_daily), and the charges themselves (credit_spends) page by page for the CSV, along
// the index on (user_id, created_at). The user_id columns name the paying organisation.
import { and, asc, eq, gt, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { type MemberGroup, memberGroupLabel, type UsageDimension } from "../../contract/usage.ts";
import { apiKeys, creditSpends, usageDaily, users } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import type { UsageRange } from "./usage-range.ts";

/**
 * Whose charges a reader sees: the organisation's, all of them or (a developer: ORGANISATIONS.md,
 * "usage of everyone (own: charges of the keys they made)") only those of the keys `madeBy` made.
 */
export interface UsageScope {
  orgId: string;
  madeBy?: string;
}

/** A bare id is the whole organisation's scope (the account export's use). */
const scopeOf = (scope: UsageScope | string): UsageScope =>
  typeof scope === "string" ? { orgId: scope } : scope;

/** The charges of keys `madeBy` made; undefined (no condition) for the whole organisation's. */
const madeByCondition = (scope: UsageScope) =>
  scope.madeBy === undefined ? undefined : eq(apiKeys.createdBy, scope.madeBy);

/** The user who made a key: its maker, or (a key of a rolling deploy's old instance) its personal organisation's user. */
const keyMaker = sql`coalesce(${apiKeys.createdBy}, ${apiKeys.userId})`;

/**
 * group_by=member, in SQL so the database sums each group once: the charges without a key form one
 * group, those of the shared keys another whoever made them, and every other key counts for the
 * member who made it. A key whose maker's account is gone counts for no named member.
 */
function memberColumns(keyId: AnyPgColumn | SQL) {
  const hasKey = sql`${keyId} <> ''`;
  const ofMember = sql`${hasKey} and not coalesce(${apiKeys.shared}, false)`;
  return {
    group: sql<MemberGroup>`case when not (${hasKey}) then 'without_key' when ${apiKeys.shared} then 'shared_keys' else 'member' end`,
    id: sql<string | null>`case when ${ofMember} then ${users.id}::text end`,
    username: sql<string | null>`case when ${ofMember} then ${users.username} end`,
    /** Members by name first, then the shared keys, then the charges without a key. */
    order: sql`case when not (${hasKey}) then 2 when ${apiKeys.shared} then 1 else 0 end`,
  };
}

/** A group of charges; amounts in milli-credits. */
export interface UsageGroup {
  date?: string;
  feature?: string | null;
  apiKeyId?: string | null;
  apiKeyName?: string | null;
  apiKeyPrefix?: string | null;
  memberGroup?: MemberGroup;
  memberId?: string | null;
  memberUsername?: string | null;
  uses: number;
  credits: number;
}

const uses = sql<number>`sum(${usageDaily.uses})`.mapWith(Number);
const credits = sql<number>`sum(${usageDaily.credits})`.mapWith(Number);
/** "" in usage_daily is "none" in the answer. */
const orNull = (column: AnyPgColumn) => sql<string | null>`nullif(${column}, '')`;

/**
 * The scope's charges in `range`, summed per combination of `dimensions`, in day/feature/key/member
 * order. Read from the daily sums the spends keep (usage_daily): at most one row per day, feature
 * and key.
 */
export async function usageGroups(
  db: Db,
  scope: UsageScope,
  range: UsageRange,
  dimensions: readonly UsageDimension[],
): Promise<UsageGroup[]> {
  const byDay = dimensions.includes("day");
  const byFeature = dimensions.includes("feature");
  const byKey = dimensions.includes("api_key");
  const byMember = dimensions.includes("member");
  const member = memberColumns(usageDaily.apiKeyId);
  const keys: SQL[] = [];
  const order: SQL[] = [];
  if (byDay) keys.push(sql`${usageDaily.day}`);
  if (byFeature) keys.push(sql`${usageDaily.feature}`);
  if (byKey) keys.push(sql`${usageDaily.apiKeyId}`, sql`${apiKeys.name}`, sql`${apiKeys.prefix}`);
  // "" (no feature, no key) sorts first, as the nulls it stands for did.
  order.push(...keys);
  if (byMember) {
    keys.push(member.group, member.id, member.username, member.order);
    order.push(member.order, member.username, member.id);
  }
  const rows = await db
    .select({
      date: byDay ? sql<string>`${usageDaily.day}::text` : sql<null>`null`,
      feature: byFeature ? orNull(usageDaily.feature) : sql<null>`null`,
      apiKeyId: byKey ? orNull(usageDaily.apiKeyId) : sql<null>`null`,
      apiKeyName: byKey ? apiKeys.name : sql<null>`null`,
      apiKeyPrefix: byKey ? apiKeys.prefix : sql<null>`null`,
      memberGroup: byMember ? member.group : sql<null>`null`,
      memberId: byMember ? member.id : sql<null>`null`,
      memberUsername: byMember ? member.username : sql<null>`null`,
      uses,
      credits,
    })
    .from(usageDaily)
    .leftJoin(apiKeys, eq(apiKeys.id, usageDaily.apiKeyId))
    .leftJoin(users, sql`${users.id} = ${keyMaker}`)
    .where(
      and(
        eq(usageDaily.userId, scope.orgId),
        gte(usageDaily.day, range.from),
        lte(usageDaily.day, range.to),
        madeByCondition(scope),
      ),
    )
    .groupBy(...keys)
    .orderBy(...order);
  return rows.map((row) => ({
    ...(byDay ? { date: row.date as string } : {}),
    ...(byFeature ? { feature: row.feature } : {}),
    ...(byKey ? { apiKeyId: row.apiKeyId, apiKeyName: row.apiKeyName, apiKeyPrefix: row.apiKeyPrefix } : {}),
    ...(byMember
      ? {
          memberGroup: row.memberGroup as MemberGroup,
          memberId: row.memberId,
          memberUsername: row.memberUsername,
        }
      : {}),
    uses: row.uses,
    credits: row.credits,
  }));
}

/** One charge as the CSV lists it. */
export interface UsageCharge {
  id: string;
  createdAt: Date;
  feature: string | null;
  people: "one" | "multiple" | null;
  quantity: number | null;
  amount: number;
  keyName: string | null;
  keyPrefix: string | null;
  idempotencyKey: string;
  /** Who made the charge's key, as the CSV's member column names them (memberGroupLabel). */
  member: string;
}

/** Where a page of charges ends: the next page starts after it. */
export type ChargeCursor = Pick<UsageCharge, "createdAt" | "id">;

/** Up to `limit` of the scope's charges in `range` after `cursor`, oldest first. */
export async function usageCharges(
  db: Db,
  scopeOrOrgId: UsageScope | string,
  range: UsageRange,
  cursor: ChargeCursor | undefined,
  limit: number,
): Promise<UsageCharge[]> {
  const after = cursor
    ? or(
        gt(creditSpends.createdAt, cursor.createdAt),
        and(eq(creditSpends.createdAt, cursor.createdAt), gt(creditSpends.id, cursor.id)),
      )
    : undefined;
  const scope = scopeOf(scopeOrOrgId);
  const member = memberColumns(sql`coalesce(${creditSpends.apiKeyId}, '')`);
  const rows = await db
    .select({
      id: creditSpends.id,
      createdAt: creditSpends.createdAt,
      feature: creditSpends.feature,
      people: creditSpends.people,
      quantity: creditSpends.quantity,
      amount: creditSpends.amount,
      keyName: apiKeys.name,
      keyPrefix: apiKeys.prefix,
      idempotencyKey: creditSpends.idempotencyKey,
      memberGroup: member.group,
      memberUsername: member.username,
    })
    .from(creditSpends)
    .leftJoin(apiKeys, eq(apiKeys.id, creditSpends.apiKeyId))
    .leftJoin(users, sql`${users.id} = ${keyMaker}`)
    .where(
      and(
        eq(creditSpends.userId, scope.orgId),
        gte(creditSpends.createdAt, range.start),
        lt(creditSpends.createdAt, range.end),
        after,
        madeByCondition(scope),
      ),
    )
    .orderBy(asc(creditSpends.createdAt), asc(creditSpends.id))
    .limit(limit);
  return rows.map(({ memberGroup, memberUsername, ...charge }) => ({
    ...charge,
    member: memberGroupLabel(memberGroup, memberUsername),
  }));
}
