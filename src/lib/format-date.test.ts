import { describe, expect, it } from "vitest";
import { dayAndTime, isoDay, localDay, localDayStart } from "./format-date.ts";

describe("isoDay and dayAndTime", () => {
  it("answer null for nothing and for text that is no date", () => {
    expect(isoDay(null)).toBeNull();
    expect(isoDay("soon")).toBeNull();
    expect(dayAndTime(undefined)).toBeNull();
    expect(dayAndTime("soon")).toBeNull();
    expect(localDay(null)).toBeNull();
    expect(localDay("soon")).toBeNull();
  });

  it("localDay is the day of dayAndTime, on the same clock", () => {
    for (const at of ["2026-11-30T23:30:00Z", "2026-07-31T22:30:00Z", "2026-01-01T00:00:00Z"]) {
      expect(localDay(at)).toBe(dayAndTime(at)?.slice(0, 10));
      expect(localDay(at)).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
  });

  it("gives the Berlin day, as the mails and invoices do, in winter and in summer", () => {
    expect(isoDay("2026-11-30T22:59:59Z")).toBe("2026-11-30");
    expect(isoDay("2026-11-30T23:30:00Z")).toBe("2026-12-01");
    expect(isoDay("2026-07-31T21:59:00Z")).toBe("2026-07-31");
    expect(isoDay("2026-07-31T22:30:00Z")).toBe("2026-08-01");
    // A date without a time (an invoice's date) stays that date.
    expect(isoDay("2026-12-01")).toBe("2026-12-01");
  });

  it("localDayStart is the reader's midnight of a typed day, and leaves anything else to the API", () => {
    expect(localDayStart("2026-11-24")).toBe(new Date(2026, 10, 24).toISOString());
    expect(localDayStart(" 2026-07-01 ")).toBe(new Date(2026, 6, 1).toISOString());
    for (const other of ["2026-02-30", "2026-11-24T10:00:00Z", "24.11.2026", ""]) {
      expect(localDayStart(other)).toBe(other);
    }
  });
});
