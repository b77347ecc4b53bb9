// Usage history: sums per Berlin day, feature and API key from the daily sums the spends keep
// (usage_daily), and the charges themselves (credit_spends) page by page for the CSV, along the
// index on (user_id, created_at).
import { and, asc, eq, gt, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { UsageDimension } from "../../contract/usage.ts";
import { apiKeys, creditSpends, usageDaily } from "../db/schema/index.ts";
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

const uses = sql<number>`sum(${usageDaily.uses})`.mapWith(Number);
const credits = sql<number>`sum(${usageDaily.credits})`.mapWith(Number);
/** "" in usage_daily is "none" in the answer. */
const orNull = (column: AnyPgColumn) => sql<string | null>`nullif(${column}, '')`;

/**
 * The user's charges in `range`, summed per combination of `dimensions`, in day/feature/key order.
 * Read from the daily sums the spends keep (usage_daily): at most one row per day, feature and key.
 */
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
  if (byDay) keys.push(sql`${usageDaily.day}`);
  if (byFeature) keys.push(sql`${usageDaily.feature}`);
  if (byKey) keys.push(sql`${usageDaily.apiKeyId}`, sql`${apiKeys.name}`, sql`${apiKeys.prefix}`);
  const rows = await db
    .select({
      date: byDay ? sql<string>`${usageDaily.day}::text` : sql<null>`null`,
      feature: byFeature ? orNull(usageDaily.feature) : sql<null>`null`,
      apiKeyId: byKey ? orNull(usageDaily.apiKeyId) : sql<null>`null`,
      apiKeyName: byKey ? apiKeys.name : sql<null>`null`,
      apiKeyPrefix: byKey ? apiKeys.prefix : sql<null>`null`,
      uses,
      credits,
    })
    .from(usageDaily)
    .leftJoin(apiKeys, eq(apiKeys.id, usageDaily.apiKeyId))
    .where(and(eq(usageDaily.userId, userId), gte(usageDaily.day, range.from), lte(usageDaily.day, range.to)))
    .groupBy(...keys)
    // "" (no feature, no key) sorts first, as the nulls it stands for did.
    .orderBy(...keys);
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
    .where(
      and(
        eq(creditSpends.userId, userId),
        gte(creditSpends.createdAt, range.start),
        lt(creditSpends.createdAt, range.end),
        after,
      ),
    )
    .orderBy(asc(creditSpends.createdAt), asc(creditSpends.id))
    .limit(limit);
}
