import { Temporal } from "temporal-polyfill";
import { describe, expect, it, vi } from "vitest";
import {
  addBerlinMonths,
  berlinDateOf,
  berlinDateTime,
  berlinDay,
  berlinMidnightDaysAgo,
  berlinMonth,
  inBerlin,
  nextMidnightBerlin,
  startOfBerlinMonth,
} from "./berlin-time.ts";

const HOUR = 3_600_000;

/** Berlin's wall clock at `instant`, as [year, month, day, hour, minute, second, millisecond]. */
function wall(instant: Date): number[] {
  const z = inBerlin(instant);
  return [z.year, z.month, z.day, z.hour, z.minute, z.second, z.millisecond];
}

// DST in Berlin: 2024-03-31 / 2024-10-27, 2025-03-30 / 2025-10-26, 2026-03-29 / 2026-10-25,
// always at 01:00 UTC.
describe("berlinDateOf", () => {
  it.each([
    ["late evening in winter is the next Berlin day (UTC+1)", "2025-01-10T23:30:00.000Z", "2025-01-11"],
    ["late evening in summer is the next Berlin day (UTC+2)", "2025-07-09T22:30:00.000Z", "2025-07-10"],
    ["just before Berlin's midnight stays on the day", "2025-07-09T21:59:59.999Z", "2025-07-09"],
    ["a leap day", "2024-02-29T12:00:00.000Z", "2024-02-29"],
  ])("%s", (_case, instant, day) => {
    expect(berlinDateOf(new Date(instant))).toBe(day);
  });
});

describe("berlinDateTime", () => {
  it.each([
    ["winter: CET, an hour ahead, into the next day", "2025-01-10T23:30:59.999Z", "2025-01-11 00:30 CET"],
    ["summer: CEST, two hours ahead", "2025-07-09T08:05:00.000Z", "2025-07-09 10:05 CEST"],
    ["the last minute of summer time", "2026-10-25T00:59:00.000Z", "2026-10-25 02:59 CEST"],
    ["the first of winter time, the hour again", "2026-10-25T01:00:00.000Z", "2026-10-25 02:00 CET"],
  ])("%s", (_case, instant, text) => {
    expect(berlinDateTime(new Date(instant))).toBe(text);
  });
});

