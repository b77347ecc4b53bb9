// What an invoice says and how its numbers read, wherever it is shown: the portal's printable page,
// the PDF the API renders (server/billing/invoice-pdf.ts) and the billing mails. One module, so the
// printed page and the PDF of the same invoice never disagree on a word or a cent. Browser-safe.
import { countryName } from "./country-name.ts";
import { INVOICE_TEXT } from "./invoice-text.ts";
import type { Invoice, TaxTreatmentName } from "./invoices.ts";

/** "19 %", "25.5 %"; the reason instead of a rate where no VAT is charged. */
export function vatRateLabel(rate: number | null, treatment: TaxTreatmentName | null): string {
  if (treatment === "reverse_charge") return "0 %, reverse charge";
  if (treatment === "outside_eu") return "0 %, outside the EU";
  return rate === null ? "" : `${rate} %`;
}

/** The document's title: an invoice, or the credit note a refund issued. */
export const documentTitle = (invoice: Pick<Invoice, "document">): string =>
  invoice.document === "credit_note" ? INVOICE_TEXT.creditNoteTitle : INVOICE_TEXT.invoiceTitle;

/** The lines of a party's address block: name, address (or the country alone), e-mail. */
export function partyLines(party: {
  name: string | null;
  address: string | null;
  country: string | null;
  email: string | null;
}): string[] {
  return [party.name, party.address, party.address ? null : countryName(party.country), party.email].filter(
    (line): line is string => Boolean(line),
  );
}

/** The file name an invoice's PDF downloads as (the API's and the portal's): its number, which is unique. */
export const invoicePdfName = (invoice: Pick<Invoice, "number">): string =>
  `${invoice.number ?? "invoice"}.pdf`;
