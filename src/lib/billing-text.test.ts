import { describe, expect, it } from "vitest";
import { BILLING_DETAILS_MESSAGES } from "../../contract/billing-details-messages.ts";
import { INVOICE_STATUSES } from "../../contract/invoice-status.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { BILLING_TEXT, chargedNothing, statusNote } from "./billing-text.ts";
import { PAYMENT_STATUS_LABELS } from "./payment-status-text.ts";

describe("the billing pages' words", () => {
  it("say what the API says when a role may not change the billing details", () => {
    expect(BILLING_TEXT.detailsNotAllowed).toBe(ORG_DETAIL.notAllowed);
  });

  it("offer the country list's empty choice in the local checkout's words", () => {
    expect(BILLING_TEXT.chooseCountry).toBe(BILLING_DETAILS_MESSAGES.countryPlaceholder);
  });
});

describe("a billing history row's status", () => {
  it("names a lost dispute as the bank taking the payment back, not as a refund", () => {
    expect(PAYMENT_STATUS_LABELS.dispute_lost).toBe("Charged back");
    expect(statusNote({ status: "dispute_lost" })).toBe(
      "Your bank took this payment back after a dispute. Its unspent credits were removed.",
    );
    // A refund is ours, and says nothing more.
    expect(statusNote({ status: "refunded" })).toBeNull();
  });

  it("explains an open dispute", () => {
    expect(statusNote({ status: "disputed" })).toBe(BILLING_TEXT.disputedNote);
  });

  it("says nothing was charged for a payment held back or cancelled, whose amounts it leaves out", () => {
    for (const status of INVOICE_STATUSES) {
      const none = status === "not_charged" || status === "cancelled";
      expect(chargedNothing({ status }), status).toBe(none);
      if (none) expect(statusNote({ status })).toBe("Nothing was charged.");
    }
  });

  it("says nothing was charged for a declined auto top-up, whose amounts it leaves out", () => {
    const declined = { status: "failed", kind: "topup" } as const;
    expect(chargedNothing(declined)).toBe(true);
    expect(statusNote(declined)).toBe("Nothing was charged.");
  });

  it("a declined renewal keeps its amounts, still owed, with no note", () => {
    const renewal = { status: "failed", kind: "renewal" } as const;
    expect(chargedNothing(renewal)).toBe(false);
    expect(statusNote(renewal)).toBeNull();
  });

  it("a paid, failed renewal or waiting payment shows its amounts, with no note", () => {
    for (const kind of ["subscription", "renewal", "topup"] as const) {
      for (const status of ["paid", "authentication_required"] as const) {
        expect(chargedNothing({ status, kind }), `${kind} ${status}`).toBe(false);
        expect(statusNote({ status, kind })).toBeNull();
      }
    }
    expect(statusNote({ status: "failed" })).toBeNull();
  });

  it("a credit note's row has no note, whatever its invoice's status", () => {
    for (const status of INVOICE_STATUSES) expect(statusNote({ status, document: "credit_note" })).toBeNull();
  });

  it("every status has its label", () => {
    for (const status of INVOICE_STATUSES) expect(PAYMENT_STATUS_LABELS[status]).toBeTruthy();
  });
});
