// The billing history's rows and invoices as the API answers them (contract/invoices.ts), from the
// stored rows: the seller and buyer as they were on the day, the line, the VAT note.
import type { Invoice, InvoiceParty, InvoiceSummary } from "../../contract/invoices.ts";
import type { InvoiceParty as StoredParty } from "../db/schema/index.ts";
import { invoiceNote } from "../domain/vat.ts";
import type { InvoiceWithDocument } from "./invoices.ts";

export function invoiceSummary(row: InvoiceWithDocument): InvoiceSummary {
  return {
    id: row.id,
    number: row.document?.number ?? row.number,
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

export function invoiceView(row: InvoiceWithDocument): Invoice {
  return {
    ...invoiceSummary(row),
    seller: party(row.seller),
    buyer: party(row.buyer),
    lines: [{ description: row.description, quantity: 1, unit_amount: row.net, amount: row.net }],
    note: row.taxTreatment ? invoiceNote(row.taxTreatment) : null,
  };
}
