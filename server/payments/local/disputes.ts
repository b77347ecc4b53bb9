// Disputes at the local checkout. Stripe's test card 4000 0000 0000 0259 pays, then the card holder
// disputes the payment at once (reason `fraudulent`, status `needs_response`): the stand-in queues
// charge.dispute.created right behind the payment's own event, signed and delivered like every
// other event of it. Stripe's test disputes end on the evidence submitted ("winning_evidence" or
// "losing_evidence"); here a developer says how (POST /_dev/billing/disputes/{id or invoice
// number}/close), and the stand-in sends charge.dispute.closed for the same dispute.
//
// A dispute hold follows only a dispute lost after some of the payment's credits were spent
// (ACCOUNT-SECURITY.md), and the card's dispute comes before anything can be spent. So a developer
// can also dispute a payment made earlier (POST /_dev/billing/disputes {invoice_number}), as a card
// holder does weeks later: spend some of its credits first, then lose the dispute, and the hold shows.
// As at Stripe, a payment is disputed once: one disputed before, open or closed, won or lost, is not
// disputed again (the route answers 409 naming that dispute).
import { and, asc, eq } from "drizzle-orm";
import { invoices, webhookDeliveries } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import { newStripeId } from "../stripe/format.ts";
import { enqueueEvent } from "./deliveries.ts";
import { type DisputeInput, disputeEvent, type EventMeta } from "./event-builders.ts";
import { unclaimedChargeId } from "./refunds.ts";
import { seconds } from "./stripe-objects.ts";

/** What a dispute is about: the payment intent, and the amount disputed (what it still charges). */
interface DisputedPayment {
  paymentIntentId: string;
  amount: number;
  currency: string;
}

type OpenDisputeResult =
  | { ok: true; disputeId: string }
  /** Disputed before (`disputeId`, open or closed): Stripe never disputes a charge twice. */
  | { ok: false; reason: "already_disputed"; disputeId: string };

/**
 * Queues charge.dispute.created for `payment`, after everything queued before it in `tx` (the
 * payment's own checkout.session.completed: a dispute of a payment not on record yet would be
 * answered as one billing does not know). Answers the dispute's id; or, for a payment disputed
 * before (open or closed: Stripe opens one dispute per charge), queues nothing and answers that
 * dispute's id with `ok: false`. The caller holds the payment's lock (its checkout session's, or
 * its invoice's), so two requests never both open one.
 */
export async function openDispute(
  tx: DbOrTx,
  meta: EventMeta,
  payment: DisputedPayment,
  now: Date,
): Promise<OpenDisputeResult> {
  const earlier = await disputeOfPayment(tx, payment.paymentIntentId);
  if (earlier) return { ok: false, reason: "already_disputed", disputeId: earlier.id };
  const dispute: DisputeInput = {
    id: newStripeId("du"),
    chargeId: unclaimedChargeId(payment.paymentIntentId),
    paymentIntentId: payment.paymentIntentId,
    amount: payment.amount,
    currency: payment.currency,
    status: "needs_response",
    created: seconds(now),
  };
  // Due now, but ordered a millisecond after the payment's event (deliveries go oldest first).
  await enqueueEvent(tx, disputeEvent(meta, "created", dispute), now, new Date(now.getTime() + 1));
  return { ok: true, disputeId: dispute.id };
}

interface DisputeObject {
  id: string;
  charge: string;
  payment_intent: string;
  amount: number;
  currency: string;
  created: number;
}

/**
 * The dispute objects of the stand-in's queued events of `type`, oldest first ("the latest dispute"
 * of a payment is the last: a delivery row is updated as it is sent, which moves it in a table's
 * physical order on PostgreSQL).
 */
async function queuedDisputes(db: DbOrTx, type: "charge.dispute.created" | "charge.dispute.closed") {
  const rows = await db
    .select({ payload: webhookDeliveries.payload })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.type, type))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
  return rows.map((r) => (JSON.parse(r.payload) as { data: { object: DisputeObject } }).data.object);
}

