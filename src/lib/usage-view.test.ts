import { describe, expect, it } from "vitest";
import {
  addDays,
  berlinToday,
  dailyUsage,
  daysBetween,
  daysOf,
  featureLabel,
  memberSeriesKey,
  memberSeriesNames,
  presetRange,
} from "./usage-view.ts";

describe("presetRange", () => {
  it.each([
    ["days7", "2026-11-24T10:00:00Z", "2026-11-18", "2026-11-24"],
    ["days30", "2026-11-24T10:00:00Z", "2026-10-26", "2026-11-24"],
    ["days90", "2026-11-24T10:00:00Z", "2026-08-27", "2026-11-24"],
    ["thisMonth", "2026-11-24T10:00:00Z", "2026-11-01", "2026-11-24"],
    // 23:30 UTC on 31 March is 1 April in Berlin: the presets count Berlin's days.
    ["thisMonth", "2026-03-31T22:30:00Z", "2026-04-01", "2026-04-01"],
    ["days7", "2026-03-31T22:30:00Z", "2026-03-26", "2026-04-01"],
  ] as const)("%s at %s is %s to %s", (preset, now, from, to) => {
    expect(presetRange(preset, new Date(now))).toEqual({ from, to });
  });
});

describe("days", () => {
  it("counts the days between two days, across a leap day, a year end and the clock change", () => {
    expect(daysBetween("2026-11-30", "2026-11-30")).toBe(0);
    expect(daysBetween("2028-02-28", "2028-03-01")).toBe(2);
    expect(daysBetween("2026-12-31", "2026-12-01")).toBe(-30);
    expect(daysBetween("2026-03-28", "2026-03-30")).toBe(2);
    expect(daysBetween("2026-11-30", addDays("2026-11-30", 40))).toBe(40);
  });

  it("moves across month and year ends and leap days", () => {
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2028-03-01", -1)).toBe("2028-02-29");
    expect(addDays("2026-03-29", 1)).toBe("2026-03-30");
    expect(daysOf("2026-02-27", "2026-03-02")).toEqual([
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
    ]);
    expect(daysOf("2026-03-02", "2026-03-01")).toEqual([]);
    expect(berlinToday(new Date("2026-10-25T22:59:59Z"))).toBe("2026-10-25");
    expect(berlinToday(new Date("2026-10-25T23:00:00Z"))).toBe("2026-10-26");
  });
});

describe("dailyUsage", () => {
  it("gives each feature a series over every day of the range, zeros between, the most used first", () => {
    const usage = dailyUsage(
      [
        { date: "2026-11-02", feature: "background-remover", uses: 3, credits: 0.3 },
        { date: "2026-11-02", feature: "comic", uses: 1, credits: 5 },
        { date: "2026-11-04", feature: "background-remover", uses: 1, credits: 0.1 },
        { date: "2026-11-04", feature: null, uses: 1, credits: 1.5 },
      ],
      "2026-11-01",
      "2026-11-04",
    );
    expect(usage.days).toEqual(["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"]);
    expect(usage.series).toEqual([
      { feature: "comic", credits: [0, 5, 0, 0], total: 5, uses: 1 },
      { feature: null, credits: [0, 0, 0, 1.5], total: 1.5, uses: 1 },
      { feature: "background-remover", credits: [0, 0.3, 0, 0.1], total: 0.4, uses: 4 },
    ]);
  });

  it("is empty without charges", () => {
    expect(dailyUsage([], "2026-11-01", "2026-11-02")).toEqual({
      days: ["2026-11-01", "2026-11-02"],
      series: [],
    });
  });
});

describe("featureLabel", () => {
  it("names a feature by the credit-cost table, and a charge without one as manual", () => {
    expect(featureLabel("image-to-video", "Manual")).toBe("Image-to-video");
    expect(featureLabel(null, "Manual")).toBe("Manual");
    expect(featureLabel("retired-feature", "Manual")).toBe("retired-feature");
  });
});

describe("member series", () => {
  const rows = [
    {
      date: "2026-11-01",
      member_group: "member",
      member_id: "u1",
      member_username: "ann",
      uses: 1,
      credits: 5,
    },
    {
      date: "2026-11-01",
      member_group: "shared_keys",
      member_id: null,
      member_username: null,
      uses: 2,
      credits: 1,
    },
    {
      date: "2026-11-02",
      member_group: "member",
      member_id: "u2",
      member_username: "bob",
      uses: 1,
      credits: 9,
    },
    {
      date: "2026-11-02",
      member_group: "member",
      member_id: "u1",
      member_username: "ann",
      uses: 3,
      credits: 2.5,
    },
    {
      date: "2026-11-02",
      member_group: "without_key",
      member_id: null,
      member_username: null,
      uses: 1,
      credits: 1.5,
    },
    {
      date: "2026-11-02",
      member_group: "member",
      member_id: null,
      member_username: null,
      uses: 1,
      credits: 0.25,
    },
  ] as const;

  it("keys a member by id, and the shared keys and the charges without a key as one group each", () => {
    expect(rows.map(memberSeriesKey)).toEqual([
      "member:u1",
      "shared_keys",
      "member:u2",
      "member:u1",
      "without_key",
      "member:",
    ]);
    expect(memberSeriesKey({ uses: 1, credits: 1 })).toBe("without_key");
  });

  it("names each series: the username, Shared keys, Without a key, Former member", () => {
    expect([...memberSeriesNames(rows)]).toEqual([
      ["member:u1", "ann"],
      ["shared_keys", "Shared keys"],
      ["member:u2", "bob"],
      ["without_key", "Without a key"],
      ["member:", "Former member"],
    ]);
  });

  it("pivots group_by=day,member into one series per member, the largest first", () => {
    const usage = dailyUsage(rows, "2026-11-01", "2026-11-02", memberSeriesKey);
    expect(usage.series).toEqual([
      { feature: "member:u2", credits: [0, 9], total: 9, uses: 1 },
      { feature: "member:u1", credits: [5, 2.5], total: 7.5, uses: 4 },
      { feature: "without_key", credits: [0, 1.5], total: 1.5, uses: 1 },
      { feature: "shared_keys", credits: [1, 0], total: 1, uses: 2 },
      { feature: "member:", credits: [0, 0.25], total: 0.25, uses: 1 },
    ]);
  });
});
