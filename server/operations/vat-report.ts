// The quarter's VAT report from the stored documents (domain/vat-report.ts has the rules): every
// invoice issued in the quarter that took money (paid, later refunded or disputed), and every
// credit note issued in it, with the treatment, rate and buyer of the invoice it corrects.
import { and, eq, gte, inArray, lt } from "drizzle-orm";
import { creditNotes, invoices } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { quarterRange, type VatEntry, vatLines, vatTotals } from "../domain/vat-report.ts";

export async function vatReport(db: DbOrTx, quarter: string) {
  const range = quarterRange(quarter);
  if (!range) return undefined;
  const inQuarter = (column: typeof invoices.issuedAt | typeof creditNotes.issuedAt) =>
    and(gte(column, range.from), lt(column, range.to));
  const [sales, refunds] = await Promise.all([
    db
      .select()
      .from(invoices)
      .where(and(inQuarter(invoices.issuedAt), inArray(invoices.status, ["paid", "refunded", "disputed"]))),
    db
      .select({ note: creditNotes, invoice: invoices })
      .from(creditNotes)
      .innerJoin(invoices, eq(invoices.id, creditNotes.invoiceId))
      .where(inQuarter(creditNotes.issuedAt)),
  ]);
  const entries: VatEntry[] = [
    ...sales.map(
      (row): VatEntry => ({
        kind: "sale",
        at: row.issuedAt,
        saleAt: null,
        treatment: row.taxTreatment,
        rateBasisPoints: row.taxRateBasisPoints,
        country: row.buyer.country,
        vatId: row.buyer.vatId,
        currency: row.currency,
        net: row.net,
        vat: row.tax,
      }),
    ),
    ...refunds.map(
      ({ note, invoice }): VatEntry => ({
        kind: "refund",
        at: note.issuedAt,
        saleAt: invoice.issuedAt,
        treatment: invoice.taxTreatment,
        rateBasisPoints: invoice.taxRateBasisPoints,
        country: invoice.buyer.country,
        vatId: invoice.buyer.vatId,
        currency: note.currency,
        net: note.net,
        vat: note.tax,
      }),
    ),
  ];
  const lines = vatLines(entries);
  return { quarter, from: range.from, to: range.to, lines, totals: vatTotals(lines) };
}

export type VatReport = NonNullable<Awaited<ReturnType<typeof vatReport>>>;

export const VAT_CSV_COLUMNS = [
  "section",
  "country",
  "rate_percent",
  "buyer_vat_id",
  "original_quarter",
  "currency",
  "net",
  "vat",
  "documents",
] as const;

/** Minor units as the decimal amount a spreadsheet sums: 11900 -> "119.00", -595 -> "-5.95". */
export const decimalAmount = (minor: number) => {
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
};
