import { describe, expect, it } from "vitest";
import { quarterOf, quarterRange, type VatEntry, vatLines, vatTotals } from "./vat-report.ts";

describe("quarters on Berlin's calendar", () => {
  it.each([
    ["2026-01-01T00:00:00+01:00", "2026-Q1"],
    ["2026-03-31T23:59:59+02:00", "2026-Q1"],
    ["2026-03-31T22:00:00Z", "2026-Q2"], // already 1 April in Berlin
    ["2026-06-30T21:59:59Z", "2026-Q2"],
    ["2026-07-01T00:00:00+02:00", "2026-Q3"],
    ["2026-12-31T23:00:00Z", "2027-Q1"], // New Year in Berlin
    ["2026-10-01T00:00:00+02:00", "2026-Q4"],
  ])("%s is in %s", (at, quarter) => {
    expect(quarterOf(new Date(at))).toBe(quarter);
  });

  it.each([
    ["2026-Q1", "2025-12-31T23:00:00.000Z", "2026-03-31T22:00:00.000Z"],
    ["2026-Q2", "2026-03-31T22:00:00.000Z", "2026-06-30T22:00:00.000Z"],
    ["2026-Q3", "2026-06-30T22:00:00.000Z", "2026-09-30T22:00:00.000Z"],
    ["2026-Q4", "2026-09-30T22:00:00.000Z", "2026-12-31T23:00:00.000Z"],
  ])("%s runs from %s until %s", (quarter, from, to) => {
    expect(quarterRange(quarter)).toEqual({ from: new Date(from), to: new Date(to) });
  });

  it.each([["2026-Q5"], ["2026-Q0"], ["26-Q1"], ["2026Q1"], [""], ["2026-q1"], ["x2026-Q1"], ["2026-Q1x"]])(
    "refuses %j",
    (q) => {
      expect(quarterRange(q)).toBeUndefined();
    },
  );
});

const sale = (over: Partial<VatEntry>): VatEntry => ({
  kind: "sale",
  at: new Date("2026-11-10T10:00:00Z"),
  saleAt: null,
  treatment: "domestic",
  rateBasisPoints: 1900,
  country: "DE",
  vatId: null,
  currency: "eur",
  net: 10_000,
  vat: 1_900,
  ...over,
});
const refund = (over: Partial<VatEntry>): VatEntry =>
  sale({ kind: "refund", saleAt: new Date("2026-08-01T10:00:00Z"), ...over });

