import { describe, expect, it } from "vitest";
import { BILLING_DETAILS_MESSAGES } from "../../contract/billing-details-messages.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { BILLING_TEXT } from "./billing-text.ts";

describe("the billing pages' words", () => {
  it("say what the API says when a role may not change the billing details", () => {
    expect(BILLING_TEXT.detailsNotAllowed).toBe(ORG_DETAIL.notAllowed);
  });

  it("offer the country list's empty choice in the local checkout's words", () => {
    expect(BILLING_TEXT.chooseCountry).toBe(BILLING_DETAILS_MESSAGES.countryPlaceholder);
  });
});
