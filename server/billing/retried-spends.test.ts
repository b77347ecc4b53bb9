// What the caller of a charge run again after a lost COMMIT answer is told (the real thing on
// PostgreSQL: spends.test.ts, "a charge whose COMMIT went through with no answer back").
import { describe, expect, it } from "vitest";
import { settleRetriedSpend } from "./retried-spends.ts";
import type { SpendResult } from "./spends.ts";

describe("settleRetriedSpend", () => {
  const charged: SpendResult = {
    ok: true,
    userId: "u",
    balanceAfter: 4000,
    repeated: false,
    spendId: "s1",
    amount: 1000,
    lowBalanceCrossed: 5000,
    memberCapNearing: null,
    autoTopUpDue: true,
  };
  const repeatOf = (spendId: string): SpendResult => ({
    ...charged,
    spendId,
    repeated: true,
    lowBalanceCrossed: null,
    autoTopUpDue: false,
  });

  it("answers the first try's charge when the retry finds that very spend", () => {
    expect(settleRetriedSpend(charged, repeatOf("s1"))).toBe(charged);
  });

  it("answers the retry when it found another spend, made a new one, or was refused", () => {
    const other = repeatOf("s0");
    expect(settleRetriedSpend(charged, other)).toBe(other);
    const fresh: SpendResult = { ...charged, spendId: "s2" };
    expect(settleRetriedSpend(charged, fresh)).toBe(fresh);
    const refused: SpendResult = { ok: false, reason: "insufficient" };
    expect(settleRetriedSpend<SpendResult>(charged, refused)).toBe(refused);
    // A first try that was refused wrote nothing: whatever the retry found is not its own.
    const found = repeatOf("s1");
    expect(settleRetriedSpend(refused, found)).toBe(found);
    const disabled: SpendResult = { ok: false, reason: "disabled" };
    expect(settleRetriedSpend(refused, disabled)).toBe(disabled);
  });
});
