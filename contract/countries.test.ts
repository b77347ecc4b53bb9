import { describe, expect, it } from "vitest";
import { COUNTRY_CODES, countryOptions } from "./countries.ts";

describe("the buyer countries offered", () => {
  it("offers every buyer country once, sorted by the name a reader looks for", () => {
    const options = countryOptions();
    expect(options.map((o) => o.code).sort()).toEqual([...COUNTRY_CODES].sort());
    expect(options.find((o) => o.code === "GB")?.name).toBe("United Kingdom");
    const names = options.map((o) => o.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, "en")));
    expect(names[0]).toBe("Afghanistan");
    // Built once: the form and the checkout re-render from the same list.
    expect(countryOptions()).toBe(options);
  });
});
