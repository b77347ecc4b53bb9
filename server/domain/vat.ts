// VAT on a sale of digital services by a seller established in the EU (Germany by default), as
// Stripe Tax decides it for Checkout:
// - a buyer in the seller's own country pays the seller's rate, with or without a VAT ID
//   (a domestic sale to a business is not reverse charged);
// - a consumer elsewhere in the EU pays their own country's standard rate (the One-Stop Shop rule
//   for electronically supplied services);
// - a business elsewhere in the EU with a well-formed VAT ID of that country pays 0 %: the buyer
//   accounts for the VAT (reverse charge, Art. 196 of Directive 2006/112/EC), and the invoice says so;
// - a buyer outside the EU pays 0 % (the service is not taxable in the EU).
//
// Rates come from the `sales-tax` package's dated table (res/sales_tax_rates.json: a current rate
// per country, and earlier rates with the date they ended), read at the moment of the sale, so a
// rate change applies from its day. VAT ID formats (and check digits where a country has them)
// are checked by `jsvat`; whether the number is registered (VIES) is not checked here: Stripe does
// that asynchronously too, and the seller's books are fine with a well-formed number in good faith.
//
// Amounts are integer cents. The rounding rule: VAT = net × rate, rounded to the nearest cent, a
// half cent rounded up (away from zero); total = net + VAT. One line per sale, so rounding per line
// and per invoice agree.
import isoCountries from "i18n-iso-countries";
import { checkVAT, countries as vatIdCountries } from "jsvat";
import regions from "sales-tax/res/region_countries.json" with { type: "json" };
import rates from "sales-tax/res/sales_tax_rates.json" with { type: "json" };

export const TAX_TREATMENTS = ["domestic", "eu_consumer", "reverse_charge", "outside_eu"] as const;
export type TaxTreatment = (typeof TAX_TREATMENTS)[number];

export interface TaxDecision {
  treatment: TaxTreatment;
  /** Basis points: 1900 is 19 %, 2550 is 25.5 %. */
  rateBasisPoints: number;
  /** The buyer's country (ISO 3166-1 alpha-2). */
  country: string;
  /** The VAT ID as it counts (normalised), or null. */
  vatId: string | null;
}

/** The seller on every invoice: the operator's business (operator settings SELLER_*). */
export interface Seller {
  name: string;
  /** Street, postcode and town, lines separated by "\n". */
  address: string;
  /** ISO 3166-1 alpha-2 of an EU country: decides VAT. */
  country: string;
  vatId: string;
}

export interface TaxedAmount {
  net: number;
  tax: number;
  total: number;
}

export const EU_COUNTRIES: readonly string[] = regions.EU;

type RateEntry = { rate: number; before?: Record<string, { rate: number }> };
export type RateTable = Record<string, RateEntry | undefined>;
const RATES = rates as unknown as RateTable;

/** Every country a buyer can give: ISO 3166-1 alpha-2, as `i18n-iso-countries` lists them. */
export const BUYER_COUNTRIES: readonly string[] = Object.keys(isoCountries.getAlpha2Codes());

export const isEuCountry = (country: string) => EU_COUNTRIES.includes(country);

/**
 * The standard VAT rate of an EU country at `at`, in basis points. The table's `before` entries
 * are keyed by the instant a rate stopped applying: the earliest such instant still after `at`
 * names the rate then.
 */
export function standardRateBasisPoints(country: string, at: Date, table: RateTable = RATES): number {
  const entry = table[country];
  if (!entry) throw new Error(`No VAT rate for country ${country}`);
  let rate = entry.rate;
  let earliestEnd: number | null = null;
  for (const [endsAt, earlier] of Object.entries(entry.before ?? {})) {
    const end = Date.parse(endsAt);
    if (Number.isNaN(end)) throw new Error(`Bad date in the VAT table for ${country}: ${endsAt}`);
    if (at.getTime() < end && (earliestEnd === null || end < earliestEnd)) {
      earliestEnd = end;
      rate = earlier.rate;
    }
  }
  // 0.255 * 10000 is 2549.9999999999995 in binary floating point: round to whole basis points.
  return Math.round(rate * 10_000);
}

