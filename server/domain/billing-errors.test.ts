import { describe, expect, it } from "vitest";
import { BILLING_ERRORS, type BillingErrorCode, billingError } from "./billing-errors.ts";

describe("billing error messages", () => {
  it.each(Object.entries(BILLING_ERRORS))(
    "%s is a 4xx with a sentence for `detail`",
    (code, { status, message }) => {
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
      expect(message.trim()).toBe(message);
      expect(message.length).toBeGreaterThan(5);
      expect(billingError(code as BillingErrorCode)).toEqual({ code, status, message });
    },
  );

  it.each([
    ["already_subscribed", 409, "You already have an active subscription"],
    ["top_up_on_free_plan", 403, "Top-ups are not available on the Free plan"],
    ["insufficient_credits", 402, "Insufficient credits"],
    ["org_already_subscribed", 409, "This organisation already has an active subscription"],
  ] as const)("%s keeps API-CONTRACT.md's wording", (code, status, message) => {
    expect(billingError(code)).toEqual({ code, status, message });
  });
});
