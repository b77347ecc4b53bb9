import { describe, expect, it } from "vitest";
import { USAGE_RULES } from "../../contract/usage.ts";
import { isRefusal, usageDimensions, usageRange } from "./usage-range.ts";

describe("usageRange", () => {
  it.each([
    // [case, query, now, from, to, start, end]
    [
      "the default: 30 Berlin days up to today",
      {},
      "2026-11-24T09:00:00Z",
      "2026-10-26",
      "2026-11-24",
      "2026-10-25T23:00:00.000Z",
      "2026-11-24T23:00:00.000Z",
    ],
    [
      "today is Berlin's: 23:30 UTC on 31 March is 1 April",
      {},
      "2026-03-31T22:30:00Z",
      "2026-03-03",
      "2026-04-01",
      "2026-03-02T23:00:00.000Z",
      "2026-04-01T22:00:00.000Z",
    ],
    [
      "a range over the spring change starts in CET and ends in CEST",
      { from: "2026-03-29", to: "2026-03-29" },
      "2026-11-24T09:00:00Z",
      "2026-03-29",
      "2026-03-29",
      "2026-03-28T23:00:00.000Z",
      "2026-03-29T22:00:00.000Z",
    ],
    [
      "the autumn change's day lasts 25 hours",
      { from: "2026-10-25", to: "2026-10-25" },
      "2026-11-24T09:00:00Z",
      "2026-10-25",
      "2026-10-25",
      "2026-10-24T22:00:00.000Z",
      "2026-10-25T23:00:00.000Z",
    ],
    [
      "a month end: all of February in a common year",
      { from: "2026-02-01", to: "2026-02-28" },
      "2026-11-24T09:00:00Z",
      "2026-02-01",
      "2026-02-28",
      "2026-01-31T23:00:00.000Z",
      "2026-02-28T23:00:00.000Z",
    ],
    [
      "a leap day's month",
      { from: "2028-02-29", to: "2028-02-29" },
      "2026-11-24T09:00:00Z",
      "2028-02-29",
      "2028-02-29",
      "2028-02-28T23:00:00.000Z",
      "2028-02-29T23:00:00.000Z",
    ],
    [
      "only 'from': 30 days from it",
      { from: "2026-12-15" },
      "2026-11-24T09:00:00Z",
      "2026-12-15",
      "2027-01-13",
      "2026-12-14T23:00:00.000Z",
      "2027-01-13T23:00:00.000Z",
    ],
    [
      "only 'to': 30 days up to it",
      { to: "2026-03-01" },
      "2026-11-24T09:00:00Z",
      "2026-01-31",
      "2026-03-01",
      "2026-01-30T23:00:00.000Z",
      "2026-03-01T23:00:00.000Z",
    ],
    [
      "the longest range, 366 days over a leap day",
      { from: "2027-03-01", to: "2028-02-29" },
      "2026-11-24T09:00:00Z",
      "2027-03-01",
      "2028-02-29",
      "2027-02-28T23:00:00.000Z",
      "2028-02-29T23:00:00.000Z",
    ],
  ])("%s", (_case, query, now, from, to, start, end) => {
    const range = usageRange(query, new Date(now));
    if (isRefusal(range)) throw new Error(range.message);
    expect(range).toEqual({ from, to, start: new Date(start), end: new Date(end) });
  });

  it.each([
    ["'from' after 'to'", { from: "2026-03-02", to: "2026-03-01" }, "from", USAGE_RULES.order],
    ["367 days", { from: "2025-03-01", to: "2026-03-02" }, "to", USAGE_RULES.tooLong],
    ["367 days over a leap day", { from: "2027-03-01", to: "2028-03-01" }, "to", USAGE_RULES.tooLong],
  ])("refuses %s", (_case, query, field, message) => {
    expect(usageRange(query, new Date("2026-11-24T09:00:00Z"))).toEqual({ field, message });
  });
});

describe("usageDimensions", () => {
  it.each([
    [undefined, ["day"]],
    [["feature"], ["feature"]],
    [
      ["api_key", "day"],
      ["day", "api_key"],
    ],
    [
      ["feature", "api_key", "day"],
      ["day", "feature", "api_key"],
    ],
    [["member"], ["member"]],
    [
      ["member", "day"],
      ["day", "member"],
    ],
  ])("%j groups by %j", (groupBy, dimensions) => {
    expect(usageDimensions(groupBy)).toEqual(dimensions);
  });

  it.each([[[]], [[""]], [["week"]], [["day", "Day"]]])("refuses %j", (groupBy) => {
    expect(usageDimensions(groupBy)).toEqual({ field: "group_by", message: USAGE_RULES.groupBy });
  });
});

describe("isRefusal", () => {
  it("tells a refusal (a field and its message) from a range or a list of dimensions", () => {
    expect(isRefusal({ field: "from", message: "Bad" })).toBe(true);
    expect(isRefusal({ field: "from" })).toBe(false);
    expect(isRefusal({ message: "Bad" })).toBe(false);
    expect(isRefusal({ from: "2026-01-01", to: "2026-01-02", start: new Date(), end: new Date() })).toBe(
      false,
    );
    expect(isRefusal(["date", "feature"])).toBe(false);
  });
});
