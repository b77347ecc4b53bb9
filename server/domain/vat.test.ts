import { describe, expect, it } from "vitest";
import {
  BUYER_COUNTRIES,
  checkVatId,
  decideVat,
  EU_COUNTRIES,
  formatRate,
  standardRateBasisPoints,
  taxed,
  VAT_ID_MESSAGES,
  vatOf,
} from "./vat.ts";

const at = new Date("2026-11-24T12:00:00Z");
const seller = "DE";

describe("decideVat: who pays which rate (seller in Germany)", () => {
  it.each([
    // buyer country, VAT ID, treatment, rate in basis points
    ["DE", null, "domestic", 1900],
    ["DE", "DE136695976", "domestic", 1900],
    ["FR", null, "eu_consumer", 2000],
    ["FR", "FR40303265045", "reverse_charge", 0],
    ["AT", null, "eu_consumer", 2000],
    ["FI", null, "eu_consumer", 2550],
    ["HU", null, "eu_consumer", 2700],
    ["LU", null, "eu_consumer", 1700],
    ["IE", null, "eu_consumer", 2300],
    ["NL", "NL004495445B01", "reverse_charge", 0],
    ["US", null, "outside_eu", 0],
    ["GB", null, "outside_eu", 0],
    ["CH", null, "outside_eu", 0],
  ] as const)("%s with VAT ID %s: %s at %i bp", (country, vatId, treatment, rate) => {
    const decision = decideVat({ sellerCountry: seller, buyerCountry: country, vatId, at });
    expect(decision).toMatchObject({ treatment, rateBasisPoints: rate, country });
  });

  it("takes the rate in force on the day of the sale", () => {
    // Germany's temporary 16 % ran from 2020-07-01 to 2020-12-31.
    expect(standardRateBasisPoints("DE", new Date("2020-09-01T00:00:00Z"))).toBe(1600);
    expect(standardRateBasisPoints("DE", new Date("2020-06-15T00:00:00Z"))).toBe(1900);
    expect(standardRateBasisPoints("DE", new Date("2021-01-02T00:00:00Z"))).toBe(1900);
    // Finland: 24 % until 2024-08-31, then 25.5 %.
    expect(standardRateBasisPoints("FI", new Date("2024-08-01T00:00:00Z"))).toBe(2400);
    expect(standardRateBasisPoints("FI", new Date("2024-10-01T00:00:00Z"))).toBe(2550);
  });

  it("knows every EU country's rate and lists the EU among the buyers' countries", () => {
    expect(EU_COUNTRIES).toHaveLength(27);
    for (const country of EU_COUNTRIES) {
      expect(BUYER_COUNTRIES).toContain(country);
      const rate = standardRateBasisPoints(country, at);
      expect(rate).toBeGreaterThanOrEqual(1500);
      expect(rate).toBeLessThanOrEqual(2700);
    }
  });
});

describe("checkVatId", () => {
  it("accepts well-formed IDs of the buyer's country, compacted and upper-cased", () => {
    expect(checkVatId("fr 40 303 265 045", "FR")).toEqual({
      ok: true,
      vatId: "FR40303265045",
      country: "FR",
    });
    expect(checkVatId("DE136695976", "DE")).toMatchObject({ ok: true });
    // Greece's VAT prefix is EL.
    expect(checkVatId("EL094259216", "GR")).toMatchObject({ ok: true, country: "GR" });
  });

  it("refuses a wrong check digit, another country's ID and an ID outside the EU", () => {
    expect(checkVatId("FR40303265046", "FR")).toEqual({ ok: false, message: VAT_ID_MESSAGES.invalid });
    expect(checkVatId("not a vat id", "FR")).toEqual({ ok: false, message: VAT_ID_MESSAGES.invalid });
    expect(checkVatId("DE136695976", "FR")).toEqual({ ok: false, message: VAT_ID_MESSAGES.otherCountry });
    expect(checkVatId("GB980780684", "GB")).toEqual({ ok: false, message: VAT_ID_MESSAGES.outsideEu });
  });
});

describe("rounding: VAT to the nearest cent, half a cent up", () => {
  it.each([
    // net cents, basis points, VAT cents
    [5000, 1900, 950],
    [999, 1900, 190], // 189.81
    [1, 1900, 0], // 0.19
    [3, 1900, 1], // 0.57
    [50, 1900, 10], // 9.5 → 10: the half cent goes up
    [150, 1700, 26], // 25.5 → 26
    [250, 2000, 50],
    [9000, 2550, 2295],
    [1999, 2550, 510], // 509.745
    [2, 2500, 1], // 0.5 → 1
    [0, 1900, 0],
    [12345, 0, 0],
  ])("%i cents at %i bp: %i cents VAT", (net, rate, tax) => {
    expect(vatOf(net, rate)).toBe(tax);
    expect(taxed(net, rate)).toEqual({ net, tax, total: net + tax });
  });

  it("refuses amounts that are not whole cents", () => {
    expect(() => vatOf(10.5, 1900)).toThrow(/whole cents/);
    expect(() => vatOf(-1, 1900)).toThrow(/whole cents/);
    expect(() => vatOf(100, 19.5)).toThrow(/basis points/);
  });

  it("formats rates without trailing zeros", () => {
    expect(formatRate(1900)).toBe("19 %");
    expect(formatRate(2550)).toBe("25.5 %");
    expect(formatRate(0)).toBe("0 %");
  });
});
