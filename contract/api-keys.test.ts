// The create-key request's monthly limit: credits with the precision of a member's cap.
import { describe, expect, it } from "vitest";
import { createApiKeyRequestSchema } from "./api-keys.ts";

const limitOf = (monthly_credit_limit: unknown) =>
  createApiKeyRequestSchema.safeParse({ name: "k", monthly_credit_limit });

describe("monthly_credit_limit", () => {
  it.each([0.001, 0.1, 0.5, 1.25, 100, 100_000_000, null])("takes %s", (limit) => {
    expect(limitOf(limit)).toMatchObject({ success: true, data: { monthly_credit_limit: limit } });
  });

  it.each([
    [0, "The monthly limit must be more than 0 credits, with at most 3 decimals"],
    [-1, "The monthly limit must be more than 0 credits, with at most 3 decimals"],
    [0.0005, "The monthly limit must be more than 0 credits, with at most 3 decimals"],
    [1.2345, "The monthly limit must be more than 0 credits, with at most 3 decimals"],
    // Below a thousandth: these passed once and then failed on the way to millicredits (a 500).
    [1e-10, "The monthly limit must be more than 0 credits, with at most 3 decimals"],
    [1e-13, "The monthly limit must be more than 0 credits, with at most 3 decimals"],
    ["5", "The monthly limit must be more than 0 credits, with at most 3 decimals"],
    [100_000_000.5, "The monthly limit can be at most 100,000,000 credits"],
  ])("refuses %s with one message", (limit, message) => {
    const result = limitOf(limit);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([message]);
  });
});
