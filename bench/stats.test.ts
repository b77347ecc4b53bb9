import { describe, expect, it } from "vitest";
import { max, median, min, percentile } from "./stats.ts";

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

describe("percentile", () => {
  it.each([
    [[5], 95, 5],
    [Array.from({ length: 20 }, (_, i) => i + 1), 95, 19],
    [Array.from({ length: 24 }, (_, i) => 24 - i), 95, 23],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 100, 4],
  ])("by nearest rank: percentile(%j, %d) = %d", (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  it("refuses an empty list", () => {
    expect(() => percentile([], 95)).toThrow(/no values/);
  });
});
