import { describe, expect, it } from "vitest";
import { CAP_WARNING_SHARE, crossesNearCap, exceedsCap } from "./member-caps.ts";

describe("member caps", () => {
  it("refuses a charge only when it would take spending past the cap", () => {
    expect(exceedsCap(0, 1000, null)).toBe(false);
    expect(exceedsCap(9000, 1000, 10_000)).toBe(false);
    expect(exceedsCap(9000, 1001, 10_000)).toBe(true);
    expect(exceedsCap(0, 1, 0)).toBe(true);
    expect(exceedsCap(0, 0, 0)).toBe(false);
  });

  it("warns once, when spending first passes 80 % of the cap", () => {
    expect(CAP_WARNING_SHARE).toBe(0.8);
    expect(crossesNearCap(0, 8000, 10_000)).toBe(false);
    expect(crossesNearCap(0, 8001, 10_000)).toBe(true);
    expect(crossesNearCap(8000, 8001, 10_000)).toBe(true);
    expect(crossesNearCap(8001, 9000, 10_000)).toBe(false);
    expect(crossesNearCap(7999, 8000, 10_000)).toBe(false);
  });
});
