// The words of /profile/billing and its invoice page, kept out of UI_TEXT (which every page's
// islands load) so that only these two pages carry them.

import { chargedNothing, type InvoiceStatus } from "../../contract/invoice-status.ts";
import { INVOICE_TEXT } from "../../contract/invoice-text.ts";
import type { InvoiceSummary } from "../../contract/invoices.ts";
import { FAILED_RENEWAL_TEXT } from "./failed-renewal-text.ts";
import { COMPLETE_PAYMENT, PAYMENT_STATUS_LABELS } from "./payment-status-text.ts";
import { UI_TEXT } from "./ui-text.ts";

export const BILLING_TEXT = {
  ...UI_TEXT.billing,
  title: "Billing",
  ...FAILED_RENEWAL_TEXT,
  ...INVOICE_TEXT,
  intro: "Your payments and invoices, the billing details on file, and the card your plan is paid with.",
  historyTitle: "Billing history",
  historyCaption: "Payments and invoices, newest first",
  date: "Date",
  net: "Net",
  vat: "VAT",
  total: "Total",
  status: "Status",
  invoice: "Invoice",
  statusLabels: PAYMENT_STATUS_LABELS,
  /** A credit note's row: the document a refund issued. */
  creditNoteLabel: "Credit note",
  viewInvoice: "View",
  /** A row waiting for the bank's confirmation: its own page, which has no invoice number yet. */
  viewPayment: "View payment",
  /** A row waiting for the bank's confirmation: the page that completes it (auto top-up's words). */
  completePayment: COMPLETE_PAYMENT,
  noInvoice: "None",
  /** With a disputed payment's badge: "Disputed" alone reads as an error to someone who disputed nothing. */
  disputedNote: "Your bank disputed this payment. Its credits are set aside until the dispute is settled.",
  /** With a lost dispute's badge: the bank took the money back; nobody here refunded it. */
  disputeLostNote: "Your bank took this payment back after a dispute. Its unspent credits were removed.",
  /** With a payment that moved no money (held back, declined or cancelled), whose amounts the row leaves out. */
  nothingChargedNote: "Nothing was charged.",
  emptyTitle: "No payments yet",
  emptyBody: "When you buy a plan or a top-up pack, each payment and its invoice appear here.",
  /** Static under the heading: it paints with the page (and stays the largest text, for LCP). */
  vatNote:
    "Prices on the plans page are net: VAT is added at checkout from your country and VAT ID, and " +
    "every payment has its invoice here.",
  detailsTitle: "Billing details",
  detailsNone: "None yet: add them here, or the checkout asks for them with your first payment.",
  detailsNote: "Invoices from now on name these details; the checkout starts from them and may change them.",
  /** Where invoices and billing mails go. */
  invoicesGoTo: (email: string) => `Invoices and billing e-mails go to ${email}.`,
  editDetails: "Edit billing details",
  addDetails: "Add billing details",
  saveDetails: "Save billing details",
  saving: "Saving…",
  loadingForm: "Loading the form…",
  cancel: "Cancel",
  optional: "(optional)",
  /** BILLING_DETAILS_MESSAGES.countryPlaceholder, repeated (billing-text.test.ts): the console loads these words too. */
  chooseCountry: "Choose your country",
  address: "Address",
  billingEmail: "Billing e-mail",
  billingEmailNote:
    "Invoices, receipts and failed-payment notices go here, and to the owners and billing members.",
  line1: "Street and number",
  line2: "Address line 2",
  postalCode: "Postal code",
  city: "City",
  detailsSaveFailed: "The billing details could not be saved. Please try again or contact support.",
  /**
   * The API's ORG_DETAIL.notAllowed, repeated: contract/org-messages.ts would add every organisation
   * message of the API to the billing pages and the console's customer page (0.8 KB gzip).
   * billing-text.test.ts checks that the two agree.
   */
  detailsNotAllowed: "Your role in this organisation does not allow this",
  /** /profile/billing for a role without billing (a developer, a manager): what it is, and the way on. */
  billingNotForRole:
    "Payments, invoices and billing details of this organisation are for its owners and billing members. Ask an owner if you need an invoice, or switch to your personal account in the account menu.",
  name: "Name",
  country: "Country",
  vatId: "VAT ID",
  noVatId: "None (consumer)",
  paymentMethodTitle: "Payment method",
  paymentMethodBody:
    "Change the card your subscription renews with. A payment that failed is retried with it at once.",
  paymentMethodNone: "You have no subscription, so there is no card on file to change.",
  opening: "Opening…",
  portalFailed: "The payment method page could not be opened. Please try again or contact support.",
  loading: "Loading your billing history…",
  loadFailed: "Your billing history could not be loaded.",
  retry: "Try again",
  invoiceLoading: "Loading the invoice…",
  invoiceNotFound: "This invoice was not found. It may belong to another account.",
  print: "Print",
  downloadPdf: "Download PDF",
  downloading: "Preparing the PDF…",
  downloadFailed: "The PDF could not be downloaded. Please try again or contact support.",
  backToBilling: "Back to billing",
  failedInvoice: "This payment failed: no invoice was issued for it.",
  notChargedInvoice: "Auto top-up held this payment back: nothing was charged and no invoice was issued.",
  authenticationInvoice:
    "Your bank asks you to confirm this payment. Nothing is charged until you do, and no invoice was issued yet.",
  cancelledInvoice: "This payment was cancelled: nothing was charged and no invoice was issued.",
  stripeInvoice: "Open the invoice",
  stripePdf: "Download the PDF",
} as const;

/** A row's payment moved no money: contract/invoice-status.ts's rule, which auto top-up's attempts follow too. */
export { chargedNothing };

/**
 * The note under a row's status badge where the badge alone would mislead, or null: a dispute
 * open or lost, or a payment that moved no money (its amounts are left out).
 */
export function statusNote(row: {
  status: InvoiceStatus;
  kind?: InvoiceSummary["kind"] | undefined;
  document?: "invoice" | "credit_note" | undefined;
}): string | null {
  if (row.document === "credit_note") return null;
  if (row.status === "disputed") return BILLING_TEXT.disputedNote;
  if (row.status === "dispute_lost") return BILLING_TEXT.disputeLostNote;
  return chargedNothing(row) ? BILLING_TEXT.nothingChargedNote : null;
}
