import { describe, expect, it } from "vitest";
import { isAppCodeShaped, normaliseCode, TOTP_DIGITS } from "./totp-code.ts";

describe("an app's code as typed", () => {
  it("drops the spaces and dashes apps show", () => {
    expect(normaliseCode(" 12 34-56 ")).toBe("123456");
    expect(normaliseCode("1\t2\n3")).toBe("123");
  });

  it("has the shape of six digits, however spaced, and nothing else does", () => {
    expect(TOTP_DIGITS).toBe(6);
    for (const good of ["123456", "123 456", " 123-456 "]) expect(isAppCodeShaped(good), good).toBe(true);
    for (const bad of ["", "12", "12345", "1234567", "12345a", "+12345", "12345.0", "x123456", "123456x"])
      expect(isAppCodeShaped(bad), bad).toBe(false);
  });
});
