// The dispute hold (ACCOUNT-SECURITY.md): a dispute lost after the payment's credits were spent
// means the card network took the money back for credits that are gone. The account is put on
// hold, and nothing is charged to it (consume answers 402) until an admin clears the hold in the
// console. Placed in the dispute's own transaction, with a system entry in the audit log and one
// mail to the organisation's billing contacts (queued there, sent once it commits).
import { and, desc, eq, inArray, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { appendAudit } from "../audit/audit-log.ts";
import {
  type CreditGrantRow,
  creditAdjustments,
  creditGrants,
  type InvoiceRow,
  invoices,
  organizations,
  providerInvoiceDocuments,
} from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";
import { lostDisputeNeedsHold, takenBackByBank } from "../domain/reversal.ts";
import { disputeHoldMail } from "../mail/billing-templates.ts";
import { queueBillingMail } from "./billing-mails.ts";
import { invoiceNumber } from "./invoice-number.ts";
import { invoicePageUrl } from "./payment-history.ts";

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
  portalUrl: string,
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
    .returning({ id: organizations.id, personal: organizations.personal, name: organizations.name });
  if (held.length === 0) return false; // on hold already
  const team = held[0]?.personal === false ? (held[0].name ?? "") : null;
  const number = await invoiceNumberOf(tx, row);
  // Once per hold: the dispute placed it, and a redelivery of its event places nothing.
  await queueBillingMail(
    tx,
    {
      userId: row.userId,
      kind: "dispute_hold",
      dedupeKey: `dispute_hold:${disputeId}`,
      build: (user) =>
        disputeHoldMail(user, {
          number,
          description: row.description,
          currency: row.currency,
          // `row` is the invoice before the loss: what it had refunded stays refunded.
          takenBack: takenBackByBank(row.total, row.refunded),
          invoiceUrl: invoicePageUrl(portalUrl, row, team !== null),
          team,
        }),
    },
    now,
  );
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
      details: { invoice_id: row.id, invoice_number: number, dispute_id: disputeId },
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

/** An invoice's number as its customer sees it (invoice-number.ts), with its provider's document. */
async function invoiceNumberOf(db: DbOrTx, row: InvoiceRow): Promise<string | null> {
  if (!row.providerInvoiceId) return invoiceNumber(row, null);
  const [doc] = await db
    .select({ number: providerInvoiceDocuments.number })
    .from(providerInvoiceDocuments)
    .where(eq(providerInvoiceDocuments.invoiceId, row.providerInvoiceId));
  return invoiceNumber(row, doc);
}

/** The invoice of the payment whose lost dispute placed a hold, as the portal names and links it. */
interface HoldInvoice {
  id: string;
  /** The invoice number (ours, or Stripe's); null while the provider has not numbered it. */
  number: string | null;
  /** Stripe's hosted invoice page; null for the local checkout's invoices (the portal has its own). */
  invoiceUrl: string | null;
}

/**
 * The invoice of the payment whose lost dispute put `orgId` on its present hold; null when it is not
 * on hold. The hold is placed in that dispute's transaction at the same time as its `dispute_lost`
 * adjustment, so it is the latest one no later than the hold (a later lost dispute places none).
 */
export async function holdInvoice(db: DbOrTx, orgId: string): Promise<HoldInvoice | null> {
  const [row] = await db
    .select({
      id: invoices.id,
      number: invoices.number,
      documentNumber: providerInvoiceDocuments.number,
      invoiceUrl: providerInvoiceDocuments.hostedInvoiceUrl,
    })
    .from(creditAdjustments)
    .innerJoin(
      organizations,
      and(
        eq(organizations.id, creditAdjustments.userId),
        isNotNull(organizations.disputeHoldAt),
        lte(creditAdjustments.createdAt, organizations.disputeHoldAt),
      ),
    )
    .innerJoin(creditGrants, eq(creditGrants.id, creditAdjustments.grantId))
    .innerJoin(invoices, eq(invoices.fulfilmentKey, creditGrants.fulfilmentKey))
    .leftJoin(providerInvoiceDocuments, eq(providerInvoiceDocuments.invoiceId, invoices.providerInvoiceId))
    .where(and(eq(creditAdjustments.userId, orgId), eq(creditAdjustments.kind, "dispute_lost")))
    .orderBy(desc(creditAdjustments.createdAt))
    .limit(1);
  if (!row) return null;
  return {
    id: row.id,
    number: invoiceNumber(row, { number: row.documentNumber }),
    invoiceUrl: row.invoiceUrl,
  };
}
