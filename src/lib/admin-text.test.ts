import { describe, expect, it } from "vitest";
import { DETAIL } from "../../contract/messages.ts";
import { ADMIN_PAGE_TEXT } from "./admin-text.ts";
import { BILLING_TEXT } from "./billing-text.ts";

describe("the console's words", () => {
  it("say what the API says when staff sign in without two factors", () => {
    expect(ADMIN_PAGE_TEXT.staffMfaRequired).toBe(DETAIL.staffMfaRequired);
  });

  it("say a refund asked from the console in words no recorded payment status uses", () => {
    // Beside the status as the API lists it, never in its place: "Refunded" is the API's word.
    expect(Object.values(BILLING_TEXT.statusLabels)).not.toContain(ADMIN_PAGE_TEXT.customer.refundRequested);
    expect(ADMIN_PAGE_TEXT.customer.refundRequested).toBe("Refund requested");
  });
});
