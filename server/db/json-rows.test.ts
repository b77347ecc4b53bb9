import { getTableColumns } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { jsonRows } from "./json-rows.ts";
import { creditSpends, usageDaily } from "./schema/index.ts";

describe("jsonRows", () => {
  const createdAt = new Date("2026-11-30T02:40:00.123Z");
  const spend = {
    id: "00000000-0000-4000-8000-000000000001",
    userId: "00000000-0000-4000-8000-000000000002",
    amount: 1500,
    reason: "Background remover × 1 (one person)",
    idempotencyKey: "charge-1",
    balanceAfter: 98_500,
    takes: [{ grantId: "00000000-0000-4000-8000-000000000003", amount: 1500 }],
    requestedBy: null,
    apiKeyId: "abcdefghijkl",
    feature: "background-remover",
    people: "one",
    quantity: 1,
    createdAt,
  } satisfies typeof creditSpends.$inferInsert;

  it("keys each row by column name, with every column present and a missing one null", () => {
    const [row] = JSON.parse(jsonRows(creditSpends, [{ ...spend, requestedBy: undefined }])) as Record<
      string,
      unknown
    >[];
    expect(row).toMatchObject({
      id: spend.id,
      user_id: spend.userId,
      idempotency_key: "charge-1",
      balance_after: 98_500,
      takes: spend.takes,
      requested_by: null,
      api_key_id: "abcdefghijkl",
    });
    expect(Object.keys(row ?? {}).sort()).toEqual(
      Object.values(getTableColumns(creditSpends))
        .map((c) => c.name)
        .sort(),
    );
  });

  it("writes an instant as Date's own JSON does, to the millisecond", () => {
    const text = jsonRows(creditSpends, [spend]);
    expect(JSON.parse(text)[0].created_at).toBe("2026-11-30T02:40:00.123Z");
    expect(text).toContain(`"created_at":${JSON.stringify(createdAt)}`);
  });

  it("gives each table's rows in order, and an empty list as []", () => {
    const daily = (day: string, uses: number) => ({
      userId: spend.userId,
      day,
      feature: "comic",
      apiKeyId: "abcdefghijkl",
      uses,
      credits: uses * 1000,
    });
    const rows = JSON.parse(jsonRows(usageDaily, [daily("2026-11-29", 1), daily("2026-11-30", 2)]));
    expect(rows.map((r: { day: string; uses: number }) => [r.day, r.uses])).toEqual([
      ["2026-11-29", 1],
      ["2026-11-30", 2],
    ]);
    expect(jsonRows(usageDaily, [])).toBe("[]");
  });
});
