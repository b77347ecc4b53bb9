// Invoices and the billing history. Every payment the webhook handler fulfils gets one row, keyed
// by the same fulfilment key as its credit grant, inside the same transaction (so a payment is in
// the history exactly when its credits are in the ledger). A renewal or auto top-up that fails
// first gets a "failed" row, which its later payment turns into the paid invoice; an auto top-up
// that a limit held back gets a "not_charged" row.
//
// Numbers: a paid row of the local provider gets the next number of its year's series,
// "INV-2026-000001". The counter row is incremented under its row lock in the payment's
// transaction: a transaction that rolls back gives its number back, and two payments (on two
// server processes) wait for each other's commit, so the numbers have no gaps and no repeats.
// With Stripe the invoice is Stripe's: its number and pages arrive as invoice events
// (provider_invoice_documents) and the history links to them.
import { randomUUID } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import {
  type InvoiceParty,
  type InvoiceRow,
  invoiceSequences,
  invoices,
  providerInvoiceDocuments,
} from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";
import type { Seller } from "../domain/vat.ts";
import { type HistoryStatus, withHistoryStatus } from "./auto-top-up/history-status.ts";
import { formatInvoiceNumber, seriesOf, taxOfPayment } from "./invoice-rules.ts";
import type { InvoiceDocument, PaymentFacts } from "./ports/events.ts";

export interface PaidInvoice {
  userId: string;
  fulfilmentKey: string;
  provider: "local" | "stripe";
  kind: InvoiceRow["kind"];
  description: string;
  paidAt: Date;
  payment: PaymentFacts;
  providerInvoiceId: string | null;
  paymentReference: string | null;
  /** The postal address the organisation gave for the buyer's country (lines), if any. */
  buyerAddress?: string | null;
}

/** The next number of `series` (invoices and credit notes), under the counter row's lock until the transaction ends. */
export async function nextSequence(tx: Tx, series: string): Promise<number> {
  const [row] = await tx
    .insert(invoiceSequences)
    .values({ series, last: 1 })
    .onConflictDoUpdate({ target: invoiceSequences.series, set: { last: sql`${invoiceSequences.last} + 1` } })
    .returning({ last: invoiceSequences.last });
  if (!row) throw new Error(`invoice series ${series} returned no number`);
  return row.last;
}

function partyOfBuyer(payment: PaymentFacts, address: string | null = null): InvoiceParty {
  const b = payment.buyer;
  return {
    name: b.name,
    email: b.email,
    country: b.country,
    vatId: b.vatId,
    ...(address ? { address } : {}),
  };
}

function partyOfSeller(seller: Seller): InvoiceParty {
  return { name: seller.name, address: seller.address, country: seller.country, vatId: seller.vatId };
}

/**
 * Records a paid invoice once per fulfilment key (the caller holds the user's lock). A later event
 * for the same payment only fills in what the first lacked (the provider's invoice id). Returns
 * the row and whether this call made it paid (a receipt is due then, and only then).
 */
export async function recordPaidInvoice(
  tx: Tx,
  paid: PaidInvoice,
  seller: Seller,
  now: Date,
): Promise<{ row: InvoiceRow; becamePaid: boolean }> {
  const [existing] = await tx
    .select()
    .from(invoices)
    .where(eq(invoices.fulfilmentKey, paid.fulfilmentKey))
    .for("update");
  // A charge auto top-up held back was never sent: no payment can carry its key.
  if (existing?.status === "not_charged")
    throw new Error(`payment ${paid.fulfilmentKey} names a charge that was not made`);
  if (existing && existing.status !== "failed") {
    if (!existing.providerInvoiceId && paid.providerInvoiceId) {
      const [updated] = await tx
        .update(invoices)
        .set({ providerInvoiceId: paid.providerInvoiceId, updatedAt: now })
        .where(eq(invoices.id, existing.id))
        .returning();
      return { row: updated ?? existing, becamePaid: false };
    }
    return { row: existing, becamePaid: false };
  }
  const tax = taxOfPayment(paid.payment, seller.country, paid.paidAt);
  let numbering: { series: string | null; sequence: number | null; number: string | null } = {
    series: null,
    sequence: null,
    number: null,
  };
  if (paid.provider === "local") {
    const series = seriesOf(paid.paidAt);
    const sequence = await nextSequence(tx, series);
    numbering = { series, sequence, number: formatInvoiceNumber(series, sequence) };
  }
  const fields = {
    provider: paid.provider,
    kind: paid.kind,
    status: "paid" as const,
    ...numbering,
    issuedAt: paid.paidAt,
    description: paid.description,
    currency: paid.payment.currency,
    net: paid.payment.net,
    tax: paid.payment.tax,
    total: paid.payment.total,
    taxTreatment: tax.treatment,
    taxRateBasisPoints: tax.rateBasisPoints,
    seller: partyOfSeller(seller),
    buyer: partyOfBuyer(paid.payment, paid.buyerAddress),
    providerInvoiceId: paid.providerInvoiceId ?? existing?.providerInvoiceId ?? null,
    paymentReference: paid.paymentReference,
    updatedAt: now,
  };
  if (existing) {
    const [updated] = await tx.update(invoices).set(fields).where(eq(invoices.id, existing.id)).returning();
    if (!updated) throw new Error(`invoice ${existing.id} vanished`);
    return { row: updated, becamePaid: true };
  }
  const [inserted] = await tx
    .insert(invoices)
    .values({
      id: randomUUID(),
      userId: paid.userId,
      fulfilmentKey: paid.fulfilmentKey,
      createdAt: now,
      ...fields,
    })
    .returning();
  if (!inserted) throw new Error("invoice was not recorded");
  return { row: inserted, becamePaid: true };
}

