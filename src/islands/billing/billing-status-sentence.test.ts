import { describe, expect, it } from "vitest";
import { AUTO_TOP_UP_PAGE_TEXT as T } from "../../lib/auto-top-up-text.ts";
import { billingStatusSentence } from "./AutoTopUpParts.tsx";

const API_SAID = "The API's sentence.";
const paused = (reason: string | null) => ({
  status: "paused" as const,
  paused_reason: reason,
  reason_text: API_SAID,
});

describe("Billing's status sentence for auto top-up", () => {
  it("names what to press on Billing for the pauses that new terms end", () => {
    expect(billingStatusSentence(paused("card_replaced"))).toBe(T.pausedHere.card_replaced);
    expect(billingStatusSentence(paused("consent_changed"))).toBe(T.pausedHere.consent_changed);
  });

  it("keeps the API's sentence for the other pauses, and for a reason this portal does not know", () => {
    for (const reason of [
      "declined",
      "daily_limit",
      "monthly_limit",
      "a_newer_reason",
      "toString",
      "constructor",
    ]) {
      expect(billingStatusSentence(paused(reason)), reason).toBe(API_SAID);
    }
    expect(billingStatusSentence(paused(null))).toBe(API_SAID);
  });

  it("says what the state means when the API gives no sentence", () => {
    expect(
      billingStatusSentence({ status: "paused", paused_reason: "a_newer_reason", reason_text: null }),
    ).toBe(T.statusText.paused);
  });

  it("uses Billing's words only while paused", () => {
    const off = { status: "off" as const, paused_reason: "card_replaced", reason_text: API_SAID };
    expect(billingStatusSentence(off)).toBe(API_SAID);
  });
});
