// The billing history's rows and invoices as the API answers them (contract/invoices.ts), from the
// stored rows: the seller and buyer as they were on the day, the line, the VAT note.
import type { Invoice, InvoiceParty, InvoiceSummary } from "../../contract/invoices.ts";
import type { InvoiceParty as StoredParty } from "../db/schema/index.ts";
import { invoiceNote } from "../domain/vat.ts";
import { unpaidPack } from "./auto-top-up/history.ts";
import { invoiceNumber } from "./invoice-number.ts";
import type { InvoiceWithDocument } from "./invoices.ts";

export function invoiceSummary(row: InvoiceWithDocument): InvoiceSummary {
  return {
    id: row.id,
    number: invoiceNumber(row, row.document),
    date: row.issuedAt.toISOString(),
    kind: row.kind,
    description: row.description,
    currency: row.currency === "usd" ? "usd" : "eur",
    net: row.net,
    tax: row.tax,
    total: row.total,
    refunded: row.refunded,
    tax_rate: row.taxRateBasisPoints === null ? null : row.taxRateBasisPoints / 100,
    tax_treatment: row.taxTreatment,
    status: row.status,
    invoice_url: row.document?.hostedInvoiceUrl ?? null,
    pdf_url: row.document?.invoicePdfUrl ?? null,
    ...(row.payUrl ? { pay_url: row.payUrl } : {}),
  };
}

const party = (p: StoredParty): InvoiceParty => ({
  name: p.name,
  address: p.address ?? null,
  country: p.country,
  vat_id: p.vatId,
  email: p.email ?? null,
});

/** The buyer's details on file today: the name, postal address lines and billing e-mail. */
export interface BuyerOnFile {
  name: string | null;
  address: string | null;
  email: string | null;
}

/**
 * One row as its page shows it. An auto top-up waiting for the bank's confirmation is no invoice
 * yet, and its row keeps of the buyer only what decided the VAT (auto-top-up/history.ts): its page
 * names the buyer from the details on file (`onFile`), as the invoice will once it is paid. Its
 * line is the pack alone: the page's notice already says what the bank waits for.
 */
export function invoiceView(row: InvoiceWithDocument, onFile?: BuyerOnFile): Invoice {
  const waiting = row.status === "authentication_required";
  const buyer = party(row.buyer);
  const description = waiting ? unpaidPack(row.description) : row.description;
  return {
    ...invoiceSummary(row),
    seller: party(row.seller),
    buyer:
      waiting && onFile
        ? {
            ...buyer,
            name: buyer.name ?? onFile.name,
            address: buyer.address ?? onFile.address,
            email: buyer.email ?? onFile.email,
          }
        : buyer,
    lines: [{ description, quantity: 1, unit_amount: row.net, amount: row.net }],
    note: row.taxTreatment ? invoiceNote(row.taxTreatment) : null,
  };
}
