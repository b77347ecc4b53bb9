// Money that goes back: refunds and disputes of a payment (charge.refunded, charge.dispute.*).
// The credits the payment granted that are still unspent are taken back (a refund, in proportion to
// the share refunded; all of them for a full refund or a lost dispute) or held frozen while a
// dispute is open: domain/reversal.ts decides how much. Each change is one credit_adjustments row,
// once per provider fact; a grant's remaining never goes below zero (credits already spent stay
// spent), so the balance never does.
import { randomUUID } from "node:crypto";
import { and, eq, inArray, or, type SQL } from "drizzle-orm";
import type { Logger } from "pino";
import {
  billingCustomers,
  creditAdjustments,
  creditGrants,
  type InvoiceRow,
  invoices,
  organizations,
  users,
} from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { closedDisputeOutcome, disputeStep, refundStep } from "../domain/reversal.ts";
import { findAttempt, OPEN_ATTEMPT_STATUSES } from "./auto-top-up/store.ts";
import { endLeases } from "./credit-leases.ts";
import { issueCreditNote } from "./credit-notes.ts";
import { organisationIsDeleted, personalAccount } from "./deleted-billing-account.ts";
import { holdAfterLostDispute } from "./dispute-hold.ts";
import { lockUser } from "./ledger-store.ts";
import type { BillingEvent } from "./ports/events.ts";
import type { PaymentProvider } from "./ports/payment-provider.ts";
import { SECOND_SUBSCRIPTION_REFUND_REASON } from "./subscription-changes.ts";

type AdjustmentKind = (typeof creditAdjustments.$inferInsert)["kind"];

/**
 * A refund or dispute of a payment not on record whose record is on its way: a refund billing made
 * of a second subscription's payment, or an auto top-up whose attempt is still open.
 *
 * A refund billing made of a second subscription's payment (subscription-changes.ts) whose payment is
 * not on record. Billing asks for that refund inside the transaction that records the payment; if
 * the transaction rolls back after the provider made the refund (a crash, a lost connection), the
 * invoice is written only when the provider delivers the payment's event again. The refund's event
 * is answered 503 so that the provider delivers it again too (for three days in live mode, backing
 * off), and it applies once the invoice is there. Before, it was answered 200, and the invoice said
 * paid for good. Only with the provider's word that the refund is billing's own, given for that
 * reason: a refund of a payment we never record (taken outside the portal) has no record on its
 * way, and is logged for an operator at once.
 *
 * An auto top-up's payment is recorded when its attempt is settled, by the charge's answer, the
 * sweep (within minutes of a crash or a lost answer) or the invoice's event; a refund or dispute
 * (an operator's refund at the provider, a chargeback) can come before. While the provider's
 * invoice names an attempt that is still open, its event is answered 503 too. Before, it was
 * answered 200 and dropped: the credits stayed, and a dispute did not turn auto top-up off.
 */
export class PaymentNotOnRecord extends Error {
  constructor() {
    super("The refunded or disputed payment is not on record yet");
    this.name = "PaymentNotOnRecord";
  }
}

/** The paid purchase a charge (or a dispute of it) belongs to, by payment intent or invoice id. */
export async function findPurchase(
  tx: Tx,
  ids: { paymentIntentId: string | null; invoiceId: string | null },
): Promise<InvoiceRow | undefined> {
  const matches: SQL[] = [];
  if (ids.paymentIntentId) matches.push(eq(invoices.paymentReference, ids.paymentIntentId));
  if (ids.invoiceId) matches.push(eq(invoices.providerInvoiceId, ids.invoiceId));
  if (matches.length === 0) return undefined;
  const [row] = await tx
    .select()
    .from(invoices)
    .where(and(or(...matches), inArray(invoices.status, ["paid", "refunded", "disputed"])))
    .limit(1);
  return row;
}

/** The organisation whose provider customer this is, and whether it was deleted; undefined: none. */
async function ownerOfCustomer(
  tx: Tx,
  customerId: string | null,
): Promise<{ id: string; deleted: boolean } | undefined> {
  if (!customerId) return undefined;
  const [row] = await tx
    .select({ id: organizations.id, deleted: organisationIsDeleted })
    .from(billingCustomers)
    .innerJoin(organizations, eq(organizations.id, billingCustomers.userId))
    .leftJoin(users, personalAccount)
    .where(eq(billingCustomers.customerId, customerId));
  return row ? { id: row.id, deleted: row.deleted === true } : undefined;
}

/** Records one adjustment; false when its provider fact was already applied. */
async function adjust(
  tx: Tx,
  p: { userId: string; grantId: string; kind: AdjustmentKind; amount: number; reference: string },
  now: Date,
): Promise<boolean> {
  const inserted = await tx
    .insert(creditAdjustments)
    .values({ id: randomUUID(), ...p, createdAt: now })
    .onConflictDoNothing({ target: creditAdjustments.reference })
    .returning({ id: creditAdjustments.id });
  return inserted.length > 0;
}

