import { describe, expect, it } from "vitest";
import { berlinDayAndTime } from "./berlin-time.ts";

describe("berlinDayAndTime", () => {
  // Around both clock changes: the zone's name follows the instant, not today's.
  it.each([
    ["2026-03-29T00:59:59Z", "2026-03-29 01:59 CET"],
    ["2026-03-29T01:00:00Z", "2026-03-29 03:00 CEST"],
    ["2026-10-25T00:30:00Z", "2026-10-25 02:30 CEST"],
    ["2026-10-25T01:30:00Z", "2026-10-25 02:30 CET"],
  ])("%s is %s", (iso, text) => {
    expect(berlinDayAndTime(iso)).toBe(text);
  });

  it("takes a Date as well as an ISO string", () => {
    expect(berlinDayAndTime(new Date("2026-11-27T11:33:00Z"))).toBe("2026-11-27 12:33 CET");
  });
});
