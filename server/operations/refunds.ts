// An admin refunds a payment, in full or in part (OPERATIONS.md). The provider makes the refund
// (Stripe: a Refund on the payment intent, once per idempotency key; the local checkout: a
// charge.refunded event), and the existing refund path takes it from there when the event comes
// back: credits taken back, the history's 'refunded', and the credit note (billing/reversals.ts).
//
// The provider call and the audit entry share a transaction under the customer's lock. A Stripe
// refund cannot be rolled back with it: if the entry's write fails after Stripe said yes, the
// staff member sees an error and retries with the same idempotency key, which Stripe answers with
// the same refund, and the entry is written then.
import { and, eq, sql } from "drizzle-orm";
import { ADMIN_TEXT } from "../../contract/admin.ts";
import { issuedNoInvoice } from "../../contract/invoices.ts";
import { isUserId } from "../accounts/users.ts";
import { lockUser } from "../billing/ledger-store.ts";
import type { PaymentProvider } from "../billing/ports/payment-provider.ts";
import { auditLog, invoices } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { type Actor, audit, auditEntryOf, earlierKeyedAction, refuseOwnAccount } from "./actor.ts";
import { refuseOrgMember } from "./org-actions.ts";
import { holds } from "./permissions.ts";
import { OperatorRefusal } from "./refusal.ts";

export const REFUND_TEXT = {
  notFound: "Payment not found",
  failed: "A failed payment took no money: there is nothing to refund",
  disputed: "The payment is disputed: the card network decides what is paid back",
  fullyRefunded: "The payment is already refunded in full",
  tooMuch: (refundable: number) => `At most ${refundable} (minor units) can still be refunded`,
  otherRequest: "This idempotency key was used for a different refund",
  notAtProvider: "The provider has no payment to refund for this invoice",
} as const;

export interface RefundDeps {
  db: Db;
  provider: Pick<PaymentProvider, "refundPayment">;
  /** After the provider was asked (the local checkout then delivers its event). */
  afterProviderChange: () => void;
}

export interface RefundDone {
  refundId: string;
  status: string;
  auditId: string;
}

/**
 * What the console's earlier refunds of this invoice asked for, in minor units: those the provider
 * answered "failed" or "canceled" moved no money, so they leave the amount to refund again (the
 * console counts them as not made too, refundMade in src/lib/admin-actions.ts).
 */
async function refundsRequested(tx: Tx, userId: string, invoiceId: string): Promise<number> {
  const [row] = await tx
    .select({ sum: sql<string | null>`sum((${auditLog.details}->>'amount')::bigint)` })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.subjectUserId, userId),
        eq(auditLog.action, "payment.refund"),
        sql`${auditLog.details}->>'invoice_id' = ${invoiceId}`,
        sql`coalesce(${auditLog.details}->>'status', '') not in ('failed', 'canceled')`,
      ),
    );
  return Number(row?.sum ?? 0);
}

export async function refundPayment(
  deps: RefundDeps,
  actor: Actor,
  invoiceId: string,
  request: { amount?: number | undefined; reason: string; idempotencyKey: string },
  now: Date,
): Promise<RefundDone> {
  if (!holds(actor.role, "refundPayment")) throw new OperatorRefusal(403, ADMIN_TEXT.adminOnly);
  const [found] = isUserId(invoiceId)
    ? await deps.db.select().from(invoices).where(eq(invoices.id, invoiceId))
    : [];
  if (!found) throw new OperatorRefusal(404, REFUND_TEXT.notFound);
  refuseOwnAccount(actor, { id: found.userId }, ADMIN_TEXT.notOwnAccount);
  // The payment is its organisation's (a personal one's id is its user's): staff never refund for
  // an organisation they are a member of (ORGANISATIONS.md, "The operator console").
  await refuseOrgMember(deps.db, actor, found.userId);
  // The reason reaches the provider: refused here if the audit entry could not hold it.
  auditEntryOf(actor, {
    action: "payment.refund",
    subjectUserId: found.userId,
    reason: request.reason,
    details: { idempotency_key: request.idempotencyKey },
  });
  const done = await deps.db.transaction(async (tx): Promise<RefundDone> => {
    await lockUser(tx, found.userId);
    const earlier = await earlierKeyedAction(tx, found.userId, "payment.refund", request.idempotencyKey);
    if (earlier) {
      const details = earlier.details as {
        invoice_id: string;
        amount: number;
        refund_id: string;
        status: string;
      };
      const same =
        details.invoice_id === invoiceId &&
        (request.amount === undefined || request.amount === details.amount);
      if (!same) throw new OperatorRefusal(409, REFUND_TEXT.otherRequest);
      return { refundId: details.refund_id, status: details.status, auditId: earlier.id };
    }
    const [row] = await tx.select().from(invoices).where(eq(invoices.id, invoiceId)).for("update");
    if (!row) throw new OperatorRefusal(404, REFUND_TEXT.notFound);
    if (issuedNoInvoice(row.status)) throw new OperatorRefusal(409, REFUND_TEXT.failed);
    if (row.status === "disputed") throw new OperatorRefusal(409, REFUND_TEXT.disputed);
    // A refund asked for a moment ago may not be back from the provider yet: count it as made.
    const refundedBefore = Math.max(row.refunded, await refundsRequested(tx, row.userId, row.id));
    const refundable = row.total - refundedBefore;
    if (refundable <= 0) throw new OperatorRefusal(409, REFUND_TEXT.fullyRefunded);
    const amount = request.amount ?? refundable;
    if (amount > refundable) throw new OperatorRefusal(409, REFUND_TEXT.tooMuch(refundable), { refundable });
    const refund = await deps.provider.refundPayment(tx, {
      userId: row.userId,
      invoiceId: row.id,
      paymentReference: row.paymentReference,
      providerInvoiceId: row.providerInvoiceId,
      currency: row.currency,
      total: row.total,
      refundedBefore,
      amount,
      reason: request.reason,
      idempotencyKey: request.idempotencyKey,
    });
    if (!refund) throw new OperatorRefusal(409, REFUND_TEXT.notAtProvider);
    const entry = await audit(
      tx,
      actor,
      {
        action: "payment.refund",
        subjectUserId: row.userId,
        subjectOrgId: row.userId,
        reason: request.reason,
        details: {
          invoice_id: row.id,
          invoice_number: row.number,
          amount,
          currency: row.currency,
          refund_id: refund.refundId,
          status: refund.status,
          idempotency_key: request.idempotencyKey,
        },
      },
      now,
    );
    return { ...refund, auditId: entry.id };
  });
  deps.afterProviderChange();
  return done;
}
