// The rule of an organisation's billing details (PUT /v1/billing/details) beyond their shape: the
// address's country must be one we sell to, and a VAT ID must be an EU VAT ID of that country in
// its format (the checkout's own rule, domain/vat.ts). A plain function the route and its tests call.
import { BILLING_DETAILS_MESSAGES } from "../../contract/billing-details-messages.ts";
import { BUYER_COUNTRIES, checkVatId } from "./vat.ts";

export type BillingDetailsCheck =
  | { ok: true; vatId: string | null }
  | { ok: false; field: "country" | "vat_id"; message: string };

/** `vatId` as given (empty or absent: none); the answer's `vatId` is its compact form. */
export function checkBillingDetails(country: string, vatId: string | null | undefined): BillingDetailsCheck {
  if (!BUYER_COUNTRIES.includes(country))
    return { ok: false, field: "country", message: BILLING_DETAILS_MESSAGES.countryMissing };
  const given = vatId?.trim() ?? "";
  if (given === "") return { ok: true, vatId: null };
  const checked = checkVatId(given, country);
  return checked.ok
    ? { ok: true, vatId: checked.vatId }
    : { ok: false, field: "vat_id", message: checked.message };
}

/**
 * An address as an invoice prints it: street lines, then postal code and city (the country is its
 * own field). Null without an address, or with one of another country than the buyer's: a checkout
 * that collected another country has replaced it.
 */
export function addressLines(
  address: {
    line1: string;
    line2?: string | null;
    postal_code: string;
    city: string;
    country: string;
  } | null,
  buyerCountry: string | null,
): string | null {
  if (!address || address.country !== buyerCountry) return null;
  return [address.line1, address.line2, `${address.postal_code} ${address.city}`].filter(Boolean).join("\n");
}
