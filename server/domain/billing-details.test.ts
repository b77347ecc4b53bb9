import { describe, expect, it } from "vitest";
import { BILLING_DETAILS_MESSAGES } from "../../contract/billing-details-messages.ts";
import { addressLines, checkBillingDetails } from "./billing-details.ts";
import { VAT_ID_MESSAGES } from "./vat.ts";

describe("an organisation's billing details", () => {
  it.each([
    ["a German business with its VAT ID", "DE", "DE 136.695.976", { ok: true, vatId: "DE136695976" }],
    ["no VAT ID", "DE", undefined, { ok: true, vatId: null }],
    ["an empty VAT ID", "FR", "  ", { ok: true, vatId: null }],
    ["a null VAT ID", "US", null, { ok: true, vatId: null }],
    [
      "a VAT ID of another country",
      "FR",
      "DE136695976",
      { ok: false, field: "vat_id", message: VAT_ID_MESSAGES.otherCountry },
    ],
    ["a malformed VAT ID", "DE", "DE12", { ok: false, field: "vat_id", message: VAT_ID_MESSAGES.invalid }],
    [
      "a VAT ID outside the EU",
      "US",
      "DE136695976",
      { ok: false, field: "vat_id", message: VAT_ID_MESSAGES.outsideEu },
    ],
    [
      "an unknown country",
      "XX",
      undefined,
      { ok: false, field: "country", message: BILLING_DETAILS_MESSAGES.countryMissing },
    ],
  ] as const)("%s", (_case, country, vatId, expected) => {
    expect(checkBillingDetails(country, vatId)).toEqual(expected);
  });

  const address = { line1: "Hauptstr. 1", postal_code: "10115", city: "Berlin", country: "DE" };

  it.each([
    ["street, then postal code and city", { ...address }, "DE", "Hauptstr. 1\n10115 Berlin"],
    [
      "a second line under the first",
      { ...address, line2: "Hinterhaus" },
      "DE",
      "Hauptstr. 1\nHinterhaus\n10115 Berlin",
    ],
    ["an empty second line left out", { ...address, line2: "" }, "DE", "Hauptstr. 1\n10115 Berlin"],
    ["an address of another country than the buyer's", address, "FR", null],
    ["a buyer without a country", address, null, null],
    ["no address", null, "DE", null],
  ] as const)("printed: %s", (_case, given, country, expected) => {
    expect(addressLines(given, country)).toBe(expected);
  });
});

describe("the portal's country list", () => {
  it("is the server's list of buyer countries", async () => {
    const { COUNTRY_CODES } = await import("../../contract/countries.ts");
    const { BUYER_COUNTRIES } = await import("./vat.ts");
    expect([...COUNTRY_CODES].sort()).toEqual([...BUYER_COUNTRIES].sort());
  });
});
