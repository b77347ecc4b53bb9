// Credit notes: the document each refund issues against its invoice (OPERATIONS.md). Numbered
// gap-free in their own yearly series ("CN-2026-000001") by the same counter table as invoices,
// once per refund fact (the credit adjustment's reference: a charge's cumulative refunded amount),
// with the net and VAT it reverses in the invoice's proportions (invoice-rules.ts). The customer's
// billing history lists them beside the invoices, and they print and download like an invoice.
import { randomUUID } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import type { Invoice, InvoiceSummary } from "../../contract/invoices.ts";
import {
  type CreditNoteRow,
  creditNotes,
  type InvoiceRow,
  invoices,
  providerInvoiceDocuments,
} from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";
import { invoiceNumber } from "./invoice-number.ts";
import { creditNoteAmounts, creditNoteSeriesOf, formatInvoiceNumber } from "./invoice-rules.ts";
import { invoiceView } from "./invoice-view.ts";
import { nextSequence } from "./invoices.ts";

/**
 * Issues the credit note of a refund that took the invoice's refunded amount from `before` to
 * `after` (the caller holds the user's lock); nothing when this refund fact already has one.
 */
export async function issueCreditNote(
  tx: Tx,
  invoice: InvoiceRow,
  refund: { before: number; after: number; reference: string; providerDocumentId: string | null },
  now: Date,
): Promise<CreditNoteRow | undefined> {
  const amounts = creditNoteAmounts(invoice, refund.before, refund.after);
  if (amounts.total <= 0) return undefined;
  const [existing] = await tx
    .select({ id: creditNotes.id })
    .from(creditNotes)
    .where(eq(creditNotes.reference, refund.reference));
  if (existing) return undefined;
  const series = creditNoteSeriesOf(now);
  const sequence = await nextSequence(tx, series);
  const [row] = await tx
    .insert(creditNotes)
    .values({
      id: randomUUID(),
      userId: invoice.userId,
      invoiceId: invoice.id,
      number: formatInvoiceNumber(series, sequence),
      series,
      sequence,
      issuedAt: now,
      currency: invoice.currency,
      ...amounts,
      reference: refund.reference,
      providerDocumentId: refund.providerDocumentId,
      createdAt: now,
    })
    .returning();
  return row;
}

/** A credit note with the invoice it corrects and that invoice's provider document (Stripe's), if any. */
type CreditNoteWithInvoice = {
  note: CreditNoteRow;
  invoice: InvoiceRow;
  document: { number: string | null } | null;
};

const WITH_INVOICE = {
  note: creditNotes,
  invoice: invoices,
  document: { number: providerInvoiceDocuments.number },
};

export async function userCreditNotes(db: DbOrTx, userId: string): Promise<CreditNoteWithInvoice[]> {
  return db
    .select(WITH_INVOICE)
    .from(creditNotes)
    .innerJoin(invoices, eq(invoices.id, creditNotes.invoiceId))
    .leftJoin(providerInvoiceDocuments, eq(providerInvoiceDocuments.invoiceId, invoices.providerInvoiceId))
    .where(eq(creditNotes.userId, userId))
    .orderBy(desc(creditNotes.issuedAt), desc(creditNotes.sequence));
}

export async function userCreditNote(
  db: DbOrTx,
  userId: string,
  id: string,
): Promise<CreditNoteWithInvoice | undefined> {
  const [row] = await db
    .select(WITH_INVOICE)
    .from(creditNotes)
    .innerJoin(invoices, eq(invoices.id, creditNotes.invoiceId))
    .leftJoin(providerInvoiceDocuments, eq(providerInvoiceDocuments.invoiceId, invoices.providerInvoiceId))
    .where(and(eq(creditNotes.userId, userId), eq(creditNotes.id, id)));
  return row;
}

/**
 * The invoice number a credit note refers to: the one the invoice shows (invoice-number.ts); while a
 * Stripe invoice's document has not arrived, the provider's invoice id.
 */
const invoiceNumberOf = ({ invoice, document }: CreditNoteWithInvoice) =>
  invoiceNumber(invoice, document) ?? invoice.providerInvoiceId ?? invoice.id;

/** A credit note as the billing history lists it: its own row, naming the invoice it corrects. */
export function creditNoteSummary(found: CreditNoteWithInvoice): InvoiceSummary {
  const { note, invoice } = found;
  const refersTo = invoiceNumberOf(found);
  return {
    id: note.id,
    number: note.number,
    date: note.issuedAt.toISOString(),
    kind: invoice.kind,
    description: `Refund of ${refersTo}: ${invoice.description}`,
    currency: note.currency === "usd" ? "usd" : "eur",
    net: note.net,
    tax: note.tax,
    total: note.total,
    refunded: 0,
    tax_rate: invoice.taxRateBasisPoints === null ? null : invoice.taxRateBasisPoints / 100,
    tax_treatment: invoice.taxTreatment,
    status: "refunded",
    invoice_url: null,
    pdf_url: null,
    document: "credit_note",
    refers_to: refersTo,
  };
}

/** A credit note as a printable document: the invoice's parties and VAT note, the refunded amounts. */
export function creditNoteView(found: CreditNoteWithInvoice): Invoice {
  const summary = creditNoteSummary(found);
  const { seller, buyer, note } = invoiceView({ ...found.invoice, document: null, payUrl: null });
  return {
    ...summary,
    seller,
    buyer,
    lines: [
      { description: summary.description, quantity: 1, unit_amount: found.note.net, amount: found.note.net },
    ],
    note,
  };
}
