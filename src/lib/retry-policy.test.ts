import { describe, expect, it } from "vitest";
import { isRetryableStatus, retryDelayMs } from "./retry-policy.ts";

describe("retry policy (spec section 7)", () => {
  it.each([
    [0, 1000],
    [1, 2000],
    [2, 4000],
    [3, 8000],
    [4, 16_000],
    [5, 30_000],
    [10, 30_000],
  ])("waits %i -> %i ms", (attempt, ms) => {
    expect(retryDelayMs(attempt)).toBe(ms);
  });

  it.each([
    [undefined, true],
    [500, true],
    [503, true],
    [429, true],
    [408, true],
    [400, false],
    [401, false],
    [404, false],
  ])("status %s is retryable: %s", (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
  });
});
