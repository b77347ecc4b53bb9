// Zod schemas of the billing history: invoices (GET /v1/billing/invoices, /v1/billing/invoices/{id}),
// the billing details on file (GET /v1/billing/details) and the card update
// (POST /v1/billing-portal-session). Amounts are integer minor units (cents). `zod/mini`, browser-safe.
import * as z from "zod/mini";
import { emailSchema } from "./account.ts";
import { currencySchema } from "./billing.ts";
import { BILLING_DETAILS_MESSAGES } from "./billing-details-messages.ts";
import { INVOICE_STATUSES } from "./invoice-status.ts";
import { VAT_ID_STATUSES } from "./vat-id-verification.ts";

export { issuedNoInvoice } from "./invoice-status.ts";

export const invoiceStatusSchema = z.enum(INVOICE_STATUSES);

/** How the VAT was decided: seller's country, an EU consumer's country, reverse charge, outside the EU. */
export const taxTreatmentSchema = z.enum(["domestic", "eu_consumer", "reverse_charge", "outside_eu"]);
export type TaxTreatmentName = z.infer<typeof taxTreatmentSchema>;

export const invoiceKindSchema = z.enum(["subscription", "renewal", "topup"]);

const datetime = z.iso.datetime({ offset: true });
const cents = z.number().check(z.int(), z.nonnegative());

/** One row of the billing history. */
export const invoiceSummarySchema = z.object({
  id: z.string(),
  /** The invoice number (ours, "INV-2026-000001", or Stripe's); null for a failed payment. */
  number: z.nullable(z.string()),
  /** ISO-8601: when it was paid (or, for a failed one, attempted). */
  date: datetime,
  kind: invoiceKindSchema,
  description: z.string(),
  currency: currencySchema,
  net: cents,
  tax: cents,
  total: cents,
  /** What was paid back (refunds). */
  refunded: cents,
  /** Percent, e.g. 19 or 25.5; null when the provider's amounts stand without a rate. */
  tax_rate: z.nullable(z.number()),
  tax_treatment: z.nullable(taxTreatmentSchema),
  status: invoiceStatusSchema,
  /** Stripe's hosted invoice page; null for the local provider's invoices (the portal shows its own). */
  invoice_url: z.nullable(z.string()),
  /** Stripe's invoice PDF. */
  pdf_url: z.nullable(z.string()),
  /**
   * Where the customer confirms a payment their bank asks about (the auto top-up's `pay_url`);
   * present only while the status is `authentication_required`.
   */
  pay_url: z.optional(z.string()),
  /** A credit note (a refund's document) rather than an invoice; absent for an invoice. */
  document: z.optional(z.enum(["invoice", "credit_note"])),
  /** For a credit note: the number of the invoice it corrects. */
  refers_to: z.optional(z.string()),
});
export type InvoiceSummary = z.infer<typeof invoiceSummarySchema>;

export const invoiceListSchema = z.object({ data: z.array(invoiceSummarySchema) });

export const invoicePartySchema = z.object({
  name: z.nullable(z.string()),
  /** Lines separated by "\n". */
  address: z.nullable(z.string()),
  /** ISO 3166-1 alpha-2. */
  country: z.nullable(z.string()),
  vat_id: z.nullable(z.string()),
  email: z.nullable(z.string()),
});
export type InvoiceParty = z.infer<typeof invoicePartySchema>;

export const invoiceLineSchema = z.object({
  description: z.string(),
  quantity: z.number(),
  /** Net, minor units. */
  unit_amount: cents,
  amount: cents,
});

/** One invoice with everything its printed form shows. */
export const invoiceSchema = z.extend(invoiceSummarySchema, {
  seller: invoicePartySchema,
  buyer: invoicePartySchema,
  lines: z.array(invoiceLineSchema),
  /** The reverse-charge (or outside the EU) note the invoice must carry, or null. */
  note: z.nullable(z.string()),
  /**
   * A lost dispute (`status: dispute_lost`): what the buyer's bank took back. The rest of
   * `refunded`, if any, was refunded before the dispute, each refund with its credit note.
   */
  taken_back: z.optional(cents),
});
export type Invoice = z.infer<typeof invoiceSchema>;

const required = (max: number, missing: string) =>
  z
    .string({ error: missing })
    .check(z.trim(), z.minLength(1, missing), z.maxLength(max, BILLING_DETAILS_MESSAGES.tooLong(max)));
const optionalText = (max: number) =>
  z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(max, BILLING_DETAILS_MESSAGES.tooLong(max)))));

/** A postal address as the billing details give it. */
export const billingAddressSchema = z.object({
  line1: required(200, BILLING_DETAILS_MESSAGES.line1Missing),
  line2: optionalText(200),
  postal_code: required(20, BILLING_DETAILS_MESSAGES.postalCodeMissing),
  city: required(100, BILLING_DETAILS_MESSAGES.cityMissing),
  /** ISO 3166-1 alpha-2, e.g. "DE". */
  country: z
    .string({ error: BILLING_DETAILS_MESSAGES.countryMissing })
    .check(
      z.trim(),
      z.toUpperCase(),
      z.maxLength(2, BILLING_DETAILS_MESSAGES.countryMissing),
      z.regex(/^[A-Z]{2}$/, BILLING_DETAILS_MESSAGES.countryMissing),
    ),
});

/**
 * `PUT /v1/billing/details`: the organisation's buyer on invoices. `email` is where invoices and
 * billing mails go; `vat_id` (an EU VAT ID of the address's country) asks for reverse charge.
 */
export const billingDetailsInputSchema = z.object({
  name: required(200, BILLING_DETAILS_MESSAGES.nameMissing),
  email: emailSchema,
  address: billingAddressSchema,
  /** e.g. "DE123456789"; empty or absent: none. */
  vat_id: optionalText(20),
});
export type BillingDetailsInput = z.infer<typeof billingDetailsInputSchema>;

/** The billing details on file (given on /profile/billing or at the last checkout), and whether a card can be updated. */
export const billingDetailsSchema = z.object({
  details: z.nullable(
    z.object({
      name: z.nullable(z.string()),
      country: z.string(),
      vat_id: z.nullable(z.string()),
      /**
       * Whether the VAT ID is confirmed (Stripe's tax ID verification; the local checkout confirms a
       * well-formed one at once): only "verified" gives reverse charge. Null without a VAT ID.
       */
      vat_id_status: z.nullable(z.enum(VAT_ID_STATUSES)),
      /** The billing e-mail the details give; null: the owners' addresses. */
      email: z.nullable(z.string()),
      /** Null when only a checkout gave the details (it collects a country, not an address). */
      address: z.nullable(
        z.object({
          line1: z.string(),
          line2: z.nullable(z.string()),
          postal_code: z.string(),
          city: z.string(),
          country: z.string(),
        }),
      ),
    }),
  ),
  /** Where invoices and billing mails go: the details' e-mail, else the first owner's; null: nobody yet. */
  billing_email: z.nullable(z.string()),
  /** True when the organisation has a subscription whose card can be changed. */
  can_update_payment_method: z.boolean(),
});
export type BillingDetails = z.infer<typeof billingDetailsSchema>;

/** `POST /v1/billing-portal-session`: where to send the browser to change the card. */
export const billingPortalSessionSchema = z.object({ url: z.string() });
