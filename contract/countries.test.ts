import { describe, expect, it } from "vitest";
import { COUNTRY_CODES, countryOptions } from "./countries.ts";
import { COUNTRY_NAMES, countryName } from "./country-name.ts";

describe("the buyer countries offered", () => {
  it("offers every buyer country once, sorted by the name a reader looks for", () => {
    const options = countryOptions();
    expect(options.map((o) => o.code).sort()).toEqual([...COUNTRY_CODES].sort());
    expect(new Set(options.map((o) => o.code)).size).toBe(options.length);
    expect(options.find((o) => o.code === "GB")?.name).toBe("United Kingdom");
    const names = options.map((o) => o.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, "en")));
    expect(names[0]).toBe("Afghanistan");
    expect(names.at(-1)).toBe("Zimbabwe");
    // One list: the form and the checkout render the same one.
    expect(countryOptions()).toBe(options);
  });

  it("names each option as countryName does, so the list and the summary of what was chosen agree", () => {
    for (const { code, name } of countryOptions()) expect(name).toBe(countryName(code));
    expect(countryOptions()).toEqual(Object.entries(COUNTRY_NAMES).map(([code, name]) => ({ code, name })));
    expect(countryOptions().find((o) => o.code === "HK")).toEqual({ code: "HK", name: "Hong Kong" });
  });
});
