import { describe, expect, it } from "vitest";
import { exceedsCap } from "./member-caps.ts";

describe("member caps", () => {
  it("refuses a charge only when it would take spending past the cap", () => {
    expect(exceedsCap(0, 1000, null)).toBe(false);
    expect(exceedsCap(9000, 1000, 10_000)).toBe(false);
    expect(exceedsCap(9000, 1001, 10_000)).toBe(true);
    expect(exceedsCap(0, 1, 0)).toBe(true);
    expect(exceedsCap(0, 0, 0)).toBe(false);
  });
});
