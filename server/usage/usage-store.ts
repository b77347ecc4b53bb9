// Usage history read from the spends (credit_spends): sums per Berlin day, feature and API key, and
// the charges themselves page by page for the CSV. Both read the index on (user_id, created_at)
// that carries the summed columns, so neither visits the table (migration 0003).
import { and, asc, eq, gt, gte, lt, or, type SQL, sql } from "drizzle-orm";
import type { UsageDimension } from "../../contract/usage.ts";
import { apiKeys, creditSpends } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import type { UsageRange } from "./usage-range.ts";

/** A group of charges; amounts in milli-credits. */
export interface UsageGroup {
  date?: string;
  feature?: string | null;
  apiKeyId?: string | null;
  apiKeyName?: string | null;
  apiKeyPrefix?: string | null;
  uses: number;
  credits: number;
}

// The zone is our constant, written into the SQL text rather than bound: GROUP BY must repeat the
// selected expression exactly, and two bound parameters are two different expressions to PostgreSQL.
const berlinDay = sql<string>`to_char(${creditSpends.createdAt} at time zone 'Europe/Berlin', 'YYYY-MM-DD')`;
const uses = sql<number>`sum(coalesce(${creditSpends.quantity}, 1))`.mapWith(Number);
const credits = sql<number>`sum(${creditSpends.amount})`.mapWith(Number);

const inRange = (userId: string, range: UsageRange) =>
  and(
    eq(creditSpends.userId, userId),
    gte(creditSpends.createdAt, range.start),
    lt(creditSpends.createdAt, range.end),
  );

/** The user's charges in `range`, summed per combination of `dimensions`, in day/feature/key order. */
export async function usageGroups(
  db: Db,
  userId: string,
  range: UsageRange,
  dimensions: readonly UsageDimension[],
): Promise<UsageGroup[]> {
  const byDay = dimensions.includes("day");
  const byFeature = dimensions.includes("feature");
  const byKey = dimensions.includes("api_key");
  const keys: SQL[] = [];
  if (byDay) keys.push(sql`1`);
  if (byFeature) keys.push(sql`${creditSpends.feature}`);
  if (byKey) keys.push(sql`${creditSpends.apiKeyId}`, sql`${apiKeys.name}`, sql`${apiKeys.prefix}`);
  const rows = await db
    .select({
      date: byDay ? berlinDay : sql<null>`null`,
      feature: byFeature ? creditSpends.feature : sql<null>`null`,
      apiKeyId: byKey ? creditSpends.apiKeyId : sql<null>`null`,
      apiKeyName: byKey ? apiKeys.name : sql<null>`null`,
      apiKeyPrefix: byKey ? apiKeys.prefix : sql<null>`null`,
      uses,
      credits,
    })
    .from(creditSpends)
    .leftJoin(apiKeys, eq(apiKeys.id, creditSpends.apiKeyId))
    .where(inRange(userId, range))
    // GROUP BY 1 is the first selected column, the Berlin day, whose text has a bound nothing.
    .groupBy(...keys)
    .orderBy(...keys.map((key) => sql`${key} nulls first`));
  return rows.map((row) => ({
    ...(byDay ? { date: row.date as string } : {}),
    ...(byFeature ? { feature: row.feature } : {}),
    ...(byKey ? { apiKeyId: row.apiKeyId, apiKeyName: row.apiKeyName, apiKeyPrefix: row.apiKeyPrefix } : {}),
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
}

/** Where a page of charges ends: the next page starts after it. */
export type ChargeCursor = Pick<UsageCharge, "createdAt" | "id">;

/** Up to `limit` of the user's charges in `range` after `cursor`, oldest first. */
export async function usageCharges(
  db: Db,
  userId: string,
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
  return db
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
    })
    .from(creditSpends)
    .leftJoin(apiKeys, eq(apiKeys.id, creditSpends.apiKeyId))
    .where(and(inRange(userId, range), after))
    .orderBy(asc(creditSpends.createdAt), asc(creditSpends.id))
    .limit(limit);
}
