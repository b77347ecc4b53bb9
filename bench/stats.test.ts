import { describe, expect, it } from "vitest";
import { max, median, min } from "./stats.ts";

describe("median, min, max", () => {
  it.each([
    [[3], 3],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[100, 98, 100], 100],
  ])("median(%j) = %d", (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it("does not reorder its input", () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it("min and max", () => {
    expect(min([98, 100, 97])).toBe(97);
    expect(max([0, 0.01, 0])).toBe(0.01);
  });

  it("refuses an empty list rather than inventing a figure", () => {
    expect(() => median([])).toThrow(/no values/);
    expect(() => min([])).toThrow(/no values/);
    expect(() => max([])).toThrow(/no values/);
  });
});
