import { afterEach, describe, expect, it, vi } from "vitest";
import { COUNTRY_NAMES, countryName } from "./country-name.ts";

describe("countryName", () => {
  it("names a country by the table's English name, and keeps what it cannot name", () => {
    expect(countryName("DE")).toBe("Germany");
    expect(countryName("US")).toBe("United States");
    expect(countryName("CZ")).toBe("Czechia");
    expect(countryName("CN")).toBe("China");
    // The names QA saw differ between the checkout (Node's ICU) and the form (Chromium's ICU).
    expect(countryName("HK")).toBe("Hong Kong");
    expect(countryName("MO")).toBe("Macao");
    expect(countryName("PS")).toBe("Palestine");
    expect(countryName("FK")).toBe("Falkland Islands");
    expect(countryName(null)).toBe("");
    expect(countryName("")).toBe("");
    expect(countryName("not a code")).toBe("not a code");
    // A name of Object.prototype is no country.
    expect(countryName("constructor")).toBe("constructor");
  });

  it("names every country from the table", () => {
    for (const [code, name] of Object.entries(COUNTRY_NAMES)) expect(countryName(code)).toBe(name);
    expect(Object.keys(COUNTRY_NAMES)).toHaveLength(250);
    for (const code of Object.keys(COUNTRY_NAMES)) expect(code).toMatch(/^[A-Z]{2}$/);
    expect(new Set(Object.values(COUNTRY_NAMES)).size).toBe(250);
  });

  describe("whatever the runtime's own region names", () => {
    afterEach(() => {
      vi.unstubAllGlobals();
      vi.resetModules();
    });

    // The checkout is rendered by Node, the form by the customer's browser: their ICU data differ
    // (Node 24 says "Hong Kong SAR China", Chromium "Hong Kong"). A runtime that names regions
    // otherwise must not change a single name.
    it("gives the same names in a runtime whose Intl.DisplayNames says otherwise", async () => {
      const before = Object.keys(COUNTRY_NAMES).map((code) => countryName(code));
      class OtherNames {
        of(code: string) {
          return `${code} as another runtime says it`;
        }
      }
      vi.stubGlobal("Intl", { ...Intl, DisplayNames: OtherNames });
      vi.resetModules();
      const fresh = await import("./country-name.ts");
      expect(Object.keys(COUNTRY_NAMES).map((code) => fresh.countryName(code))).toEqual(before);
    });
  });
});
