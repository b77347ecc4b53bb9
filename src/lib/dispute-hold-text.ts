// The dispute hold's words (ACCOUNT-SECURITY.md) for /profile's alert beside the credits, the same
// alert at the top of /profile/billing, and the top bar's marker beside the balance. A module of its
// own: Billing gets these lines without /profile's whole text table.

import { PAYMENT_DISPUTED } from "../../contract/dispute-hold-messages.ts";
import { SITE } from "./site.ts";

export const DISPUTE_HOLD_TEXT = {
  /** The API's 402 detail (DETAIL.paymentDisputed). */
  title: PAYMENT_DISPUTED,
  /** The top bar's mark: the API's words, then where the link leads (the alert with support's link). */
  markLabel: `${PAYMENT_DISPUTED} See your account.`,
  /** The disputed payment, around its invoice number (a link to the invoice), when the API names it. */
  invoice: {
    before: "The bank took back the payment for invoice",
    after: "after a dispute. Credits it bought had already been used; the rest of them were removed.",
  },
  refused: (team: boolean) =>
    `API calls with ${team ? "this organisation's" : "your"} keys are refused until support clears the hold.`,
  /** The link to the contact page, then the footer's support promise ("Support: E-mail reply …"). */
  contact: "Support",
  promise: `: ${SITE.supportPromise}.`,
  /**
   * Billing's line for someone about to pay: checkouts and plan changes are not refused on hold
   * (server/billing/checkout.ts), but nothing bought lifts it, and auto top-up charges nothing while
   * it lasts (server/billing/auto-top-up/charges.ts turns it off before any charge).
   */
  paying:
    "Payments still go through: the credits of a plan or a pack bought now are added to the balance, but can be used only once the hold is cleared. Auto top-up charges nothing, and cannot be turned on, while the hold lasts.",
} as const;
