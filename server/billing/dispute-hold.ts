// The dispute hold (ACCOUNT-SECURITY.md): a dispute lost after the payment's credits were spent
// means the card network took the money back for credits that are gone. The account is put on
// hold, and nothing is charged to it (consume answers 402) until an admin clears the hold in the
// console. Placed in the dispute's own transaction, with a system entry in the audit log.
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { appendAudit } from "../audit/audit-log.ts";
import {
  type CreditGrantRow,
  creditAdjustments,
  type InvoiceRow,
  organizations,
} from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";
import { lostDisputeNeedsHold } from "../domain/reversal.ts";

/**
 * Puts the organisation that paid on hold when `grant` (as it was before the loss) shows spent
 * credits (ORGANISATIONS.md: a lost dispute puts the organisation that paid on hold).
 */
export async function holdAfterLostDispute(
  tx: Tx,
  row: InvoiceRow,
  grant: CreditGrantRow,
  disputeId: string,
  now: Date,
): Promise<boolean> {
  const [taken] = await tx
    .select({ sum: sql<string | null>`sum(${creditAdjustments.amount})` })
    .from(creditAdjustments)
    .where(
      and(
        eq(creditAdjustments.grantId, grant.id),
        inArray(creditAdjustments.kind, ["refund", "operator_take_back"]),
      ),
    );
  if (!lostDisputeNeedsHold(grant, Number(taken?.sum ?? 0))) return false;
  const held = await tx
    .update(organizations)
    .set({ disputeHoldAt: now })
    .where(and(eq(organizations.id, row.userId), isNull(organizations.disputeHoldAt)))
    .returning({ id: organizations.id, personal: organizations.personal });
  if (held.length === 0) return false; // on hold already
  await appendAudit(
    tx,
    {
      actorId: null,
      actorLabel: "system",
      action: "account.dispute_hold",
      // A personal organisation's hold is its user's, as before organisations.
      subjectUserId: held[0]?.personal ? row.userId : null,
      subjectOrgId: row.userId,
      reason: "A dispute was lost after the payment's credits were spent",
      details: { invoice_id: row.id, invoice_number: row.number, dispute_id: disputeId },
      ip: null,
    },
    now,
  );
  return true;
}

/** Since when the organisation is on a dispute hold; null when it is not (or is unknown). */
export async function disputeHoldSince(db: DbOrTx, orgId: string): Promise<Date | null> {
  const [org] = await db
    .select({ heldAt: organizations.disputeHoldAt })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return org?.heldAt ?? null;
}

/** Whether the organisation is on a dispute hold now (in `tx`: one placed by it counts). */
export async function isOnDisputeHold(tx: Tx, orgId: string): Promise<boolean> {
  return (await disputeHoldSince(tx, orgId)) !== null;
}
