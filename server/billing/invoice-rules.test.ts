import { describe, expect, it } from "vitest";
import { formatInvoiceNumber, seriesOf, taxOfPayment } from "./invoice-rules.ts";

describe("invoice numbers", () => {
  it.each([
    ["a day in the year", "2026-06-01T12:00:00.000Z", "INV-2026"],
    ["New Year's Eve at 23:30 in Berlin is next year's already", "2026-12-31T23:30:00.000Z", "INV-2027"],
    ["New Year's Eve at 22:59 UTC is still this year in Berlin", "2026-12-31T22:59:59.999Z", "INV-2026"],
  ])("%s: %s is in %s", (_case, at, series) => {
    expect(seriesOf(new Date(at))).toBe(series);
  });

  it.each([
    [1, "INV-2026-000001"],
    [42, "INV-2026-000042"],
    [999_999, "INV-2026-999999"],
    [1_000_000, "INV-2026-1000000"],
  ])("sequence %i is %s", (sequence, number) => {
    expect(formatInvoiceNumber("INV-2026", sequence)).toBe(number);
  });
});

describe("taxOfPayment", () => {
  const at = new Date("2026-06-01T12:00:00.000Z");
  const buyer = (country: string | null, vatId: string | null = null) => ({ country, vatId });

  it.each([
    [
      "a German consumer: domestic 19 %",
      { net: 5000, tax: 950, reverseCharge: false, buyer: buyer("DE") },
      "domestic",
      1900,
    ],
    [
      "a French consumer: France's 20 %",
      { net: 5000, tax: 1000, reverseCharge: false, buyer: buyer("FR") },
      "eu_consumer",
      2000,
    ],
    [
      "a French business with a VAT ID: reverse charge",
      { net: 5000, tax: 0, reverseCharge: false, buyer: buyer("FR", "FR40303265045") },
      "reverse_charge",
      0,
    ],
    [
      "the provider's own word for reverse charge",
      { net: 5000, tax: 0, reverseCharge: true, buyer: buyer("FR") },
      "reverse_charge",
      0,
    ],
    [
      "a buyer outside the EU: none",
      { net: 5000, tax: 0, reverseCharge: false, buyer: buyer("US") },
      "outside_eu",
      0,
    ],
  ] as const)("%s", (_case, payment, treatment, rateBasisPoints) => {
    expect(taxOfPayment(payment, "DE", at)).toEqual({ treatment, rateBasisPoints });
  });

  it.each([
    [
      "no buyer country (a payment from before VAT was collected)",
      { net: 5000, tax: 950, reverseCharge: false, buyer: buyer(null) },
    ],
    ["no buyer country and no tax", { net: 5000, tax: 0, reverseCharge: false, buyer: buyer(null) }],
    [
      "tax that is not the rate's (the amounts stand on their own)",
      { net: 5000, tax: 951, reverseCharge: false, buyer: buyer("DE") },
    ],
    ["reverse charge with tax on it", { net: 5000, tax: 950, reverseCharge: true, buyer: buyer("DE") }],
  ])("%s: no treatment", (_case, payment) => {
    expect(taxOfPayment(payment, "DE", at)).toEqual({ treatment: null, rateBasisPoints: null });
  });
});
