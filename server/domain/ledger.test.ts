import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addMonths,
  applySpend,
  balance,
  type CreditGrant,
  compareSpendOrder,
  fromMillicredits,
  type GrantKind,
  grantExpiry,
  isCreditAmount,
  isLive,
  newGrant,
  planSpend,
  spendableGrants,
  toMillicredits,
} from "./ledger.ts";

const NOW = new Date("2025-06-15T12:00:00.000Z");
const DAY = 86_400_000;
const at = (offsetDays: number) => new Date(NOW.getTime() + offsetDays * DAY);

/** A grant for tests: amounts in whole credits unless `milli` is set, times in days from NOW. */
function grant(
  id: string,
  kind: GrantKind,
  remainingCredits: number,
  opts: { grantedDaysAgo?: number; expiresInDays?: number | null; amountCredits?: number } = {},
): CreditGrant {
  // Not toMillicredits: the tables below are built while the file is collected, and a fault in the
  // module under test must fail a test, not the collection (Stryker counts only failed tests).
  const milli = (credits: number) => Math.round(credits * 1000);
  const remaining = milli(remainingCredits);
  const defaultExpiry = kind === "free" ? null : kind === "topup" ? 150 : 20;
  const expiresInDays = opts.expiresInDays === undefined ? defaultExpiry : opts.expiresInDays;
  return {
    id,
    kind,
    amount: opts.amountCredits === undefined ? remaining : milli(opts.amountCredits),
    remaining,
    grantedAt: at(-(opts.grantedDaysAgo ?? 10)),
    expiresAt: expiresInDays === null ? null : at(expiresInDays),
    source: `${kind} ${id}`,
  };
}

