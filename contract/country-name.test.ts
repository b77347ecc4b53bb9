import { describe, expect, it } from "vitest";
import { countryName } from "./country-name.ts";

describe("countryName", () => {
  it("names a country as the runtime's English region names do, and keeps what it cannot name", () => {
    expect(countryName("DE")).toBe("Germany");
    expect(countryName("US")).toBe("United States");
    expect(countryName("CZ")).toBe("Czechia");
    expect(countryName(null)).toBe("");
    expect(countryName("")).toBe("");
    // Not a region code: Intl.DisplayNames throws, and the code itself is shown.
    expect(countryName("not a code")).toBe("not a code");
  });
});
