import { describe, expect, it } from "vitest";
import { recentQuarters } from "./quarters.ts";

describe("recentQuarters", () => {
  it.each([
    ["2026-11-25T12:00:00Z", ["2026-Q4", "2026-Q3", "2026-Q2", "2026-Q1", "2025-Q4"]],
    ["2026-03-31T22:30:00Z", ["2026-Q2", "2026-Q1", "2025-Q4", "2025-Q3", "2025-Q2"]], // April in Berlin
    ["2026-12-31T23:30:00Z", ["2027-Q1", "2026-Q4", "2026-Q3", "2026-Q2", "2026-Q1"]],
  ])("at %s", (now, quarters) => {
    expect(recentQuarters(new Date(now), 5)).toEqual(quarters);
  });
});