export type VatIdCheck = { ok: true; vatId: string; country: string } | { ok: false; message: string };

export const VAT_ID_MESSAGES = {
  invalid: "This VAT ID is not valid. Check it or leave the field empty.",
  otherCountry: "This VAT ID belongs to another country than the one you selected.",
  outsideEu: "A VAT ID is only used for buyers in the EU. Leave the field empty.",
} as const;

/** jsvat names Greece EL (its VAT prefix) and the rest by their ISO code. */
const isoOfVatPrefix = (prefix: string) => (prefix === "EL" ? "GR" : prefix);

/** A VAT ID as we store and compare it: without spaces, dots, dashes or slashes, in capitals. */
export const compactVatId = (input: string): string => input.replace(/[\s.\-/]/g, "").toUpperCase();

/** Format check (and check digits) of an EU VAT ID for a buyer in `country`. */
export function checkVatId(input: string, country: string): VatIdCheck {
  const compact = compactVatId(input);
  if (!isEuCountry(country)) return { ok: false, message: VAT_ID_MESSAGES.outsideEu };
  const result = checkVAT(compact, vatIdCountries);
  if (!result.isValid || !result.country) return { ok: false, message: VAT_ID_MESSAGES.invalid };
  const prefix = compact.slice(0, 2);
  if (isoOfVatPrefix(prefix) !== country) return { ok: false, message: VAT_ID_MESSAGES.otherCountry };
  return { ok: true, vatId: compact, country };
}

/**
 * The VAT of a sale. `vatId` must already be checked (checkVatId) for `buyerCountry`; pass null
 * for a consumer.
 */
export function decideVat(p: {
  sellerCountry: string;
  buyerCountry: string;
  vatId: string | null;
  at: Date;
}): TaxDecision {
  const { sellerCountry, buyerCountry, vatId, at } = p;
  const base = { country: buyerCountry, vatId };
  if (!isEuCountry(buyerCountry))
    return { ...base, vatId: null, treatment: "outside_eu", rateBasisPoints: 0 };
  if (buyerCountry === sellerCountry)
    return { ...base, treatment: "domestic", rateBasisPoints: standardRateBasisPoints(sellerCountry, at) };
  if (vatId !== null) return { ...base, treatment: "reverse_charge", rateBasisPoints: 0 };
  return { ...base, treatment: "eu_consumer", rateBasisPoints: standardRateBasisPoints(buyerCountry, at) };
}

/** The rounding rule above, in integers only: floor((net × bp + 5000) / 10000) for net ≥ 0. */
export function vatOf(netCents: number, rateBasisPoints: number): number {
  if (!Number.isSafeInteger(netCents) || netCents < 0)
    throw new Error(`net must be whole cents ≥ 0: ${netCents}`);
  if (!Number.isSafeInteger(rateBasisPoints) || rateBasisPoints < 0)
    throw new Error(`rate must be whole basis points ≥ 0: ${rateBasisPoints}`);
  return Math.floor((netCents * rateBasisPoints + 5_000) / 10_000);
}

export function taxed(netCents: number, rateBasisPoints: number): TaxedAmount {
  const tax = vatOf(netCents, rateBasisPoints);
  return { net: netCents, tax, total: netCents + tax };
}

/** "19 %", "25.5 %" (basis points as a percentage, without trailing zeros). */
export function formatRate(rateBasisPoints: number): string {
  return `${rateBasisPoints / 100} %`;
}

/** The note an invoice carries for each treatment (null: none needed). */
export function invoiceNote(treatment: TaxTreatment): string | null {
  switch (treatment) {
    case "reverse_charge":
      return "Reverse charge: VAT is to be accounted for by the recipient (Art. 196 Directive 2006/112/EC).";
    case "outside_eu":
      return "Not subject to VAT in the EU: service supplied to a recipient outside the EU.";
    default:
      return null;
  }
}