describe("nextMidnightBerlin", () => {
  it.each([
    ["an ordinary winter afternoon", "2025-01-15T14:00:00.000Z", "2025-01-15T23:00:00.000Z"],
    ["an ordinary summer afternoon", "2025-07-15T14:00:00.000Z", "2025-07-15T22:00:00.000Z"],
    [
      "late evening UTC that is already tomorrow in Berlin",
      "2025-07-01T22:30:00.000Z",
      "2025-07-02T22:00:00.000Z",
    ],
    [
      "the Saturday before spring-forward (next midnight is still CET)",
      "2025-03-29T12:00:00.000Z",
      "2025-03-29T23:00:00.000Z",
    ],
    [
      "spring-forward Sunday, before the change (01:30 CET)",
      "2025-03-30T00:30:00.000Z",
      "2025-03-30T22:00:00.000Z",
    ],
    ["spring-forward Sunday, after the change", "2025-03-30T10:00:00.000Z", "2025-03-30T22:00:00.000Z"],
    [
      "the Saturday before fall-back (next midnight is still CEST)",
      "2025-10-25T12:00:00.000Z",
      "2025-10-25T22:00:00.000Z",
    ],
    ["fall-back Sunday, in the first 02:30 (CEST)", "2025-10-26T00:30:00.000Z", "2025-10-26T23:00:00.000Z"],
    ["fall-back Sunday, in the repeated 02:30 (CET)", "2025-10-26T01:30:00.000Z", "2025-10-26T23:00:00.000Z"],
    ["fall-back Sunday afternoon", "2025-10-26T14:00:00.000Z", "2025-10-26T23:00:00.000Z"],
    [
      "exactly at midnight gives the following midnight",
      "2025-06-14T22:00:00.000Z",
      "2025-06-15T22:00:00.000Z",
    ],
    ["one millisecond before midnight", "2025-06-14T21:59:59.999Z", "2025-06-14T22:00:00.000Z"],
    ["one millisecond after midnight", "2025-06-14T22:00:00.001Z", "2025-06-15T22:00:00.000Z"],
    ["New Year's Eve afternoon", "2025-12-31T15:00:00.000Z", "2025-12-31T23:00:00.000Z"],
    ["the last second of the year in Berlin", "2025-12-31T22:59:59.000Z", "2025-12-31T23:00:00.000Z"],
    ["exactly at New Year's midnight", "2025-12-31T23:00:00.000Z", "2026-01-01T23:00:00.000Z"],
    [
      "New Year's Eve in UTC, already Jan 1 in Berlin",
      "2025-12-31T23:30:00.000Z",
      "2026-01-01T23:00:00.000Z",
    ],
    ["leap day", "2024-02-29T12:00:00.000Z", "2024-02-29T23:00:00.000Z"],
    ["Feb 28 of a leap year", "2024-02-28T12:00:00.000Z", "2024-02-28T23:00:00.000Z"],
    ["spring-forward Sunday 2026", "2026-03-29T05:00:00.000Z", "2026-03-29T22:00:00.000Z"],
  ])("%s: %s -> %s", (_case, instant, expected) => {
    expect(nextMidnightBerlin(new Date(instant)).toISOString()).toBe(expected);
  });

  it("is strictly after the instant and at most 25 hours later, across two years", () => {
    const start = Date.parse("2024-01-01T00:00:00.000Z");
    for (let t = start; t < start + 2 * 366 * 24 * HOUR; t += 3 * HOUR + 17 * 60_000) {
      const next = nextMidnightBerlin(new Date(t));
      expect(next.getTime()).toBeGreaterThan(t);
      expect(next.getTime() - t).toBeLessThanOrEqual(25 * HOUR);
      expect(wall(next).slice(3)).toEqual([0, 0, 0, 0]);
    }
  });

  it("refuses an invalid date", () => {
    expect(() => nextMidnightBerlin(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe("inBerlin: the wall clock and offset", () => {
  it.each([
    ["winter", "2025-01-15T12:34:56.789Z", [2025, 1, 15, 13, 34, 56, 789], 1],
    ["summer", "2025-07-15T12:00:00.000Z", [2025, 7, 15, 14, 0, 0, 0], 2],
    ["midnight reads 00, never 24", "2025-07-14T22:00:00.000Z", [2025, 7, 15, 0, 0, 0, 0], 2],
    ["last CET instant before spring-forward", "2025-03-30T00:59:59.999Z", [2025, 3, 30, 1, 59, 59, 999], 1],
    ["first CEST instant", "2025-03-30T01:00:00.000Z", [2025, 3, 30, 3, 0, 0, 0], 2],
    ["last CEST instant before fall-back", "2025-10-26T00:59:59.999Z", [2025, 10, 26, 2, 59, 59, 999], 2],
    ["first CET instant after fall-back", "2025-10-26T01:00:00.000Z", [2025, 10, 26, 2, 0, 0, 0], 1],
  ])("%s", (_case, instant, expected, offsetHours) => {
    expect(wall(new Date(instant))).toEqual(expected);
    expect(inBerlin(new Date(instant)).offsetNanoseconds / 1e6).toBe(offsetHours * HOUR);
  });
});

// Where a month's addition lands on a wall time that occurs twice or never (ledger.ts has the
// calendar cases: clamping, leap years, negative months).
describe("addBerlinMonths across DST changes", () => {
  it.each([
    ["winter to winter", "2025-01-15T12:34:56.789Z", 1, "2025-02-15T12:34:56.789Z"],
    [
      "02:30 landing in the spring-forward gap moves forward by the gap",
      "2025-01-30T01:30:00.000Z",
      2,
      "2025-03-30T01:30:00.000Z",
    ],
    ["02:00, the start of the gap, becomes 03:00", "2025-01-30T01:00:00.000Z", 2, "2025-03-30T01:00:00.000Z"],
    [
      "02:30 landing in the repeated fall-back hour gives the earlier (CEST) instant",
      "2025-09-26T00:30:00.000Z",
      1,
      "2025-10-26T00:30:00.000Z",
    ],
    [
      "the repeated hour's second 02:30 (CET) also gives the earlier instant",
      "2025-10-26T01:30:00.000Z",
      1,
      "2025-11-26T01:30:00.000Z",
    ],
    ["03:00 just after the repeated hour", "2025-09-26T01:00:00.000Z", 1, "2025-10-26T02:00:00.000Z"],
    [
      "a year from the repeated hour's first 02:30",
      "2025-10-26T00:30:00.000Z",
      12,
      "2026-10-26T01:30:00.000Z",
    ],
  ])("%s", (_case, from, months, expected) => {
    expect(addBerlinMonths(new Date(from), months).toISOString()).toBe(expected);
  });

  it.each([
    ["onto the spring-forward weekend", "2025-01-28T23:00:00.000Z", 2],
    ["onto the fall-back weekend", "2025-09-24T22:00:00.000Z", 1],
    ["onto an ordinary weekend", "2025-05-06T22:00:00.000Z", 1],
  ])("keeps the wall time of every quarter hour of three days %s, but in the gap", (_case, from, months) => {
    const start = Date.parse(from);
    for (let t = start; t < start + 3 * 24 * HOUR; t += 15 * 60_000) {
      const before = wall(new Date(t));
      const after = wall(addBerlinMonths(new Date(t), months));
      const [year, month, day, hour] = after;
      const inGap = year === 2025 && month === 3 && day === 30 && before[3] === 2;
      expect(after.slice(3), new Date(t).toISOString()).toEqual(
        inGap ? [3, ...before.slice(4)] : before.slice(3),
      );
      expect(hour).toBe(inGap ? 3 : before[3]);
    }
  });

  it("refuses an invalid date", () => {
    expect(() => addBerlinMonths(new Date(Number.NaN), 1)).toThrow(RangeError);
  });
});

describe("startOfBerlinMonth", () => {
  it.each([
    // Winter (CET, +01:00): the month starts at 23:00 UTC the day before.
    ["2026-01-15T12:00:00Z", "2025-12-31T23:00:00.000Z"],
    // Summer (CEST, +02:00).
    ["2026-07-31T21:59:59Z", "2026-06-30T22:00:00.000Z"],
    // 22:30 UTC on 31 July is already 1 August in Berlin.
    ["2026-07-31T22:30:00Z", "2026-07-31T22:00:00.000Z"],
    // The month of the clock change: April starts in summer time, March in winter time.
    ["2026-04-01T00:00:00Z", "2026-03-31T22:00:00.000Z"],
    ["2026-03-31T21:59:59Z", "2026-02-28T23:00:00.000Z"],
    // Exactly the first instant of a month belongs to that month.
    ["2026-10-31T23:00:00Z", "2026-10-31T23:00:00.000Z"],
  ])("%s is in the month that began at %s", (instant, start) => {
    expect(startOfBerlinMonth(new Date(instant)).toISOString()).toBe(start);
    // The same month by its first day's date, as API key usage is kept.
    expect(berlinMonth(new Date(instant))).toBe(inBerlin(new Date(start)).toPlainDate().toString());
  });
});

describe("berlinMonth", () => {
  it("changes at Berlin's midnight on the first, however the calls before it went", () => {
    // Asked in order across the boundary and back: a remembered month must never outlive its month.
    expect(berlinMonth(new Date("2026-10-31T22:59:59.999Z"))).toBe("2026-10-01");
    expect(berlinMonth(new Date("2026-10-31T23:00:00.000Z"))).toBe("2026-11-01");
    expect(berlinMonth(new Date("2026-10-31T22:59:59.999Z"))).toBe("2026-10-01");
    expect(berlinMonth(new Date("2026-11-30T22:59:59.999Z"))).toBe("2026-11-01");
    expect(berlinMonth(new Date("2026-11-30T23:00:00.000Z"))).toBe("2026-12-01");
    expect(berlinMonth(new Date("2026-03-01T00:00:00Z"))).toBe("2026-03-01");
    expect(berlinMonth(new Date("2026-02-28T22:59:59Z"))).toBe("2026-02-01");
  });

  it("remembers the month it worked out: later instants of that month need no zone arithmetic", () => {
    // Whatever an earlier test or file left remembered (server files share this module), not November.
    expect(berlinMonth(new Date("1999-06-15T12:00:00Z"))).toBe("1999-06-01");
    const zoneLookups = vi.spyOn(Temporal.Instant, "fromEpochMilliseconds");
    try {
      expect(berlinMonth(new Date("2026-11-15T12:00:00Z"))).toBe("2026-11-01");
      expect(zoneLookups).toHaveBeenCalledTimes(1);
      // November's first and last instants in Berlin.
      expect(berlinMonth(new Date("2026-10-31T23:00:00.000Z"))).toBe("2026-11-01");
      expect(berlinMonth(new Date("2026-11-30T22:59:59.999Z"))).toBe("2026-11-01");
      expect(zoneLookups).toHaveBeenCalledTimes(1);
      // Outside it, on either side, the month is worked out again.
      expect(berlinMonth(new Date("2026-11-30T23:00:00.000Z"))).toBe("2026-12-01");
      expect(berlinMonth(new Date("2026-10-31T22:59:59.999Z"))).toBe("2026-10-01");
      expect(zoneLookups).toHaveBeenCalledTimes(3);
    } finally {
      zoneLookups.mockRestore();
    }
  });

  it("refuses an invalid date", () => {
    expect(() => berlinMonth(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe("berlinMidnightDaysAgo", () => {
  it.each([
    ["2026-11-24T10:00:00Z", 0, "2026-11-23T23:00:00.000Z"],
    ["2026-11-24T10:00:00Z", 30, "2026-10-24T22:00:00.000Z"], // back across the autumn change: CEST
    ["2026-03-30T10:00:00Z", 1, "2026-03-28T23:00:00.000Z"], // the spring change's short day
    ["2026-03-31T22:30:00Z", 0, "2026-03-31T22:00:00.000Z"], // already 1 April in Berlin
  ])("%s, %i days back: %s", (instant, days, midnight) => {
    expect(berlinMidnightDaysAgo(new Date(instant), days).toISOString()).toBe(midnight);
  });
});

describe("berlinDay", () => {
  it("changes at Berlin's midnight, on the short and the long day of the clock changes too", () => {
    // [instant, its Berlin day], in an order where a remembered day would answer wrongly if it outlived its day.
    const cases = [
      ["2026-03-28T22:59:59.999Z", "2026-03-28"],
      ["2026-03-28T23:00:00.000Z", "2026-03-29"], // the 23-hour day begins at 00:00 CET
      ["2026-03-29T21:59:59.999Z", "2026-03-29"], // and ends at 00:00 CEST
      ["2026-03-29T22:00:00.000Z", "2026-03-30"],
      ["2026-03-28T23:00:00.000Z", "2026-03-29"],
      ["2026-10-24T22:00:00.000Z", "2026-10-25"], // the 25-hour day
      ["2026-10-25T22:59:59.999Z", "2026-10-25"],
      ["2026-10-25T23:00:00.000Z", "2026-10-26"],
      ["2026-10-24T21:59:59.999Z", "2026-10-24"],
    ];
    for (const [instant, day] of cases) expect(berlinDay(new Date(instant as string)), instant).toBe(day);
  });

  it("remembers the day it worked out", () => {
    // Whatever an earlier test or file left remembered (server files share this module), not that day.
    expect(berlinDay(new Date("1999-06-15T12:00:00Z"))).toBe("1999-06-15");
    const zoneLookups = vi.spyOn(Temporal.Instant, "fromEpochMilliseconds");
    try {
      expect(berlinDay(new Date("2026-11-24T10:00:00Z"))).toBe("2026-11-24");
      expect(berlinDay(new Date("2026-11-23T23:00:00.000Z"))).toBe("2026-11-24");
      expect(berlinDay(new Date("2026-11-24T22:59:59.999Z"))).toBe("2026-11-24");
      expect(zoneLookups).toHaveBeenCalledTimes(1);
      expect(berlinDay(new Date("2026-11-24T23:00:00.000Z"))).toBe("2026-11-25");
      expect(zoneLookups).toHaveBeenCalledTimes(2);
    } finally {
      zoneLookups.mockRestore();
    }
  });

  it("refuses an invalid date", () => {
    expect(() => berlinDay(new Date(Number.NaN))).toThrow(RangeError);
  });
});
