import { describe, expect, it } from "vitest";
import { formatPrice, wholeUnitsRoundedUp } from "./price.ts";

describe("formatPrice", () => {
  it.each([
    [7900, "eur", "€79"],
    [7901, "eur", "€80"],
    [7999, "eur", "€80"],
    [1, "eur", "€1"],
    [0, "eur", "€0"],
    [5000, "eur", "€50"],
    [9000, "eur", "€90"],
    [34900, "usd", "$349"],
    [34950, "usd", "$350"],
    [279900, "eur", "€2,799"],
    [279901, "eur", "€2,800"],
    [100000000, "usd", "$1,000,000"],
    [7901, "EUR", "€80"],
    [1050, "chf", "11 CHF"],
  ])("%i minor units of %s show as %s", (unitAmount, currency, expected) => {
    expect(formatPrice(unitAmount, currency)).toBe(expected);
  });

  it.each([[-1], [10.5], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    "refuses %d minor units",
    (unitAmount) => {
      expect(() => formatPrice(unitAmount, "eur")).toThrow(RangeError);
    },
  );
});

describe("wholeUnitsRoundedUp", () => {
  it.each([
    [0, 0],
    [1, 1],
    [99, 1],
    [100, 1],
    [101, 2],
    [149900, 1499],
  ])("%i minor units round up to %i", (minor, whole) => {
    expect(wholeUnitsRoundedUp(minor)).toBe(whole);
  });
});
