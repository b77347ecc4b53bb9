// The billing details the local checkout asks for before it shows the total, as Stripe Checkout
// with Stripe Tax does: the name on the invoice, the country, and an optional VAT ID. Reading the
// form and deciding the VAT are plain functions; the hosted page shows the errors next to the fields.
import { BUYER_COUNTRIES, checkVatId, decideVat, type TaxDecision } from "../../domain/vat.ts";

export interface BuyerDetailsForm {
  name: string;
  country: string;
  vatId: string;
}

export type BuyerDetailsErrors = Partial<Record<keyof BuyerDetailsForm, string>>;

export const BUYER_MESSAGES = {
  nameMissing: "Enter the name for the invoice (yours or your company's).",
  nameTooLong: "The name can have at most 200 characters.",
  countryMissing: "Choose your country.",
  vatIdTooLong: "A VAT ID has at most 20 characters.",
} as const;

export type BuyerDetailsResult =
  | { ok: true; name: string; decision: TaxDecision }
  | { ok: false; errors: BuyerDetailsErrors };

/** Reads the details form and decides its VAT at `at`, or says what to correct, field by field. */
export function readBuyerDetails(
  form: BuyerDetailsForm,
  sellerCountry: string,
  at: Date,
): BuyerDetailsResult {
  const errors: BuyerDetailsErrors = {};
  const name = form.name.trim().replace(/\s+/g, " ");
  if (name === "") errors.name = BUYER_MESSAGES.nameMissing;
  else if (name.length > 200) errors.name = BUYER_MESSAGES.nameTooLong;
  const country = form.country.trim().toUpperCase();
  if (!BUYER_COUNTRIES.includes(country)) errors.country = BUYER_MESSAGES.countryMissing;
  let vatId: string | null = null;
  const vatInput = form.vatId.trim();
  if (vatInput.length > 20) errors.vatId = BUYER_MESSAGES.vatIdTooLong;
  else if (vatInput !== "" && !errors.country) {
    const checked = checkVatId(vatInput, country);
    if (checked.ok) vatId = checked.vatId;
    else errors.vatId = checked.message;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, name, decision: decideVat({ sellerCountry, buyerCountry: country, vatId, at }) };
}
