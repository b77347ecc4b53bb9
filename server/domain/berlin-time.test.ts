import { describe, expect, it } from "vitest";
import {
  berlinOffsetMs,
  daysInMonth,
  fromBerlinWallTime,
  nextMidnightBerlin,
  toBerlinWallTime,
  type WallTime,
} from "./berlin-time.ts";

const HOUR = 3_600_000;

function wall(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  millisecond = 0,
): WallTime {
  return { year, month, day, hour, minute, second, millisecond };
}

// DST in Berlin: 2024-03-31 / 2024-10-27, 2025-03-30 / 2025-10-26, 2026-03-29 / 2026-10-25,
// always at 01:00 UTC.
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
      const w = toBerlinWallTime(next);
      expect(next.getTime()).toBeGreaterThan(t);
      expect(next.getTime() - t).toBeLessThanOrEqual(25 * HOUR);
      expect([w.hour, w.minute, w.second, w.millisecond]).toEqual([0, 0, 0, 0]);
    }
  });

  it("refuses an invalid date", () => {
    expect(() => nextMidnightBerlin(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe("toBerlinWallTime and berlinOffsetMs", () => {
  it.each([
    ["winter", "2025-01-15T12:34:56.789Z", wall(2025, 1, 15, 13, 34, 56, 789), 1],
    ["summer", "2025-07-15T12:00:00.000Z", wall(2025, 7, 15, 14), 2],
    ["midnight reads 00, never 24", "2025-07-14T22:00:00.000Z", wall(2025, 7, 15, 0), 2],
    [
      "last CET instant before spring-forward",
      "2025-03-30T00:59:59.999Z",
      wall(2025, 3, 30, 1, 59, 59, 999),
      1,
    ],
    ["first CEST instant", "2025-03-30T01:00:00.000Z", wall(2025, 3, 30, 3), 2],
    ["last CEST instant before fall-back", "2025-10-26T00:59:59.999Z", wall(2025, 10, 26, 2, 59, 59, 999), 2],
    ["first CET instant after fall-back", "2025-10-26T01:00:00.000Z", wall(2025, 10, 26, 2), 1],
  ])("%s", (_case, instant, expected, offsetHours) => {
    expect(toBerlinWallTime(new Date(instant))).toEqual(expected);
    expect(berlinOffsetMs(new Date(instant))).toBe(offsetHours * HOUR);
  });
});

describe("fromBerlinWallTime", () => {
  it.each([
    ["winter", wall(2025, 1, 15, 13, 34, 56, 789), "2025-01-15T12:34:56.789Z"],
    ["summer", wall(2025, 7, 15, 14), "2025-07-15T12:00:00.000Z"],
    [
      "a time in the spring-forward gap moves forward by the gap",
      wall(2025, 3, 30, 2, 30),
      "2025-03-30T01:30:00.000Z",
    ],
    ["the start of the gap", wall(2025, 3, 30, 2), "2025-03-30T01:00:00.000Z"],
    [
      "a repeated fall-back time gives the earlier (CEST) instant",
      wall(2025, 10, 26, 2, 30),
      "2025-10-26T00:30:00.000Z",
    ],
    ["just after the repeated hour", wall(2025, 10, 26, 3), "2025-10-26T02:00:00.000Z"],
    ["day 32 rolls into the next month", wall(2025, 1, 32), "2025-01-31T23:00:00.000Z"],
    ["Dec 32 rolls into the next year", wall(2025, 12, 32), "2025-12-31T23:00:00.000Z"],
  ])("%s", (_case, input, expected) => {
    expect(fromBerlinWallTime(input).toISOString()).toBe(expected);
  });

  it.each([
    ["the spring-forward weekend", "2025-03-29T00:00:00.000Z"],
    ["the fall-back weekend", "2025-10-25T00:00:00.000Z"],
    ["an ordinary weekend", "2025-06-07T00:00:00.000Z"],
  ])("round-trips every quarter hour of %s", (_case, from) => {
    const start = Date.parse(from);
    for (let t = start; t < start + 3 * 24 * HOUR; t += 15 * 60_000) {
      const back = fromBerlinWallTime(toBerlinWallTime(new Date(t))).getTime();
      // The repeated October hour maps back to its first occurrence; everything else exactly.
      const inRepeatedHour =
        t >= Date.parse("2025-10-26T01:00:00.000Z") && t < Date.parse("2025-10-26T02:00:00.000Z");
      expect(back).toBe(inRepeatedHour ? t - HOUR : t);
    }
  });
});

describe("daysInMonth", () => {
  it.each([
    [2025, 1, 31],
    [2025, 2, 28],
    [2024, 2, 29],
    [2000, 2, 29],
    [1900, 2, 28],
    [2025, 4, 30],
    [2025, 12, 31],
  ])("%i-%i has %i days", (year, month, days) => {
    expect(daysInMonth(year, month)).toBe(days);
  });
});
