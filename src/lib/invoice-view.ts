// The billing history's and invoices' numbers as the portal shows them: amounts in cents with the
// currency's symbol and two decimals (an invoice is exact, unlike the plans page's rounded prices),
// the VAT column's label, country names, and where each row's invoice is.
import type { InvoiceSummary, TaxTreatmentName } from "../../contract/invoices.ts";

const MONEY = new Map<string, Intl.NumberFormat>();

/** `formatMoney(9401, "eur")` -> "€94.01" (fixed locale: the same text in every browser). */
export function formatMoney(cents: number, currency: string): string {
  const code = currency.toUpperCase();
  let format = MONEY.get(code);
  if (!format) {
    format = new Intl.NumberFormat("en-US", { style: "currency", currency: code });
    MONEY.set(code, format);
  }
  return format.format(cents / 100);
}

/** "19 %", "25.5 %"; the reason instead of a rate where no VAT is charged. */
export function vatRateLabel(rate: number | null, treatment: TaxTreatmentName | null): string {
  if (treatment === "reverse_charge") return "0 %, reverse charge";
  if (treatment === "outside_eu") return "0 %, outside the EU";
  return rate === null ? "" : `${rate} %`;
}

const COUNTRIES = new Intl.DisplayNames(["en"], { type: "region" });

/** "Germany" for DE; the code itself when the browser does not know it. */
export function countryName(code: string | null): string {
  if (!code) return "";
  try {
    return COUNTRIES.of(code) ?? code;
  } catch {
    return code;
  }
}

/** The portal's own printable page of an invoice (the local checkout's invoices). */
export const invoicePagePath = (id: string) => `/profile/billing/invoice?id=${encodeURIComponent(id)}`;

/**
 * Where a row's invoice is: Stripe's hosted page when Stripe issued it, the portal's printable
 * page for our own numbered invoices, none for a failed payment.
 */
export function invoiceLink(row: InvoiceSummary): { href: string; external: boolean } | null {
  if (row.invoice_url) return { href: row.invoice_url, external: true };
  if (row.number && row.status !== "failed") return { href: invoicePagePath(row.id), external: false };
  return null;
}