describe("credit units", () => {
  it.each([
    [0.1, 100],
    [0.3, 300],
    [1, 1000],
    [2, 2000],
    [10, 10_000],
    [1000.3, 1_000_300],
    [50_000, 50_000_000],
    [0.001, 1],
    [0, 0],
    [-0, 0],
    [-1.5, -1500],
    // 16384.368 × 1000 is 16384367.999999998 in floating point: off by more than 1e-9, but within
    // the tolerance relative to the amount, so still exactly 16,384,368.
    [16384.368, 16_384_368],
    [16396.38, 16_396_380],
  ])("%d credits are %i milli-credits", (credits, milli) => {
    expect(Object.is(toMillicredits(credits), milli)).toBe(true);
  });

  it.each([[0.0001], [0.0005], [1.2345], [Number.NaN], [Number.POSITIVE_INFINITY], [1e16]])(
    "%d credits is refused (more than three decimals or not a usable number)",
    (credits) => {
      expect(() => toMillicredits(credits)).toThrow(RangeError);
    },
  );

  it.each([
    [100, 0.1],
    [300, 0.3],
    [1_000_300, 1000.3],
    [0, 0],
    [50_000_000, 50_000],
  ])("%i milli-credits read as %d credits", (milli, credits) => {
    expect(fromMillicredits(milli)).toBe(credits);
    expect(JSON.stringify(fromMillicredits(milli))).toBe(String(credits));
  });

  it.each([
    [Number.NaN, "Not a credit amount: NaN"],
    [Number.NEGATIVE_INFINITY, "Not a credit amount: -Infinity"],
    [1.2345, "Credit amounts have at most three decimals: 1.2345"],
    [1e16, "Credit amounts have at most three decimals: 10000000000000000"],
  ])("says why %d credits is refused", (credits, message) => {
    expect(() => toMillicredits(credits)).toThrow(new RangeError(message));
  });

  it("refuses fractional milli-credits on the way out", () => {
    expect(() => fromMillicredits(0.5)).toThrow(new RangeError("Not a whole number of milli-credits: 0.5"));
  });

  it("sums 0.1 ten times to exactly 1 (where floating point gives 0.9999999999999999)", () => {
    const tenths = Array.from({ length: 10 }, () => toMillicredits(0.1));
    expect(fromMillicredits(tenths.reduce((a, b) => a + b, 0))).toBe(1);
  });

  it.each([
    [0.1, true],
    [1, true],
    [0.001, true],
    [0, false],
    [-1, false],
    [0.0001, false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
    // Rounds to 0 milli-credits without a fourth decimal the tolerance would see: not an amount.
    [1e-13, false],
    [16384.368, true],
  ])("isCreditAmount(%d) is %s", (credits, valid) => {
    expect(isCreditAmount(credits)).toBe(valid);
  });
});

describe("addMonths (Berlin calendar, end-of-month clamp)", () => {
  it.each([
    ["an ordinary month", "2025-01-15T10:00:00.000Z", 1, "2025-02-15T10:00:00.000Z"],
    ["Jan 31 + 1 clamps to Feb 28", "2025-01-31T10:00:00.000Z", 1, "2025-02-28T10:00:00.000Z"],
    ["Jan 31 + 1 clamps to Feb 29 in a leap year", "2024-01-31T10:00:00.000Z", 1, "2024-02-29T10:00:00.000Z"],
    ["Mar 31 + 1 clamps to Apr 30", "2025-03-31T10:00:00.000Z", 1, "2025-04-30T10:00:00.000Z"],
    [
      "Jan 31 + 2 is Mar 31 (no compounding clamp)",
      "2025-01-31T10:00:00.000Z",
      2,
      "2025-03-31T09:00:00.000Z",
    ],
    ["Dec 31 + 1 is Jan 31 of the next year", "2025-12-31T12:00:00.000Z", 1, "2026-01-31T12:00:00.000Z"],
    [
      "Berlin midnight stays midnight across spring-forward",
      "2025-03-14T23:00:00.000Z",
      1,
      "2025-04-14T22:00:00.000Z",
    ],
    [
      "Berlin midnight stays midnight across fall-back",
      "2025-10-15T22:00:00.000Z",
      1,
      "2025-11-15T23:00:00.000Z",
    ],
    // 23:30 UTC on Jan 30 is already 00:30 on Jan 31 in Berlin: the Berlin date is what counts.
    ["the Berlin date counts, not the UTC date", "2025-01-30T23:30:00.000Z", 1, "2025-02-27T23:30:00.000Z"],
    [
      "landing in the spring-forward gap moves forward",
      "2025-01-30T01:30:00.000Z",
      2,
      "2025-03-30T01:30:00.000Z",
    ],
    [
      "six months from the end of August is the end of February",
      "2025-08-31T10:00:00.000Z",
      6,
      "2026-02-28T11:00:00.000Z",
    ],
    ["six months keeps the wall time across DST", "2025-05-10T08:00:00.000Z", 6, "2025-11-10T09:00:00.000Z"],
    ["twelve months from a leap day", "2024-02-29T12:00:00.000Z", 12, "2025-02-28T12:00:00.000Z"],
    ["minus one month from Mar 31", "2025-03-31T10:00:00.000Z", -1, "2025-02-28T11:00:00.000Z"],
    ["zero months", "2025-03-31T10:00:00.123Z", 0, "2025-03-31T10:00:00.123Z"],
  ])("%s: %s + %i months = %s", (_case, from, months, expected) => {
    expect(addMonths(new Date(from), months).toISOString()).toBe(expected);
  });

  it("adds to the original instant: chained clamps differ from one addition", () => {
    const jan31 = new Date("2025-01-31T10:00:00.000Z");
    expect(addMonths(addMonths(jan31, 1), 1).toISOString()).toBe("2025-03-28T10:00:00.000Z");
    expect(addMonths(jan31, 2).toISOString()).toBe("2025-03-31T09:00:00.000Z");
  });

  it("refuses fractional months", () => {
    expect(() => addMonths(NOW, 0.5)).toThrow(new RangeError("Whole months only: 0.5"));
  });
});

describe("grantExpiry and newGrant", () => {
  it.each([
    ["subscription", "2025-01-31T10:00:00.000Z", "2025-02-28T10:00:00.000Z"],
    ["topup", "2025-01-31T10:00:00.000Z", "2025-07-31T09:00:00.000Z"],
    ["free", "2025-01-31T10:00:00.000Z", null],
  ] as const)("a %s grant made at %s expires at %s", (kind, grantedAt, expected) => {
    expect(grantExpiry(kind, new Date(grantedAt))?.toISOString() ?? null).toBe(expected);
  });

  it("builds a grant to insert with its kind's expiry", () => {
    const g = newGrant("topup", 500_000, NOW, "500 credit pack", "topup:cs_1");
    expect(g).toEqual({
      kind: "topup",
      amount: 500_000,
      grantedAt: NOW,
      // 14:00 CEST in June is 14:00 CET in December: one hour later in UTC.
      expiresAt: new Date("2025-12-15T13:00:00.000Z"),
      source: "500 credit pack",
      fulfilmentKey: "topup:cs_1",
    });
  });

  it.each([[0], [-1], [0.5]])("refuses a grant of %d milli-credits", (amount) => {
    expect(() => newGrant("free", amount, NOW, "Free plan", "free:u1")).toThrow(
      new RangeError(`Grant amount must be > 0: ${amount}`),
    );
  });
});

describe("isLive: live on [grantedAt, expiresAt)", () => {
  const g = { grantedAt: at(-1), expiresAt: at(1) };
  it.each([
    ["one ms before it is granted", at(-1).getTime() - 1, false],
    ["the instant it is granted", at(-1).getTime(), true],
    ["in between", NOW.getTime(), true],
    ["one ms before expiry", at(1).getTime() - 1, true],
    ["the instant of expiry (expired)", at(1).getTime(), false],
    ["after expiry", at(2).getTime(), false],
  ])("%s: %s", (_case, t, live) => {
    expect(isLive(g, new Date(t))).toBe(live);
  });

  it("a grant with no expiry stays live for ever", () => {
    expect(isLive({ grantedAt: at(-1), expiresAt: null }, new Date("2999-01-01T00:00:00Z"))).toBe(true);
  });
});

describe("balance", () => {
  it.each([
    ["no grants", [], 0],
    ["one live grant", [grant("a", "subscription", 1000)], 1000],
    [
      "all kinds add up",
      [grant("s", "subscription", 1000), grant("t", "topup", 500), grant("f", "free", 10)],
      1510,
    ],
    ["fractions add up exactly", [grant("a", "free", 0.1), grant("b", "free", 0.2)], 0.3],
    [
      "an expired grant does not count",
      [grant("a", "subscription", 1000, { expiresInDays: -1 }), grant("f", "free", 10)],
      10,
    ],
    ["a grant expiring exactly now does not count", [grant("a", "topup", 500, { expiresInDays: 0 })], 0],
    [
      "a renewal waiting for midnight does not count yet",
      [grant("a", "subscription", 5000, { grantedDaysAgo: -0.5 })],
      0,
    ],
    ["spent grants count what remains", [grant("a", "topup", 12.5, { amountCredits: 500 })], 12.5],
    ["emptied grants count zero", [grant("a", "topup", 0, { amountCredits: 500 }), grant("f", "free", 3)], 3],
  ])("%s", (_case, grants, expectedCredits) => {
    expect(fromMillicredits(balance(grants, NOW))).toBe(expectedCredits);
  });
});

describe("compareSpendOrder: ties never depend on the order rows arrive in", () => {
  const sameExpiry = { expiresInDays: 20 };
  it.each([
    [
      "the same kind and expiry: the earlier grant first",
      grant("b", "topup", 1, { ...sameExpiry, grantedDaysAgo: 30 }),
      grant("a", "topup", 1, { ...sameExpiry, grantedDaysAgo: 5 }),
    ],
    [
      "the same kind, expiry and grant time: by id",
      grant("a", "subscription", 1, sameExpiry),
      grant("b", "subscription", 1, sameExpiry),
    ],
    ["never-expiring free grants granted together: by id", grant("a1", "free", 1), grant("a2", "free", 1)],
    [
      "a sooner expiry beats a never-expiring grant of the same kind",
      grant("z", "topup", 1, { expiresInDays: 1 }),
      grant("a", "topup", 1, { expiresInDays: null }),
    ],
  ])("%s", (_case, first, second) => {
    expect(compareSpendOrder(first, second)).toBeLessThan(0);
    expect(compareSpendOrder(second, first)).toBeGreaterThan(0);
    expect(spendableGrants([second, first], NOW).map((g) => g.id)).toEqual([first.id, second.id]);
  });

  it("compares a grant with itself as equal", () => {
    const g = grant("a", "topup", 1);
    expect(compareSpendOrder(g, g)).toBe(0);
    expect(compareSpendOrder(g, { ...g })).toBe(0);
  });
});

describe("planSpend: order", () => {
  const ids = (grants: CreditGrant[], amountCredits: number) => {
    const plan = planSpend(grants, toMillicredits(amountCredits), NOW);
    if (!plan.ok) throw new Error("expected a plan");
    return plan.takes.map((t) => `${t.grantId}:${fromMillicredits(t.amount)}`);
  };

  it.each([
    [
      "subscription first, then top-up, then free, whatever the row order",
      [grant("f", "free", 10), grant("t", "topup", 10), grant("s", "subscription", 10)],
      25,
      ["s:10", "t:10", "f:5"],
    ],
    [
      "a spend that fits in the first bucket touches nothing else",
      [grant("f", "free", 10), grant("t", "topup", 10), grant("s", "subscription", 10)],
      4,
      ["s:4"],
    ],
    [
      "inside a kind, the soonest expiry first",
      [
        grant("t-late", "topup", 10, { expiresInDays: 170 }),
        grant("t-soon", "topup", 10, { expiresInDays: 3 }),
      ],
      15,
      ["t-soon:10", "t-late:5"],
    ],
    [
      "inside a kind, a grant that never expires comes last",
      [
        grant("f-never", "free", 10, { expiresInDays: null }),
        grant("f-dated", "free", 10, { expiresInDays: 400 }),
      ],
      12,
      ["f-dated:10", "f-never:2"],
    ],
    [
      "same expiry: the earlier grant first",
      [
        grant("b", "topup", 10, { expiresInDays: 5, grantedDaysAgo: 1 }),
        grant("a2", "topup", 10, { expiresInDays: 5, grantedDaysAgo: 2 }),
      ],
      12,
      ["a2:10", "b:2"],
    ],
    [
      "same expiry and grant time: by id",
      [grant("z", "topup", 10, { expiresInDays: 5 }), grant("m", "topup", 10, { expiresInDays: 5 })],
      12,
      ["m:10", "z:2"],
    ],
    [
      "kind beats expiry: a top-up expiring tomorrow still waits for subscription credits",
      [grant("t", "topup", 10, { expiresInDays: 1 }), grant("s", "subscription", 10, { expiresInDays: 25 })],
      12,
      ["s:10", "t:2"],
    ],
    [
      "expired, not-yet-granted and empty grants are skipped",
      [
        grant("s-expired", "subscription", 100, { expiresInDays: -1 }),
        grant("s-future", "subscription", 100, { grantedDaysAgo: -1 }),
        grant("s-empty", "subscription", 0, { amountCredits: 100 }),
        grant("t", "topup", 10),
      ],
      5,
      ["t:5"],
    ],
    [
      "the whole balance can be spent",
      [grant("s", "subscription", 10), grant("f", "free", 0.5)],
      10.5,
      ["s:10", "f:0.5"],
    ],
    [
      "fractional prices (background remover 0.1)",
      [grant("s", "subscription", 0.25), grant("t", "topup", 1)],
      0.3,
      ["s:0.25", "t:0.05"],
    ],
  ])("%s", (_case, grants, amount, expected) => {
    expect(ids(grants, amount)).toEqual(expected);
  });
});

describe("planSpend: insufficient is never partial", () => {
  it.each([
    ["no grants at all", [], 1, 0],
    ["one milli-credit short", [grant("s", "subscription", 0.999)], 1, 0.999],
    [
      "credits exist but have expired",
      [grant("s", "subscription", 1000, { expiresInDays: 0 }), grant("f", "free", 5)],
      10,
      5,
    ],
    [
      "credits exist but are not granted yet",
      [grant("s", "subscription", 1000, { grantedDaysAgo: -0.1 })],
      1,
      0,
    ],
    [
      "several buckets together are still short",
      [grant("s", "subscription", 3), grant("t", "topup", 3), grant("f", "free", 3)],
      9.001,
      9,
    ],
  ])("%s", (_case, grants, amountCredits, availableCredits) => {
    const plan = planSpend(grants, toMillicredits(amountCredits), NOW);
    expect(plan).toEqual({
      ok: false,
      reason: "insufficient",
      available: toMillicredits(availableCredits),
      requested: toMillicredits(amountCredits),
    });
  });

  it.each([[0], [-100], [0.5], [Number.NaN]])(
    "refuses a spend of %d milli-credits as a programming error",
    (amount) => {
      expect(() => planSpend([grant("f", "free", 10)], amount, NOW)).toThrow(
        new RangeError(`Spend amount must be a positive whole number of milli-credits: ${amount}`),
      );
    },
  );
});

describe("applySpend", () => {
  const grants = [grant("s", "subscription", 10), grant("f", "free", 5)];

  it("takes the planned amounts and leaves the input untouched", () => {
    const after = applySpend(grants, [
      { grantId: "s", amount: 10_000 },
      { grantId: "f", amount: 1_500 },
    ]);
    expect(after.map((g) => [g.id, g.remaining])).toEqual([
      ["s", 0],
      ["f", 3_500],
    ]);
    expect(grants.map((g) => g.remaining)).toEqual([10_000, 5_000]);
    expect(balance(after, NOW)).toBe(3_500);
  });

  it.each([
    ["an unknown grant", [{ grantId: "x", amount: 1 }], "Spend names unknown grant x"],
    [
      "more than is left",
      [{ grantId: "f", amount: 5_001 }],
      "Spend of 5001 exceeds the 5000 left in grant f",
    ],
    [
      "the same grant twice beyond what is left",
      [
        { grantId: "f", amount: 3_000 },
        { grantId: "f", amount: 3_000 },
      ],
      "Spend of 3000 exceeds the 2000 left in grant f",
    ],
    ["a zero take", [{ grantId: "f", amount: 0 }], "Spend of 0 from grant f is not positive"],
    ["a negative take", [{ grantId: "f", amount: -1 }], "Spend of -1 from grant f is not positive"],
    [
      "exactly what is left, then one more",
      [
        { grantId: "f", amount: 5_000 },
        { grantId: "f", amount: 1 },
      ],
      "Spend of 1 exceeds the 0 left in grant f",
    ],
  ])("refuses %s", (_case, takes, message) => {
    expect(() => applySpend(grants, takes)).toThrow(new Error(message));
  });
});

describe("many grants", () => {
  const kinds: GrantKind[] = ["free", "topup", "subscription"];
  const many = Array.from({ length: 300 }, (_, i) =>
    grant(`g${String(i).padStart(3, "0")}`, kinds[i % 3] ?? "free", (i % 7) + 0.1, {
      expiresInDays: kinds[i % 3] === "free" ? null : (i * 37) % 200,
      grantedDaysAgo: (i * 13) % 30,
    }),
  );

  it("spends the whole live balance in spending order and leaves exactly zero", () => {
    const total = balance(many, NOW);
    const plan = planSpend(many, total, NOW);
    if (!plan.ok) throw new Error("expected a plan");
    const order = spendableGrants(many, NOW).map((g) => g.id);
    expect(plan.takes.map((t) => t.grantId)).toEqual(order);
    expect(balance(applySpend(many, plan.takes), NOW)).toBe(0);
  });

  it("refuses one milli-credit more than the live balance", () => {
    const total = balance(many, NOW);
    expect(planSpend(many, total + 1, NOW).ok).toBe(false);
  });

  it("gives the same plan whatever order the rows come in", () => {
    const total = balance(many, NOW);
    const reversed = [...many].reverse();
    expect(planSpend(reversed, Math.floor(total / 2), NOW)).toEqual(
      planSpend(many, Math.floor(total / 2), NOW),
    );
  });
});

// ---- properties ----

const kindArb = fc.constantFrom<GrantKind>("subscription", "topup", "free");
const grantArb = fc
  .record({
    kind: kindArb,
    amount: fc.integer({ min: 1, max: 2_000_000 }),
    spentPermille: fc.integer({ min: 0, max: 1000 }),
    grantedOffset: fc.integer({ min: -200 * DAY, max: 2 * DAY }),
    lifetime: fc.option(fc.integer({ min: 0, max: 200 * DAY }), { nil: null }),
  })
  .map(({ kind, amount, spentPermille, grantedOffset, lifetime }) => ({
    kind,
    amount,
    remaining: amount - Math.floor((amount * spentPermille) / 1000),
    grantedAt: new Date(NOW.getTime() - grantedOffset),
    expiresAt: lifetime === null ? null : new Date(NOW.getTime() - grantedOffset + lifetime),
  }));
const grantsArb = fc
  .array(grantArb, { maxLength: 25 })
  .map((gs) => gs.map((g, i): CreditGrant => ({ ...g, id: `g${i}`, source: "test" })));

describe("planSpend properties", () => {
  it("a plan takes exactly the amount, only from live grants, never more than is left; the balance drops by exactly that", () => {
    fc.assert(
      fc.property(grantsArb, fc.integer({ min: 1, max: 5_000_000 }), (grants, amount) => {
        const before = balance(grants, NOW);
        const plan = planSpend(grants, amount, NOW);
        if (!plan.ok) {
          expect(amount).toBeGreaterThan(before);
          expect(plan.available).toBe(before);
          return;
        }
        expect(plan.takes.reduce((s, t) => s + t.amount, 0)).toBe(amount);
        for (const take of plan.takes) {
          const g = grants.find((x) => x.id === take.grantId);
          expect(g && isLive(g, NOW)).toBe(true);
          expect(take.amount).toBeGreaterThan(0);
          expect(take.amount).toBeLessThanOrEqual(g?.remaining ?? 0);
        }
        const after = applySpend(grants, plan.takes);
        expect(balance(after, NOW)).toBe(before - amount);
        expect(after.every((g) => g.remaining >= 0)).toBe(true);
      }),
    );
  });

  it("the balance never goes negative however many spends run", () => {
    fc.assert(
      fc.property(
        grantsArb,
        fc.array(fc.integer({ min: 1, max: 800_000 }), { maxLength: 20 }),
        (grants, spends) => {
          let current = grants;
          for (const amount of spends) {
            const plan = planSpend(current, amount, NOW);
            if (plan.ok) current = applySpend(current, plan.takes);
            expect(balance(current, NOW)).toBeGreaterThanOrEqual(0);
          }
        },
      ),
    );
  });

  it("drains in priority order: every grant before the last one taken is emptied", () => {
    fc.assert(
      fc.property(grantsArb, fc.integer({ min: 1, max: 5_000_000 }), (grants, amount) => {
        const plan = planSpend(grants, amount, NOW);
        if (!plan.ok) return;
        const order = spendableGrants(grants, NOW);
        const taken = plan.takes.map((t) => t.grantId);
        expect(taken).toEqual(order.slice(0, taken.length).map((g) => g.id));
        plan.takes.slice(0, -1).forEach((take, i) => {
          expect(take.amount).toBe(order[i]?.remaining);
        });
      }),
    );
  });

  it("the spending order is a total order consistent with the kind rule", () => {
    fc.assert(
      fc.property(grantsArb, (grants) => {
        const sorted = [...grants].sort(compareSpendOrder);
        const rank = { subscription: 0, topup: 1, free: 2 };
        for (let i = 1; i < sorted.length; i++) {
          const prev = sorted[i - 1];
          const cur = sorted[i];
          if (!prev || !cur) continue;
          expect(rank[prev.kind]).toBeLessThanOrEqual(rank[cur.kind]);
          expect(compareSpendOrder(prev, cur)).toBeLessThan(0);
        }
      }),
    );
  });
});
