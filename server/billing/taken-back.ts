// What the buyer's bank took back of each payment whose dispute was lost (domain/reversal.ts): what
// went back of it less what we refunded ourselves, read from the ledger's refund facts, which every
// refund since refunds began has (its credit note only since migration 0007), and the credit notes.
// The customer's invoice (reads.ts), the console's payments (operations/customer-views.ts) and the
// account's export give it as `taken_back`.
import { and, eq, inArray, sql } from "drizzle-orm";
import { creditAdjustments, creditGrants, creditNotes, invoices } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { refundedByUs, takenBackByBank } from "../domain/reversal.ts";

/** A history row as read: its status as the payment stands (`dispute_lost` once the bank took it). */
interface PaymentRow {
  id: string;
  status: string;
  total: number;
  refunded: number;
}

/** What the bank took back of each of `rows` whose dispute was lost, by invoice id (others are absent). */
export async function takenBackOfLostDisputes(
  db: DbOrTx,
  rows: readonly PaymentRow[],
): Promise<Map<string, number>> {
  const lost = rows.filter((r) => r.status === "dispute_lost");
  if (lost.length === 0) return new Map();
  const ids = lost.map((r) => r.id);
  const [facts, notes] = await Promise.all([
    db
      .select({ invoiceId: invoices.id, reference: creditAdjustments.reference })
      .from(invoices)
      .innerJoin(creditGrants, eq(creditGrants.fulfilmentKey, invoices.fulfilmentKey))
      .innerJoin(
        creditAdjustments,
        and(eq(creditAdjustments.grantId, creditGrants.id), eq(creditAdjustments.kind, "refund")),
      )
      .where(inArray(invoices.id, ids)),
    db
      .select({ invoiceId: creditNotes.invoiceId, sum: sql<string>`sum(${creditNotes.total})` })
      .from(creditNotes)
      .where(inArray(creditNotes.invoiceId, ids))
      .groupBy(creditNotes.invoiceId),
  ]);
  return new Map(
    lost.map((r) => {
      const references = facts.filter((f) => f.invoiceId === r.id).map((f) => f.reference);
      const creditNoted = Number(notes.find((n) => n.invoiceId === r.id)?.sum ?? 0);
      return [r.id, takenBackByBank(r.refunded, refundedByUs(references, r.total, creditNoted))];
    }),
  );
}
