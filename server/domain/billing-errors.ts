// The billing API's refusals: one table of code -> the status and `detail` message the contract
// answers with, so the domain functions return a code, billing throws a BillingRefusal
// (billing/refusal.ts), the HTTP edge answers with the status and message, and a test can check
// every message. The statuses are data the contract gives, not an HTTP dependency: nothing here
// imports the web framework. Wording from API-CONTRACT.md where it gives one; the rest is ours.
// (The account engineer owns contract/messages.ts; these are server-side billing answers only.)

import { ORG_DETAIL } from "../../contract/org-messages.ts";

export const BILLING_ERRORS = {
  /** `POST /v1/create-checkout-session` for a user who already has a paid plan (contract wording). */
  already_subscribed: { status: 409, message: "You already have an active subscription" },
  /** The same for a team organisation (ORGANISATIONS.md: one live subscription per organisation). */
  org_already_subscribed: { status: 409, message: ORG_DETAIL.alreadySubscribed },
  /** `POST /v1/create-top-up-checkout` for a FREE user (contract wording; the FAQ says the same). */
  top_up_on_free_plan: { status: 403, message: "Top-ups are not available on the Free plan" },
  /** `update-subscription` / `cancel-subscription` for a FREE user. */
  no_paid_plan: { status: 400, message: "You don't have a paid plan" },
  /** `update-subscription` while a renewal payment is failing: the provider is still retrying the old plan's invoice. */
  subscription_past_due: {
    status: 409,
    message: "Your last renewal payment failed; the plan can be changed once it is paid",
  },
  /** `update-subscription` to the plan the user is on, with no change or cancellation pending. */
  already_on_plan: { status: 400, message: "You are already on that plan" },
  /** Unknown product id, or a product of the wrong kind (a top-up where a tier is expected, ...). */
  product_not_found: { status: 404, message: "Product not found" },
  /** A price id that is not the given product's price. */
  price_not_found: { status: 404, message: "Price not found for this product" },
  /** `POST /v1/credits/consume` beyond the balance (contract wording). */
  insufficient_credits: { status: 402, message: "Insufficient credits" },
  /** `GET /v1/billing/invoices/{id}` for an id that is not one of the user's invoices. */
  invoice_not_found: { status: 404, message: "Invoice not found" },
  /** `GET /v1/billing/invoices/{id}/pdf` for a failed payment: no invoice was issued for it. */
  no_invoice_issued: { status: 404, message: "No invoice was issued for a failed payment" },
  /** `GET /v1/billing/invoices/{id}/pdf` for an invoice Stripe issued: its PDF is Stripe's (`pdf_url`). */
  provider_invoice_pdf: {
    status: 404,
    message: "This invoice was issued by the payment provider: download its PDF from pdf_url",
  },
  /** `POST /v1/billing-portal-session` without a subscription: there is no card on file to change. */
  no_payment_method: {
    status: 400,
    message: "You have no subscription, so there is no payment method to update",
  },
  /** A member removed while their checkout waited for the organisation's lock (ORGANISATIONS.md: 404, never 403). */
  org_not_found: { status: 404, message: ORG_DETAIL.notFound },
  /** A member whose role lost the billing ability while their checkout waited for the lock. */
  org_role_not_allowed: { status: 403, message: ORG_DETAIL.notAllowed },
  /**
   * A member with this many checkouts of the organisation still open: each is expired at the
   * provider, one call each, when the member is removed, so their number is kept small.
   */
  too_many_open_checkouts: {
    status: 409,
    message:
      "You have 10 checkouts open for this organisation: pay one, or try again when they expire (24 hours at most)",
  },
  /** `POST /v1/webhooks/stripe` with a missing, malformed, wrong or stale `Stripe-Signature`. */
  invalid_signature: { status: 400, message: "Invalid or expired webhook signature" },
} as const satisfies Record<string, { status: number; message: string }>;

export type BillingErrorCode = keyof typeof BILLING_ERRORS;

export interface BillingError {
  code: BillingErrorCode;
  status: number;
  message: string;
}

export function billingError(code: BillingErrorCode): BillingError {
  const { status, message } = BILLING_ERRORS[code];
  return { code, status, message };
}
