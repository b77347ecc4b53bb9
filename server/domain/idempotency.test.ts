import { describe, expect, it } from "vitest";
import { type ChargeFingerprint, isSameCharge } from "./idempotency.ts";

const metered: ChargeFingerprint = {
  apiKeyId: "key_1",
  feature: "background-remover",
  people: "one",
  quantity: 1,
  amount: 100,
};
const manual: ChargeFingerprint = {
  apiKeyId: null,
  feature: null,
  people: null,
  quantity: null,
  amount: 5000,
};

describe("isSameCharge", () => {
  it("takes an identical repeat for the same charge", () => {
    expect(isSameCharge(metered, { ...metered })).toBe(true);
    expect(isSameCharge(manual, { ...manual })).toBe(true);
  });

  it("does not compare a metered charge's amount: a price change keeps a retry a retry", () => {
    expect(isSameCharge(metered, { ...metered, amount: 200 })).toBe(true);
  });

  it.each([
    ["another API key", { apiKeyId: "key_2" }],
    ["no API key (by user id)", { apiKeyId: null }],
    ["another feature", { feature: "image-to-video" }],
    ["other people", { people: "multiple" }],
    ["another quantity", { quantity: 4 }],
    ["the manual form", { feature: null, people: null, quantity: null }],
  ] as const)("refuses a metered charge's key reused with %s", (_, change) => {
    expect(isSameCharge(metered, { ...metered, ...change })).toBe(false);
  });

  it("refuses a manual charge's key reused with another amount or as a metered charge", () => {
    expect(isSameCharge(manual, { ...manual, amount: 5001 })).toBe(false);
    expect(isSameCharge(manual, { ...manual, feature: "comic", people: "one", quantity: 1 })).toBe(false);
    expect(isSameCharge(manual, { ...manual, apiKeyId: "key_1" })).toBe(false);
  });
});
