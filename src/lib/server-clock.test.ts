import { describe, expect, it } from "vitest";
import { serverClockOffset } from "./server-clock.ts";

describe("serverClockOffset", () => {
  const browser = Date.parse("2026-11-29T12:00:00Z");

  it("is how far the server's time is ahead (or behind) the browser's", () => {
    expect(serverClockOffset("2026-12-30T12:00:00Z", browser)).toBe(31 * 86_400_000);
    expect(serverClockOffset("2026-11-29T11:59:00Z", browser)).toBe(-60_000);
    expect(serverClockOffset("2026-11-29T12:00:00Z", browser)).toBe(0);
  });

  it("is 0 without an as_of, or with one that is not a time", () => {
    expect(serverClockOffset(undefined, browser)).toBe(0);
    expect(serverClockOffset("soon", browser)).toBe(0);
  });

  it("reads the browser's clock when not told", () => {
    const offset = serverClockOffset(new Date(Date.now() + 5000).toISOString());
    expect(offset).toBeGreaterThan(4000);
    expect(offset).toBeLessThanOrEqual(5000);
  });
});
