// Which VAT ID states give reverse charge, how a provider's word is read, and that Billing has a
// sentence and a badge for every state.
import { describe, expect, it } from "vitest";
import {
  givesReverseCharge,
  VAT_ID_STATUS_BADGE,
  VAT_ID_STATUS_TEXT,
  VAT_ID_STATUSES,
  vatIdStatusOf,
} from "./vat-id-verification.ts";

describe("VAT ID verification", () => {
  it.each([
    ["verified", true],
    ["pending", false],
    ["unverified", false],
    ["unavailable", false],
    [null, false],
  ] as const)("a VAT ID %s gives reverse charge: %s", (status, expected) => {
    expect(givesReverseCharge(status)).toBe(expected);
  });

  it.each([
    ["pending", "pending"],
    ["verified", "verified"],
    ["unverified", "unverified"],
    ["unavailable", "unavailable"],
    // A word of a newer API version, or none, is never read as confirmed.
    ["confirmed", "pending"],
    ["", "pending"],
    [undefined, "pending"],
    [null, "pending"],
    [1, "pending"],
  ])("reads the provider's %j as %s", (value, expected) => {
    expect(vatIdStatusOf(value)).toBe(expected);
  });

  it("has Stripe's four states, each with its own badge and sentence", () => {
    expect(VAT_ID_STATUSES).toEqual(["pending", "verified", "unverified", "unavailable"]);
    const sentences = VAT_ID_STATUSES.map((s) => VAT_ID_STATUS_TEXT[s]);
    const badges = VAT_ID_STATUSES.map((s) => VAT_ID_STATUS_BADGE[s]);
    expect(new Set(sentences).size).toBe(4);
    expect(new Set(badges).size).toBe(4);
    for (const text of [...sentences, ...badges]) expect(text.trim().length).toBeGreaterThan(3);
    // Only the confirmed state speaks of reverse charge; every other one says VAT is charged.
    for (const status of VAT_ID_STATUSES) {
      const text = VAT_ID_STATUS_TEXT[status];
      expect(text.includes("reverse charge"), status).toBe(status === "verified");
      expect(/(^|[^o] )VAT is charged/.test(text), status).toBe(status !== "verified");
    }
  });
});
