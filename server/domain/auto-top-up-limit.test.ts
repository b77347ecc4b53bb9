import { describe, expect, it } from "vitest";
import {
  ATTEMPT_STATUSES,
  type AttemptStatus,
  chargedThisMonth,
  countedThisMonth,
  countsAgainstLimit,
  type LimitAttempt,
  limitBelowPack,
  monthlyLimitCheck,
  nextBerlinMonth,
  reservedThisMonth,
} from "./auto-top-up-limit.ts";

describe("the monthly limit", () => {
  // November 2026 in Berlin is CET (UTC+1): it begins 2026-10-31T23:00Z and ends 2026-11-30T23:00Z.
  const now = new Date("2026-11-15T12:00:00Z");
  const attempt = (
    madeAt: string,
    amount: number,
    status: AttemptStatus = "paid",
    invoiceLive = false,
  ): LimitAttempt => ({ madeAt: new Date(madeAt), amount, status, invoiceLive });

  it.each([
    ["processing", false, true],
    ["processing", true, true],
    ["authentication_required", false, true],
    ["authentication_required", true, true],
    ["paid", false, true],
    ["paid", true, true],
    ["failed", false, false],
    ["failed", true, false],
    // Cancelled while its invoice was made or paid: until the invoice is seen void or paid, a
    // payment sent before the stop may still land (and paid always grants).
    ["cancelled", false, false],
    ["cancelled", true, true],
  ] as const)("an attempt %s (its invoice live: %s) counts: %s", (status, invoiceLive, expected) => {
    expect(countsAgainstLimit({ status, invoiceLive })).toBe(expected);
  });

  it("knows every attempt status", () => {
    expect(ATTEMPT_STATUSES).toEqual([
      "processing",
      "authentication_required",
      "paid",
      "failed",
      "cancelled",
    ]);
  });

  it.each([
    ["nothing", [], 0],
    ["one paid pack", [attempt("2026-11-02T10:00:00Z", 5950)], 5950],
    [
      "failed and cancelled attempts stop counting",
      [
        attempt("2026-11-02T10:00:00Z", 5950, "failed"),
        attempt("2026-11-03T10:00:00Z", 5950, "cancelled"),
        attempt("2026-11-04T10:00:00Z", 5950, "processing"),
        attempt("2026-11-05T10:00:00Z", 5950, "authentication_required"),
      ],
      11_900,
    ],
    [
      "a cancelled attempt keeps counting while its invoice may still be paid",
      [
        attempt("2026-11-02T10:00:00Z", 5950, "cancelled", true),
        attempt("2026-11-03T10:00:00Z", 100, "cancelled", false),
      ],
      5950,
    ],
    [
      "Berlin's first instant of November counts, the last of October does not",
      [attempt("2026-10-31T22:59:59.999Z", 1), attempt("2026-10-31T23:00:00.000Z", 10)],
      10,
    ],
    [
      "Berlin's last instant of November counts, December's first does not",
      [attempt("2026-11-30T22:59:59.999Z", 100), attempt("2026-11-30T23:00:00.000Z", 1000)],
      100,
    ],
  ] as const)("counted this month: %s", (_case, attempts, expected) => {
    expect(countedThisMonth(attempts, now)).toBe(expected);
  });

  it.each([
    ["nothing", [], 0],
    [
      "paid attempts only, refunded ones too: room kept for money not taken was not charged",
      [
        attempt("2026-11-02T10:00:00Z", 5950, "paid"),
        attempt("2026-11-03T10:00:00Z", 100, "failed"),
        attempt("2026-11-04T10:00:00Z", 200, "cancelled", true),
        attempt("2026-11-05T10:00:00Z", 400, "cancelled"),
        attempt("2026-11-06T10:00:00Z", 800, "processing", true),
        attempt("2026-11-07T10:00:00Z", 1600, "authentication_required", true),
      ],
      5950,
    ],
    [
      "in Berlin's month only",
      [
        attempt("2026-10-31T22:59:59.999Z", 1),
        attempt("2026-10-31T23:00:00.000Z", 10),
        attempt("2026-11-30T22:59:59.999Z", 100),
        attempt("2026-11-30T23:00:00.000Z", 1000),
      ],
      110,
    ],
  ] as const)("charged this month (GET's figure): %s", (_case, attempts, expected) => {
    expect(chargedThisMonth(attempts, now)).toBe(expected);
  });

  it.each([
    ["nothing", [], 0],
    [
      "money that may still be taken: on its way, awaiting authentication, a cancelled attempt's live invoice",
      [
        attempt("2026-11-02T10:00:00Z", 5950, "paid"),
        attempt("2026-11-03T10:00:00Z", 100, "failed", true),
        attempt("2026-11-04T10:00:00Z", 200, "cancelled", true),
        attempt("2026-11-05T10:00:00Z", 400, "cancelled"),
        attempt("2026-11-06T10:00:00Z", 800, "processing"),
        attempt("2026-11-07T10:00:00Z", 1600, "authentication_required"),
        attempt("2026-11-08T10:00:00Z", 3200, "paid", true),
      ],
      2600,
    ],
    [
      "in Berlin's month only",
      [
        attempt("2026-10-31T22:59:59.999Z", 1, "processing"),
        attempt("2026-10-31T23:00:00.000Z", 10, "cancelled", true),
        attempt("2026-11-30T22:59:59.999Z", 100, "authentication_required"),
        attempt("2026-11-30T23:00:00.000Z", 1000, "processing"),
      ],
      110,
    ],
  ] as const)("reserved this month (GET's figure): %s", (_case, attempts, expected) => {
    expect(reservedThisMonth(attempts, now)).toBe(expected);
  });

  it("charged and reserved add up to what the limit counts", () => {
    const attempts = ATTEMPT_STATUSES.flatMap((status, i) => [
      attempt(`2026-11-0${i + 1}T10:00:00Z`, 10 ** i, status, false),
      attempt(`2026-11-0${i + 1}T11:00:00Z`, 2 * 10 ** i, status, true),
    ]);
    expect(chargedThisMonth(attempts, now) + reservedThisMonth(attempts, now)).toBe(
      countedThisMonth(attempts, now),
    );
    expect(countedThisMonth(attempts, now)).toBe(3 + 30 + 300 + 20_000);
  });

  it.each([
    // March 2026 begins in CET (UTC+1) and ends in CEST (UTC+2): clocks go forward on the 29th.
    ["March, across spring's change", "2026-03-15T12:00:00Z", "2026-03-31T22:00:00.000Z"],
    ["the last instant of March", "2026-03-31T21:59:59.999Z", "2026-03-31T22:00:00.000Z"],
    ["the first instant of April", "2026-03-31T22:00:00.000Z", "2026-04-30T22:00:00.000Z"],
    // October 2026 begins in CEST and ends in CET: clocks go back on the 25th.
    ["October, across autumn's change", "2026-10-26T12:00:00Z", "2026-10-31T23:00:00.000Z"],
    ["the first instant of October", "2026-09-30T22:00:00.000Z", "2026-10-31T23:00:00.000Z"],
    ["December into the new year", "2026-12-31T22:59:59.999Z", "2026-12-31T23:00:00.000Z"],
  ])("the month ends: %s", (_case, at, expected) => {
    expect(nextBerlinMonth(new Date(at)).toISOString()).toBe(expected);
  });

  it("counts March's attempts by Berlin's month across the clock change", () => {
    const march = new Date("2026-03-30T08:00:00Z");
    const attempts = [
      attempt("2026-02-28T22:59:59.999Z", 1), // 23:59:59 CET on 28 Feb
      attempt("2026-02-28T23:00:00.000Z", 10), // 00:00 CET on 1 March
      attempt("2026-03-31T21:59:59.999Z", 100), // 23:59:59 CEST on 31 March
      attempt("2026-03-31T22:00:00.000Z", 1000), // 00:00 CEST on 1 April
    ];
    expect(countedThisMonth(attempts, march)).toBe(110);
  });

  it.each([
    ["one pack costs a cent more than the limit", 5950, 5949, true],
    ["one pack costs exactly the limit", 5950, 5950, false],
    ["one pack costs less", 5950, 20_000, false],
  ] as const)("limit below one pack: %s", (_case, gross, limit, expected) => {
    expect(limitBelowPack(gross, limit)).toBe(expected);
  });

  const until = new Date("2026-11-30T23:00:00.000Z");
  it.each([
    ["an empty month, one pack fits", 20_000, [], { ok: true }],
    ["the limit is exactly one pack", 5950, [], { ok: true }],
    ["the limit is one cent below one pack", 5949, [], { ok: false, reason: "limit_below_pack" }],
    ["the pack fills the limit exactly", 20_000, [attempt("2026-11-02T10:00:00Z", 14_050)], { ok: true }],
    [
      "the pack would pass the limit by a cent",
      20_000,
      [attempt("2026-11-02T10:00:00Z", 14_051)],
      { ok: false, reason: "monthly_limit", until },
    ],
    [
      "a failed and a cancelled attempt give their room back",
      5950,
      [attempt("2026-11-02T10:00:00Z", 5950, "failed"), attempt("2026-11-03T10:00:00Z", 5950, "cancelled")],
      { ok: true },
    ],
    [
      "a cancelled attempt whose invoice may still be paid keeps its room: no second charge beside it",
      5950,
      [attempt("2026-11-02T10:00:00Z", 5950, "cancelled", true)],
      { ok: false, reason: "monthly_limit", until },
    ],
    [
      "an attempt awaiting authentication keeps its room",
      5950,
      [attempt("2026-11-02T10:00:00Z", 5950, "authentication_required")],
      { ok: false, reason: "monthly_limit", until },
    ],
    ["last month's charges do not count", 5950, [attempt("2026-10-31T22:59:59.999Z", 5950)], { ok: true }],
  ] as const)("%s", (_case, limit, attempts, expected) => {
    expect(monthlyLimitCheck({ limit, packGross: 5950, attempts, now })).toEqual(expected);
  });
});