describe("vatLines", () => {
  it("sums domestic sales by rate, without country or VAT ID", () => {
    expect(vatLines([sale({}), sale({ net: 5_000, vat: 950 })])).toEqual([
      {
        section: "domestic",
        country: null,
        rate: 19,
        vatId: null,
        originalQuarter: null,
        currency: "eur",
        net: 15_000,
        vat: 2_850,
        count: 2,
      },
    ]);
  });

  it("keeps OSS sales per member state of consumption and rate", () => {
    const lines = vatLines([
      sale({ treatment: "eu_consumer", country: "FR", rateBasisPoints: 2000, vat: 2_000 }),
      sale({ treatment: "eu_consumer", country: "AT", rateBasisPoints: 2000, vat: 2_000 }),
      sale({ treatment: "eu_consumer", country: "FR", rateBasisPoints: 550, vat: 550 }),
      sale({ treatment: "eu_consumer", country: "FR", rateBasisPoints: 2000, net: 1_000, vat: 200 }),
    ]);
    expect(lines.map((l) => [l.section, l.country, l.rate, l.net, l.vat, l.count])).toEqual([
      ["oss", "AT", 20, 10_000, 2_000, 1],
      ["oss", "FR", 5.5, 10_000, 550, 1],
      ["oss", "FR", 20, 11_000, 2_200, 2],
    ]);
  });

  it("lists reverse-charge sales per buyer VAT ID and country, with no VAT", () => {
    const lines = vatLines([
      sale({
        treatment: "reverse_charge",
        country: "FR",
        vatId: "FR40303265045",
        rateBasisPoints: 0,
        vat: 0,
      }),
      sale({
        treatment: "reverse_charge",
        country: "FR",
        vatId: "FR40303265045",
        rateBasisPoints: 0,
        vat: 0,
      }),
      sale({
        treatment: "reverse_charge",
        country: "NL",
        vatId: "NL123456789B01",
        rateBasisPoints: 0,
        vat: 0,
      }),
    ]);
    expect(lines.map((l) => [l.section, l.country, l.vatId, l.rate, l.net, l.vat, l.count])).toEqual([
      ["reverse_charge", "FR", "FR40303265045", null, 20_000, 0, 2],
      ["reverse_charge", "NL", "NL123456789B01", null, 10_000, 0, 1],
    ]);
  });

  it("keeps sales outside the EU per country, and what we did not decide apart", () => {
    const lines = vatLines([
      sale({ treatment: "outside_eu", country: "US", rateBasisPoints: 0, vat: 0 }),
      sale({ treatment: null, rateBasisPoints: null, country: null, vat: 1_234 }),
    ]);
    expect(lines.map((l) => [l.section, l.country, l.rate, l.net, l.vat])).toEqual([
      ["non_eu", "US", null, 10_000, 0],
      ["unclassified", null, null, 10_000, 1_234],
    ]);
  });

  it("counts a refund as a negative line in its section, naming the quarter of the sale", () => {
    const lines = vatLines([
      sale({}),
      refund({ net: 5_000, vat: 950 }),
      refund({ net: 1_000, vat: 190, saleAt: new Date("2026-11-02T10:00:00Z") }),
      refund({ treatment: "eu_consumer", country: "FR", rateBasisPoints: 2000, net: 10_000, vat: 2_000 }),
    ]);
    expect(lines.map((l) => [l.section, l.country, l.originalQuarter, l.net, l.vat, l.count])).toEqual([
      ["domestic", null, null, 10_000, 1_900, 1],
      ["domestic", null, "2026-Q3", -5_000, -950, 1],
      ["domestic", null, "2026-Q4", -1_000, -190, 1],
      ["oss", "FR", "2026-Q3", -10_000, -2_000, 1],
    ]);
  });

  it("names no VAT ID on an OSS line, whatever the buyer typed", () => {
    const [line] = vatLines([
      sale({ treatment: "eu_consumer", country: "FR", rateBasisPoints: 2000, vatId: "FR1" }),
    ]);
    expect(line).toMatchObject({ section: "oss", country: "FR", vatId: null });
  });

  it("keeps lines apart whose fields would run together", () => {
    const lines = vatLines([
      sale({ treatment: null, country: "A", rateBasisPoints: 1200 }),
      sale({ treatment: null, country: "A1", rateBasisPoints: 200 }),
    ]);
    expect(lines).toHaveLength(2);
  });

  it("puts what is missing first: no country, no rate, no VAT ID, the sale before its refunds", () => {
    const unclassified = (over: Partial<VatEntry>) => sale({ treatment: null, ...over });
    const lines = vatLines([
      unclassified({ country: "AT", rateBasisPoints: 0, vatId: "ATU1" }),
      unclassified({ country: "AT", rateBasisPoints: 0, vatId: null }),
      unclassified({ country: "AT", rateBasisPoints: null }),
      unclassified({ country: null }),
      unclassified({
        country: "AT",
        rateBasisPoints: 0,
        vatId: null,
        kind: "refund",
        saleAt: new Date("2026-08-01"),
      }),
    ]);
    expect(lines.map((l) => [l.country, l.rate, l.vatId, l.originalQuarter])).toEqual([
      [null, 19, null, null],
      ["AT", null, null, null],
      ["AT", 0, null, null],
      ["AT", 0, null, "2026-Q3"],
      ["AT", 0, "ATU1", null],
    ]);
    const reversed = vatLines([
      unclassified({
        country: "AT",
        rateBasisPoints: 0,
        vatId: null,
        kind: "refund",
        saleAt: new Date("2026-08-01"),
      }),
      unclassified({ country: "AT", rateBasisPoints: 0, vatId: "ATU1" }),
      unclassified({ country: "AT", rateBasisPoints: 0, vatId: null }),
      unclassified({ country: null }),
      unclassified({ country: "AT", rateBasisPoints: null }),
    ]);
    expect(reversed).toEqual(lines);
  });

  it.each([
    [null, 0],
    [0, null],
    [null, null],
    [5, 0],
  ])("orders rates %s and %s the same whichever comes first", (first, second) => {
    const line = (rate: number | null) =>
      sale({ treatment: null, rateBasisPoints: rate === null ? null : rate * 100 });
    const forward = vatLines([line(first), line(second)]).map((l) => l.rate);
    const backward = vatLines([line(second), line(first)]).map((l) => l.rate);
    expect(forward).toEqual(backward);
    expect(forward).toEqual(
      [first, second].sort((a, b) => (a ?? -1) - (b ?? -1)).filter((r, i, all) => all.indexOf(r) === i),
    );
  });

  it("keeps currencies apart", () => {
    expect(vatLines([sale({}), sale({ currency: "usd" })]).map((l) => l.currency)).toEqual(["eur", "usd"]);
  });

  it("orders sections as the filing does: domestic, OSS, reverse charge, outside the EU, unclassified", () => {
    const lines = vatLines([
      sale({ treatment: null, rateBasisPoints: null }),
      sale({ treatment: "outside_eu", country: "US", rateBasisPoints: 0, vat: 0 }),
      sale({ treatment: "reverse_charge", country: "FR", vatId: "FR1", rateBasisPoints: 0, vat: 0 }),
      sale({ treatment: "eu_consumer", country: "FR", rateBasisPoints: 2000 }),
      sale({}),
    ]);
    expect(lines.map((l) => l.section)).toEqual([
      "domestic",
      "oss",
      "reverse_charge",
      "non_eu",
      "unclassified",
    ]);
  });
});

describe("vatTotals", () => {
  it("sums each section and the quarter per currency, refunds netted", () => {
    const lines = vatLines([
      sale({}),
      refund({ net: 5_000, vat: 950 }),
      sale({ treatment: "eu_consumer", country: "FR", rateBasisPoints: 2000, vat: 2_000 }),
    ]);
    expect(vatTotals(lines)).toEqual([
      { section: "domestic", currency: "eur", net: 5_000, vat: 950 },
      { section: "all", currency: "eur", net: 15_000, vat: 2_950 },
      { section: "oss", currency: "eur", net: 10_000, vat: 2_000 },
    ]);
  });
});