/** A payment that was not made: declined ("failed") or held back by a limit ("not_charged"). */
export type UnpaidPayment = Omit<PaidInvoice, "paidAt"> & {
  status: "failed" | "not_charged";
  attemptedAt: Date;
};

/**
 * A declined renewal: a "failed" row in the history (once per renewal; a paid one stays paid).
 * Returns whether the row is new or was failed before (false once the renewal is paid).
 */
export function recordFailedRenewal(
  tx: Tx,
  failed: Omit<PaidInvoice, "paidAt" | "kind"> & { attemptedAt: Date },
  seller: Seller,
  now: Date,
): Promise<boolean> {
  return recordUnpaid(tx, { ...failed, kind: "renewal", status: "failed" }, seller, now);
}

/**
 * A payment that was not made, as a row of the history without a number (once per fulfilment
 * key; a row already there stays as it is, so a paid one stays paid). A failed row's later
 * payment turns it into the paid invoice (recordPaidInvoice). Returns whether the row is new or
 * was unpaid before.
 */
export async function recordUnpaid(
  tx: Tx,
  unpaid: UnpaidPayment,
  seller: Seller,
  now: Date,
): Promise<boolean> {
  const [existing] = await tx
    .select({ status: invoices.status, description: invoices.description })
    .from(invoices)
    .where(eq(invoices.fulfilmentKey, unpaid.fulfilmentKey))
    .for("update");
  if (existing) {
    if (existing.status !== unpaid.status) return false;
    // The same payment failing again (declined on its payment page after asking for
    // authentication, or cancelled): the row says how it ended.
    if (existing.description !== unpaid.description)
      await tx
        .update(invoices)
        .set({ description: unpaid.description, updatedAt: now })
        .where(eq(invoices.fulfilmentKey, unpaid.fulfilmentKey));
    return true;
  }
  const tax = taxOfPayment(unpaid.payment, seller.country, unpaid.attemptedAt);
  await tx.insert(invoices).values({
    id: randomUUID(),
    userId: unpaid.userId,
    fulfilmentKey: unpaid.fulfilmentKey,
    provider: unpaid.provider,
    kind: unpaid.kind,
    status: unpaid.status,
    issuedAt: unpaid.attemptedAt,
    description: unpaid.description,
    currency: unpaid.payment.currency,
    net: unpaid.payment.net,
    tax: unpaid.payment.tax,
    total: unpaid.payment.total,
    taxTreatment: tax.treatment,
    taxRateBasisPoints: tax.rateBasisPoints,
    seller: partyOfSeller(seller),
    buyer: partyOfBuyer(unpaid.payment, unpaid.buyerAddress),
    providerInvoiceId: unpaid.providerInvoiceId,
    paymentReference: unpaid.paymentReference,
    createdAt: now,
    updatedAt: now,
  });
  return true;
}

/** Stripe's number and pages of an invoice; a later event's non-empty values win. */
export async function recordInvoiceDocument(tx: DbOrTx, doc: InvoiceDocument, now: Date): Promise<void> {
  await tx
    .insert(providerInvoiceDocuments)
    .values({ ...doc, updatedAt: now })
    .onConflictDoUpdate({
      target: providerInvoiceDocuments.invoiceId,
      set: {
        number: sql`coalesce(excluded.number, ${providerInvoiceDocuments.number})`,
        hostedInvoiceUrl: sql`coalesce(excluded.hosted_invoice_url, ${providerInvoiceDocuments.hostedInvoiceUrl})`,
        invoicePdfUrl: sql`coalesce(excluded.invoice_pdf_url, ${providerInvoiceDocuments.invoicePdfUrl})`,
        updatedAt: now,
      },
    });
}

/** A history row as readers see it: its status as the payment stands (history-status.ts). */
export type InvoiceWithDocument = Omit<InvoiceRow, "status"> &
  HistoryStatus & {
    document: { number: string | null; hostedInvoiceUrl: string | null; invoicePdfUrl: string | null } | null;
  };

const DOCUMENT_COLUMNS = {
  number: providerInvoiceDocuments.number,
  hostedInvoiceUrl: providerInvoiceDocuments.hostedInvoiceUrl,
  invoicePdfUrl: providerInvoiceDocuments.invoicePdfUrl,
};

/** A user's billing history, newest first (at most `limit` rows). */
export async function userInvoices(
  db: DbOrTx,
  userId: string,
  limit: number | null = 200,
): Promise<InvoiceWithDocument[]> {
  const query = db
    .select({ invoice: invoices, document: DOCUMENT_COLUMNS })
    .from(invoices)
    .leftJoin(providerInvoiceDocuments, eq(providerInvoiceDocuments.invoiceId, invoices.providerInvoiceId))
    .where(eq(invoices.userId, userId))
    .orderBy(desc(invoices.issuedAt), desc(invoices.createdAt))
    .$dynamic();
  const rows = await (limit === null ? query : query.limit(limit));
  return withHistoryStatus(
    db,
    rows.map((r) => ({ ...r.invoice, document: r.document })),
  );
}

/** One invoice of a user (undefined: not theirs, or none). */
export async function userInvoice(
  db: DbOrTx,
  userId: string,
  invoiceId: string,
): Promise<InvoiceWithDocument | undefined> {
  const [row] = await db
    .select({ invoice: invoices, document: DOCUMENT_COLUMNS })
    .from(invoices)
    .leftJoin(providerInvoiceDocuments, eq(providerInvoiceDocuments.invoiceId, invoices.providerInvoiceId))
    .where(and(eq(invoices.userId, userId), eq(invoices.id, invoiceId)));
  if (!row) return undefined;
  const [read] = await withHistoryStatus(db, [{ ...row.invoice, document: row.document }]);
  return read;
}