async function grantOf(tx: Tx, row: InvoiceRow) {
  const [grant] = await tx
    .select()
    .from(creditGrants)
    .where(eq(creditGrants.fulfilmentKey, row.fulfilmentKey))
    .for("update");
  return grant;
}

/**
 * charge.refunded: `amountRefunded` is Stripe's cumulative amount. An event no newer than what is
 * recorded (a redelivery, or a late event of an earlier partial refund) changes nothing.
 */
export async function applyRefund(
  tx: Tx,
  row: InvoiceRow,
  p: { chargeId: string; amountRefunded: number },
  now: Date,
): Promise<{ takenBack: number } | null> {
  const grant = await grantOf(tx, row);
  const step = refundStep(row, p.amountRefunded, grant);
  if (!step) return null;
  const { takenBack } = step;
  const reference = `refund:${p.chargeId}:${p.amountRefunded}`;
  if (grant) {
    const applied = await adjust(
      tx,
      { userId: row.userId, grantId: grant.id, kind: "refund", amount: takenBack, reference },
      now,
    );
    if (!applied) return null;
    await tx
      .update(creditGrants)
      .set({
        remaining: grant.remaining - (takenBack - step.fromFrozen),
        frozen: grant.frozen - step.fromFrozen,
      })
      .where(eq(creditGrants.id, grant.id));
  }
  await tx
    .update(invoices)
    .set({ refunded: step.refundedSoFar, status: step.status, updatedAt: now })
    .where(eq(invoices.id, row.id));
  // Every refund, from the console or the provider's dashboard, issues its credit note.
  await issueCreditNote(
    tx,
    row,
    { before: row.refunded, after: step.refundedSoFar, reference, providerDocumentId: p.chargeId },
    now,
  );
  return { takenBack };
}

/**
 * charge.dispute.created freezes what is left of the purchase's credits; charge.dispute.closed gives
 * them back when the dispute is won, and takes them (and the money, in the history) when it is lost.
 * A close that arrives before its creation is applied as it says; the late creation then does nothing.
 */
export async function applyDispute(
  tx: Tx,
  row: InvoiceRow,
  p: { disputeId: string; phase: "created" | "closed"; won: boolean },
  now: Date,
  portalUrl: string,
): Promise<boolean> {
  const grant = await grantOf(tx, row);
  if (!grant) return false;
  const reference = (phase: string) => `dispute:${p.disputeId}:${phase}`;
  // A close that came first is applied as it says; the late creation then does nothing.
  if (p.phase === "created") {
    const [closed] = await tx
      .select({ id: creditAdjustments.id })
      .from(creditAdjustments)
      .where(eq(creditAdjustments.reference, reference("closed")));
    if (closed) return false;
  }
  const step = disputeStep(grant, row, p);
  const recorded = await adjust(
    tx,
    {
      userId: row.userId,
      grantId: grant.id,
      kind: step.kind,
      amount: step.amount,
      reference: reference(p.phase),
    },
    now,
  );
  if (!recorded) return false;
  await tx.update(creditGrants).set(step.grant).where(eq(creditGrants.id, grant.id));
  await tx
    .update(invoices)
    .set({ ...step.payment, updatedAt: now })
    .where(eq(invoices.id, row.id));
  // Last in the transaction: the hold's audit entry takes the chain's lock until the commit.
  if (step.kind === "dispute_lost") await holdAfterLostDispute(tx, row, grant, p.disputeId, now, portalUrl);
  return true;
}

/**
 * A payment not on record that is an auto top-up's (the provider's invoice names its attempt,
 * metadata.auto_top_up_attempt_id) whose attempt is open: the transaction settling it (the charge's
 * answer, the sweep, the invoice's event) holds the organisation's lock until it commits. Waits for
 * the lock and looks again: the record then found, or `onItsWay` when the attempt is still open (the
 * sweep settles it within minutes). Any other payment: neither.
 */
async function awaitAutoTopUpRecord(
  tx: Tx,
  ids: { paymentIntentId: string | null; invoiceId: string },
  provider: Pick<PaymentProvider, "autoTopUpAttemptOfInvoice">,
): Promise<{ found: InvoiceRow | undefined; onItsWay: boolean }> {
  const attemptId = await provider.autoTopUpAttemptOfInvoice(tx, ids.invoiceId);
  const openAttempt = async () => {
    const attempt = attemptId ? await findAttempt(tx, attemptId) : undefined;
    return attempt && (OPEN_ATTEMPT_STATUSES as readonly string[]).includes(attempt.status) ? attempt : null;
  };
  const open = await openAttempt();
  if (!open || !(await lockUser(tx, open.orgId))) return { found: undefined, onItsWay: false };
  const found = await findPurchase(tx, ids);
  return { found, onItsWay: !found && (await openAttempt()) !== null };
}

/**
 * A refund or a dispute of a payment: found by its payment intent (or, before API version
 * 2025-03-31, the charge's invoice; else the provider says which invoice it paid), then applied
 * under the user's lock. A payment we cannot find is logged for an operator and not recorded, so
 * a redelivery after the fix is processed; a second subscription's refund that billing asked for,
 * or a refund or dispute of an auto top-up whose attempt is still open, of a payment not on record
 * yet, throws PaymentNotOnRecord, for the provider to deliver it again.
 */
