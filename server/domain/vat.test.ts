import { describe, expect, it } from "vitest";
import {
  BUYER_COUNTRIES,
  checkVatId,
  decideVat,
  EU_COUNTRIES,
  formatRate,
  invoiceNote,
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

  it("reads a dated table: the earliest end after the sale names the rate, from that instant on", () => {
    const table = {
      XY: {
        rate: 0.21,
        // Keys in an order where taking a later end would give a wrong answer.
        before: { "2020-06-30T22:00:00.000Z": { rate: 0.19 }, "2020-12-31T23:00:00.000Z": { rate: 0.16 } },
      },
    };
    const at = (iso: string) => standardRateBasisPoints("XY", new Date(iso), table);
    expect(at("2020-03-01T00:00:00.000Z")).toBe(1900);
    expect(at("2020-06-30T21:59:59.999Z")).toBe(1900);
    expect(at("2020-06-30T22:00:00.000Z")).toBe(1600);
    expect(at("2020-12-31T23:00:00.000Z")).toBe(2100);
    // Two spellings of one instant: the first listed wins.
    const same = {
      XY: {
        rate: 0.2,
        before: { "2030-01-01T00:00:00.000Z": { rate: 0.1 }, "2030-01-01T00:00:00Z": { rate: 0.3 } },
      },
    };
    expect(standardRateBasisPoints("XY", new Date("2029-01-01T00:00:00.000Z"), same)).toBe(1000);
  });

  it("refuses a country without a rate and a table with a bad date", () => {
    expect(() => standardRateBasisPoints("XX", at)).toThrow("No VAT rate for country XX");
    const broken = { XY: { rate: 0.2, before: { "not a date": { rate: 0.1 } } } };
    expect(() => standardRateBasisPoints("XY", at, broken)).toThrow(
      "Bad date in the VAT table for XY: not a date",
    );
  });

  it("lists every ISO country as a buyer's country, the EU's included", () => {
    expect(BUYER_COUNTRIES.length).toBeGreaterThanOrEqual(249);
    for (const code of ["DE", "FR", "US", "XK", "GR", "CH"]) expect(BUYER_COUNTRIES).toContain(code);
    for (const code of BUYER_COUNTRIES) expect(code).toMatch(/^[A-Z]{2}$/);
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
    expect(() => vatOf(100, -1)).toThrow(/basis points/);
  });

  it("puts the reverse-charge and outside-the-EU notes on invoices, none otherwise", () => {
    expect(invoiceNote("reverse_charge")).toBe(
      "Reverse charge: VAT is to be accounted for by the recipient (Art. 196 Directive 2006/112/EC).",
    );
    expect(invoiceNote("outside_eu")).toBe(
      "Not subject to VAT in the EU: service supplied to a recipient outside the EU.",
    );
    expect(invoiceNote("domestic")).toBeNull();
    expect(invoiceNote("eu_consumer")).toBeNull();
  });

  it("formats rates without trailing zeros", () => {
    expect(formatRate(1900)).toBe("19 %");
    expect(formatRate(2550)).toBe("25.5 %");
    expect(formatRate(0)).toBe("0 %");
  });
});
