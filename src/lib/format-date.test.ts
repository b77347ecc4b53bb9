import { describe, expect, it } from "vitest";
import { dayAndTime, isoDay } from "./format-date.ts";

describe("isoDay and dayAndTime", () => {
  it("answer null for nothing and for text that is no date", () => {
    expect(isoDay(null)).toBeNull();
    expect(isoDay("soon")).toBeNull();
    expect(dayAndTime(undefined)).toBeNull();
    expect(dayAndTime("soon")).toBeNull();
  });
});
