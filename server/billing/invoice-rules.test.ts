import { describe, expect, it } from "vitest";
import {
  creditNoteAmounts,
  creditNoteSeriesOf,
  formatInvoiceNumber,
  seriesOf,
  taxOfPayment,
} from "./invoice-rules.ts";

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
      "a French business whose VAT ID is not confirmed yet, charged VAT: France's 20 %",
      { net: 5000, tax: 1000, reverseCharge: false, buyer: buyer("FR", "FR40303265045") },
      "eu_consumer",
      2000,
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
    [
      "a VAT ID and tax that is neither reverse charge nor the country's rate",
      { net: 5000, tax: 999, reverseCharge: false, buyer: buyer("FR", "FR40303265045") },
    ],
    ["reverse charge with tax on it", { net: 5000, tax: 950, reverseCharge: true, buyer: buyer("DE") }],
  ])("%s: no treatment", (_case, payment) => {
    expect(taxOfPayment(payment, "DE", at)).toEqual({ treatment: null, rateBasisPoints: null });
  });
});

describe("credit notes", () => {
  it.each([
    ["a day in the year", "2026-06-01T12:00:00.000Z", "CN-2026"],
    ["New Year's Eve at 23:30 in Berlin is next year's already", "2026-12-31T23:30:00.000Z", "CN-2027"],
  ])("%s: %s is in %s", (_case, at, series) => {
    expect(creditNoteSeriesOf(new Date(at))).toBe(series);
  });

  // A €119.00 invoice: €100.00 net and €19.00 VAT (19 %).
  const invoice = { total: 11_900, tax: 1_900 };

  it.each([
    ["a full refund reverses the whole invoice", 0, 11_900, { net: 10_000, tax: 1_900, total: 11_900 }],
    ["half of it, half of each", 0, 5_950, { net: 5_000, tax: 950, total: 5_950 }],
    ["the rest after that half", 5_950, 11_900, { net: 5_000, tax: 950, total: 5_950 }],
    ["one cent: its VAT rounds to nothing", 0, 1, { net: 1, tax: 0, total: 1 }],
    ["the cent that tips the rounding carries the VAT cent", 3, 4, { net: 0, tax: 1, total: 1 }],
  ])("%s", (_case, before, after, amounts) => {
    expect(creditNoteAmounts(invoice, before, after)).toEqual(amounts);
  });

  it("adds up to the invoice's net and VAT however the refund is split", () => {
    let net = 0;
    let tax = 0;
    let refunded = 0;
    for (const part of [1, 333, 2_000, 17, 4_549, 5_000]) {
      const amounts = creditNoteAmounts(invoice, refunded, refunded + part);
      expect(amounts.net + amounts.tax).toBe(part);
      net += amounts.net;
      tax += amounts.tax;
      refunded += part;
    }
    expect({ refunded, net, tax }).toEqual({ refunded: 11_900, net: 10_000, tax: 1_900 });
  });

  it("reverses no VAT where none was charged, and nothing of a zero invoice", () => {
    expect(creditNoteAmounts({ total: 5_000, tax: 0 }, 0, 2_500)).toEqual({
      net: 2_500,
      tax: 0,
      total: 2_500,
    });
    expect(creditNoteAmounts({ total: 0, tax: 0 }, 0, 0)).toEqual({ net: 0, tax: 0, total: 0 });
  });
});
