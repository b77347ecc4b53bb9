import { describe, expect, it } from "vitest";
import { acceptedStep, newTotpSecret, otpauthUrl, stepAt, totpCode } from "./totp.ts";

// RFC 6238 appendix B's SHA-1 secret ("12345678901234567890") in Base32.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const at = (seconds: number) => new Date(seconds * 1000);

describe("TOTP", () => {
  it("computes RFC 6238's test vectors (6 digits of them)", () => {
    expect(totpCode(RFC_SECRET, at(59))).toBe("287082");
    expect(totpCode(RFC_SECRET, at(1111111109))).toBe("081804");
    expect(totpCode(RFC_SECRET, at(2000000000))).toBe("279037");
  });

  it("accepts the code of now and of the step either side, nothing further", () => {
    const now = at(1111111109);
    const step = stepAt(now);
    expect(acceptedStep(RFC_SECRET, totpCode(RFC_SECRET, now), now, null)).toBe(step);
    expect(acceptedStep(RFC_SECRET, totpCode(RFC_SECRET, at(1111111109 - 30)), now, null)).toBe(step - 1);
    expect(acceptedStep(RFC_SECRET, totpCode(RFC_SECRET, at(1111111109 + 30)), now, null)).toBe(step + 1);
    expect(acceptedStep(RFC_SECRET, totpCode(RFC_SECRET, at(1111111109 - 60)), now, null)).toBeUndefined();
    expect(acceptedStep(RFC_SECRET, totpCode(RFC_SECRET, at(1111111109 + 60)), now, null)).toBeUndefined();
  });

  it("accepts each code once: not again, and no earlier step after a later one", () => {
    const now = at(1111111109);
    const step = stepAt(now);
    const code = totpCode(RFC_SECRET, now);
    expect(acceptedStep(RFC_SECRET, code, now, step)).toBeUndefined();
    expect(acceptedStep(RFC_SECRET, totpCode(RFC_SECRET, at(1111111109 - 30)), now, step)).toBeUndefined();
    expect(acceptedStep(RFC_SECRET, code, now, step - 1)).toBe(step);
    // The next step's code, after the current one was used.
    expect(acceptedStep(RFC_SECRET, totpCode(RFC_SECRET, at(1111111109 + 30)), now, step)).toBe(step + 1);
  });

  it("takes the code with the spaces and dashes apps show, and refuses anything not six digits", () => {
    const now = at(59);
    expect(acceptedStep(RFC_SECRET, "287 082", now, null)).toBe(1);
    expect(acceptedStep(RFC_SECRET, " 287-082 ", now, null)).toBe(1);
    for (const bad of ["", "28708", "2870820", "28708a", "+287082", "287082.0"]) {
      expect(acceptedStep(RFC_SECRET, bad, now, null), bad).toBeUndefined();
    }
  });

  it("makes 160-bit Base32 secrets and the otpauth URL apps read", () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const url = new URL(otpauthUrl(secret, "Genai Portal", "ann"));
    expect(url.protocol).toBe("otpauth:");
    expect(url.host).toBe("totp");
    expect(decodeURIComponent(url.pathname)).toBe("/Genai Portal:ann");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      issuer: "Genai Portal",
      secret,
      algorithm: "SHA1",
      digits: "6",
      period: "30",
    });
  });
});
