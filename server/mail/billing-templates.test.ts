import { describe, expect, it } from "vitest";
import {
  cancellationConfirmedMail,
  disputeHoldMail,
  paymentFailedMail,
  planChangeAppliedMail,
  planChangeScheduledMail,
  receiptMail,
  subscriptionEndedMail,
  topUpExpiringMail,
} from "./billing-templates.ts";

const user = { email: "ann@example.com", username: "<ann>" };
const url = "https://portal.example/profile/billing";

describe("billing mails: every one rendered as text and HTML, with its link", () => {
  it.each([
    [
      "receipt, reverse charge",
      receiptMail(user, {
        description: "500 credit pack",
        date: "2026-11-24",
        number: "INV-2026-000007",
        currency: "eur",
        net: 5000,
        tax: 0,
        total: 5000,
        taxRateBasisPoints: 0,
        taxTreatment: "reverse_charge",
        invoiceUrl: url,
      }),
      ["€50.00", "net €50.00, VAT 0 % €0.00", "INV-2026-000007", "Reverse charge"],
    ],
    [
      "receipt, 19 %",
      receiptMail(user, {
        description: "Tier A monthly subscription",
        date: "2026-11-24",
        number: "INV-2026-000008",
        currency: "eur",
        net: 7900,
        tax: 1501,
        total: 9401,
        taxRateBasisPoints: 1900,
        taxTreatment: "domestic",
        invoiceUrl: url,
      }),
      ["€94.01", "VAT 19 % €15.01"],
    ],
    [
      "payment failed, a retry to come",
      paymentFailedMail(user, {
        plan: "Tier A",
        currency: "eur",
        total: 9401,
        nextAttempt: "2026-12-27",
        updateUrl: url,
      }),
      ["We will try again on 2026-12-27", "Update payment method"],
    ],
    [
      "payment failed, the last attempt",
      paymentFailedMail(user, {
        plan: "Tier A",
        currency: "eur",
        total: 9401,
        nextAttempt: null,
        updateUrl: url,
      }),
      ["that was the last attempt", "Your subscription ends now"],
    ],
    [
      "plan change scheduled",
      planChangeScheduledMail(user, { from: "Tier A", to: "Tier C", date: "2026-12-24", profileUrl: url }),
      ["from Tier A to Tier C", "until 2026-12-24"],
    ],
    [
      "plan change applied",
      planChangeAppliedMail(user, { plan: "Tier C", profileUrl: url }),
      ["now on Tier C"],
    ],
    [
      "cancellation confirmed",
      cancellationConfirmedMail(user, { plan: "Tier A", date: "2026-12-24", profileUrl: url }),
      ["stays active until 2026-12-24", "Free plan"],
    ],
    ["subscription ended", subscriptionEndedMail(user, { plan: "Tier A", plansUrl: url }), ["has ended"]],
    [
      "top-up expiring",
      topUpExpiringMail(user, { credits: 312.5, pack: "500 credit pack", date: "2027-05-24", usageUrl: url }),
      ["312.5 credits of your 500 credit pack", "2027-05-24"],
    ],
    [
      "dispute hold, a team's",
      disputeHoldMail(user, {
        number: "INV-2026-000007",
        description: "500 credit pack",
        currency: "eur",
        takenBack: 4950,
        invoiceUrl: url,
        team: "Acme",
      }),
      [
        "Acme is on hold",
        "The bank took back the payment of €49.50 for invoice INV-2026-000007 after a dispute. Credits it bought had already been used; the rest of them were removed from the balance.",
        "The organisation Acme is on hold until our support team clears it: API calls with its keys are refused",
        "contact support",
      ],
    ],
    [
      "dispute hold, an invoice not numbered yet",
      disputeHoldMail(user, {
        number: null,
        description: "500 credit pack",
        currency: "eur",
        takenBack: 5950,
        invoiceUrl: url,
        team: null,
      }),
      ["account is on hold", "the payment of €59.50 for 500 credit pack", "API calls with your keys"],
    ],
    [
      "dispute hold after a full refund: no amount left to name",
      disputeHoldMail(user, {
        number: "INV-2026-000008",
        description: "500 credit pack",
        currency: "eur",
        takenBack: 0,
        invoiceUrl: url,
        team: null,
      }),
      ["The bank took back the payment for invoice INV-2026-000008 after a dispute."],
    ],
  ])("%s", (_case, mail, phrases) => {
    expect(mail.to).toBe("ann@example.com");
    for (const body of [mail.text, mail.html]) {
      for (const phrase of phrases) expect(body).toContain(phrase);
      expect(body).toContain(url);
    }
    expect(mail.text).toContain("Hi <ann>,");
    expect(mail.html).toContain("Hi &lt;ann&gt;,");
    expect(mail.html).not.toContain("<ann>");
  });
});