export async function reversePayment(
  tx: Tx,
  event: Extract<BillingEvent, { kind: "charge_refunded" | "dispute" }>,
  now: Date,
  deps: {
    provider: Pick<
      PaymentProvider,
      "invoiceOfPayment" | "unclaimedRefundReason" | "autoTopUpAttemptOfInvoice"
    >;
    logger: Logger;
    /** Links in the dispute hold's mail. */
    portalUrl: string;
  },
): Promise<InvoiceRow | null> {
  const { provider, logger } = deps;
  const invoiceId = event.kind === "charge_refunded" ? event.invoiceId : null;
  let ids = { paymentIntentId: event.paymentIntentId, invoiceId };
  let found = await findPurchase(tx, ids);
  if (!found && event.paymentIntentId) {
    const ofProvider = await provider.invoiceOfPayment(tx, event.paymentIntentId);
    found = await findPurchase(tx, { paymentIntentId: null, invoiceId: ofProvider });
    ids = { paymentIntentId: event.paymentIntentId, invoiceId: ofProvider ?? invoiceId };
  }
  let owner: { id: string; deleted: boolean } | undefined;
  if (!found) {
    // A dispute names no customer; it is never billing's own doing, so no transaction of ours races it.
    const customerId = event.kind === "charge_refunded" ? event.customerId : null;
    owner = await ownerOfCustomer(tx, customerId);
    // A payment whose record is still being written: billing refunds a second subscription's
    // payment while it records it (subscription-changes.ts), and the provider's charge.refunded
    // can arrive before that transaction commits. It holds the organisation's lock until then:
    // wait for the lock, and look again.
    if (owner && (await lockUser(tx, owner.id))) found = await findPurchase(tx, ids);
    // Read after the wait: a deletion may have held the lock before us.
    if (!found && owner) owner = await ownerOfCustomer(tx, customerId);
    if (!found && owner?.deleted) {
      // The refund billing made of a payment that arrived for a deleted organisation (webhooks.ts):
      // it granted nothing, so nothing is taken back.
      logger.info(
        { eventId: event.eventId, chargeId: event.chargeId, customerId },
        "Refund of a payment for a deleted organisation: nothing to take back",
      );
      return null;
    }
  }
  if (
    !found &&
    owner &&
    event.kind === "charge_refunded" &&
    (await provider.unclaimedRefundReason(tx, event.chargeId)) === SECOND_SUBSCRIPTION_REFUND_REASON
  ) {
    logger.error(
      { eventId: event.eventId, chargeId: event.chargeId, customerId: event.customerId, orgId: owner.id },
      "A second subscription's refund arrived before its payment's record: answered 503, the provider sends it again",
    );
    throw new PaymentNotOnRecord();
  }
  if (!found && ids.invoiceId) {
    const autoTopUp = await awaitAutoTopUpRecord(tx, { ...ids, invoiceId: ids.invoiceId }, provider);
    found = autoTopUp.found;
    if (autoTopUp.onItsWay) {
      logger.warn(
        { eventId: event.eventId, type: event.eventType, invoiceId: ids.invoiceId },
        "A refund or dispute of an auto top-up arrived before its payment's record: answered 503, the provider sends it again",
      );
      throw new PaymentNotOnRecord();
    }
  }
  if (!found || !(await lockUser(tx, found.userId))) {
    logger.error(
      { eventId: event.eventId, type: event.eventType, paymentIntentId: event.paymentIntentId },
      "Billing needs attention: refund or dispute of a payment we do not know",
    );
    tx.rollback();
  }
  // First under the organisation's lock: a refund or a dispute takes credits from (or freezes) a
  // grant, and a grant can give no more than the credits open leases do not hold (decision 051).
  await endLeases(tx, { orgId: found.userId }, "credits_changed");
  // The row found, locked now that its organisation is.
  const [row] = (await tx.select().from(invoices).where(eq(invoices.id, found.id)).for("update")) as [
    InvoiceRow,
  ];
  if (event.kind === "charge_refunded") {
    const applied = await applyRefund(tx, row, event, now);
    logger.info({ userId: row.userId, invoiceId: row.id, applied }, "Refund");
    return row;
  }
  const outcome = closedDisputeOutcome(event.status);
  if (event.phase === "closed" && outcome === "unknown") {
    logger.error(
      { eventId: event.eventId, userId: row.userId, invoiceId: row.id, status: event.status },
      "Billing needs attention: a dispute closed with a status we do not know; its credits stay frozen",
    );
    return row;
  }
  const applied = await applyDispute(
    tx,
    row,
    { disputeId: event.disputeId, phase: event.phase, won: outcome === "won" },
    now,
    deps.portalUrl,
  );
  logger.info(
    { userId: row.userId, invoiceId: row.id, phase: event.phase, status: event.status, applied },
    "Dispute",
  );
  return row;
}
