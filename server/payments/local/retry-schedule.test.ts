import { describe, expect, it } from "vitest";
import {
  attemptTime,
  isDelivered,
  MAX_DELIVERY_ATTEMPTS,
  nextAttemptDelay,
  RETRY_DELAYS_MS,
} from "./retry-schedule.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe("nextAttemptDelay", () => {
  it.each([
    [1, 1 * MINUTE],
    [2, 5 * MINUTE],
    [3, 30 * MINUTE],
    [4, 2 * HOUR],
    [5, 5 * HOUR],
    [6, 10 * HOUR],
    [7, 12 * HOUR],
    [8, 24 * HOUR],
    [9, 18 * HOUR],
    [10, null],
    [11, null],
  ])("after %i failed attempt(s): %s ms", (failed, delay) => {
    expect(nextAttemptDelay(failed)).toBe(delay);
  });

  it.each([[0], [-1], [1.5]])("refuses %d failed attempts", (failed) => {
    expect(() => nextAttemptDelay(failed)).toThrow(
      new RangeError(`failedAttempts counts failed attempts from 1: ${failed}`),
    );
  });

  it("takes a shorter schedule (a sandbox-like one, or tests)", () => {
    expect([1, 2, 3, 4].map((n) => nextAttemptDelay(n, [10, 20, 30]))).toEqual([10, 20, 30, null]);
  });
});

describe("the schedule as a whole", () => {
  it("backs off: no delay is shorter than the one before, until the last day", () => {
    const rising = RETRY_DELAYS_MS.slice(0, -1);
    for (let i = 1; i < rising.length; i++) expect(rising[i]).toBeGreaterThan(rising[i - 1] ?? 0);
  });

  it("gives up a little under three days after the first attempt, like Stripe in live mode", () => {
    const first = new Date("2025-06-01T12:00:00.000Z");
    const last = attemptTime(first, MAX_DELIVERY_ATTEMPTS);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(10);
    expect(last?.toISOString()).toBe("2025-06-04T11:36:00.000Z");
    expect(attemptTime(first, MAX_DELIVERY_ATTEMPTS + 1)).toBeNull();
  });

  it.each([
    [1, "2025-06-01T12:00:00.000Z"],
    [2, "2025-06-01T12:01:00.000Z"],
    [3, "2025-06-01T12:06:00.000Z"],
    [4, "2025-06-01T12:36:00.000Z"],
    [5, "2025-06-01T14:36:00.000Z"],
  ])("attempt %i goes out at %s", (attempt, at) => {
    expect(attemptTime(new Date("2025-06-01T12:00:00.000Z"), attempt)?.toISOString()).toBe(at);
  });

  it.each([[0], [-1], [1.5], [Number.NaN]])("refuses attempt number %d", (attempt) => {
    expect(() => attemptTime(new Date("2025-06-01T12:00:00.000Z"), attempt)).toThrow(
      new RangeError(`Attempts count from 1: ${attempt}`),
    );
  });
});

describe("isDelivered", () => {
  it.each([
    [200, true],
    [204, true],
    [299, true],
    [300, false],
    [301, false],
    [199, false],
    [400, false],
    [500, false],
    [0, false],
  ])("HTTP %i delivered: %s", (status, delivered) => {
    expect(isDelivered(status)).toBe(delivered);
  });
});