/** The stand-in's dispute of a payment intent, open or closed; undefined when it was never disputed. */
async function disputeOfPayment(db: DbOrTx, paymentIntentId: string): Promise<DisputeObject | undefined> {
  return (await queuedDisputes(db, "charge.dispute.created")).find(
    (d) => d.payment_intent === paymentIntentId,
  );
}

export type CloseDisputeResult =
  | { ok: true; disputeId: string }
  | { ok: false; reason: "not_found" | "already_closed" };

/** The paid-by-card payment of this checkout with invoice number `number`, if any (`lock`: for update). */
async function localPayment(tx: DbOrTx, number: string, lock = false) {
  const query = tx
    .select()
    .from(invoices)
    .where(and(eq(invoices.number, number), eq(invoices.provider, "local")))
    .$dynamic();
  const [row] = await (lock ? query.for("update") : query);
  return row;
}

/**
 * Queues charge.dispute.closed for a dispute of the stand-in, `won` or `lost`: named by its id
 * (du_…), or by the invoice number of the payment it disputes (its latest dispute), as
 * /profile/billing shows it.
 */
export async function closeDispute(
  tx: DbOrTx,
  meta: EventMeta,
  ref: string,
  status: "won" | "lost",
  now: Date,
): Promise<CloseDisputeResult> {
  const paymentIntentId = ref.startsWith("du_") ? null : (await localPayment(tx, ref))?.paymentReference;
  const opened = (await queuedDisputes(tx, "charge.dispute.created")).findLast((d) =>
    paymentIntentId ? d.payment_intent === paymentIntentId : d.id === ref,
  );
  if (!opened) return { ok: false, reason: "not_found" };
  if ((await queuedDisputes(tx, "charge.dispute.closed")).some((d) => d.id === opened.id))
    return { ok: false, reason: "already_closed" };
  const event = disputeEvent(meta, "closed", {
    id: opened.id,
    chargeId: opened.charge,
    paymentIntentId: opened.payment_intent,
    amount: opened.amount,
    currency: opened.currency,
    status,
    created: opened.created,
  });
  await enqueueEvent(tx, event, now);
  return { ok: true, disputeId: opened.id };
}

export type DisputePaymentResult = OpenDisputeResult | { ok: false; reason: "not_found" | "not_disputable" };

/**
 * Disputes a payment made at this checkout earlier, named by its invoice number: a paid one-off
 * payment (a pack, or an auto top-up) that a payment intent carried; a subscription's invoice names
 * none. A payment disputed before, whatever came of it, is not disputed again.
 */
export async function disputePayment(
  tx: DbOrTx,
  meta: EventMeta,
  invoiceNumber: string,
  now: Date,
): Promise<DisputePaymentResult> {
  // Locked: a second request for the same payment waits, then finds this one's dispute.
  const row = await localPayment(tx, invoiceNumber, true);
  if (!row) return { ok: false, reason: "not_found" };
  const paymentIntentId = row.paymentReference?.startsWith("pi_") ? row.paymentReference : null;
  if (!paymentIntentId) return { ok: false, reason: "not_disputable" };
  const earlier = await disputeOfPayment(tx, paymentIntentId);
  if (earlier) return { ok: false, reason: "already_disputed", disputeId: earlier.id };
  if (row.status !== "paid") return { ok: false, reason: "not_disputable" };
  // What the card holder was not given back: a partial refund is no longer theirs to dispute.
  // Stripe's support notes that an issuer may still dispute the whole charge by mistake and then
  // replaces that dispute with one for the corrected amount (support.stripe.com, "Dispute for full
  // charge amount after a partial refund was issued"); the stand-in sends the corrected one.
  const payment = { paymentIntentId, amount: row.total - row.refunded, currency: row.currency };
  return openDispute(tx, meta, payment, now);
}
