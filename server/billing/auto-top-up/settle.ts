// Settling an auto top-up attempt from the provider's answer: the charge's own, a read of its
// invoice, or an event, whichever comes first, in one transaction under the organisation's lock.
// Paid grants the pack once (fulfilment key `auto_top_up:<attempt id>`) with its invoice and
// receipt; authentication pauses and mails the payment link; a decline pauses with its sentence
// and its invoice is voided (it must not be paid later, beside a new attempt); an attempt the
// provider never answered for gives up after an hour, paused and mailed, never silently stuck.
// Each failure is a "failed" row of the billing history (history.ts).
import { formatMoney } from "../../../contract/money.ts";
import { appendAudit } from "../../audit/audit-log.ts";
import type { AutoTopUpAttemptRow } from "../../db/schema/index.ts";
import type { Tx } from "../../db/types.ts";
import { type ChargeResult, declineSentence, failureOutcome } from "../../domain/auto-top-up.ts";
import { addressLines } from "../../domain/billing-details.ts";
import { newGrant, toMillicredits } from "../../domain/ledger.ts";
import { autoTopUpActionMail } from "../../mail/auto-top-up-templates.ts";
import { queueBillingMail } from "../billing-mails.ts";
import { endLeases } from "../credit-leases.ts";
import { billingAccountDeleted } from "../deleted-billing-account.ts";
import { recordInvoiceDocument, recordPaidInvoice } from "../invoices.ts";
import { insertGrant, lockUser } from "../ledger-store.ts";
import { queueReceipt } from "../payment-history.ts";
import { autoTopUpKey } from "../ports/fulfilment-keys.ts";
import type { AutoTopUpChargeAnswer } from "../ports/payment-provider.ts";
import { findBillingDetails, findCustomerId } from "../subscription-store.ts";
import { type ChargeDeps, resumeIfLimitHasRoom } from "./charges.ts";
import { recordCancelledAttempt, recordChargeNotMade, recordFailedAttempt } from "./history.ts";
import { changeStatus, SYSTEM_ACTOR } from "./status.ts";
import {
  findAttempt,
  findSettings,
  markInvoiceClosed,
  organisationName,
  recordStrayInvoice,
  updateAttempt,
} from "./store.ts";

/** An invoice to void once the settling transaction has committed. */
export interface InvoiceToVoid {
  invoiceId: string;
  attemptId: string;
}

export interface Settlement {
  /** A pack was granted now: the balance moved, so the trigger is asked again. */
  granted: boolean;
  toVoid: InvoiceToVoid | null;
  /** The organisation whose `monthly_limit` pause ended now (its invoice closed): asked again. */
  resumedFor?: string | undefined;
}

const NOTHING: Settlement = { granted: false, toVoid: null };

/** What a waiting payment's row says once its invoice was voided at the provider. */
export const VOIDED_DETAIL = "Cancelled: this payment's invoice was voided, so nothing was charged.";

/** What the pause says when the payment the customer was to confirm was voided before they did. */
export const VOIDED_WHILE_WAITING_DETAIL =
  "The payment's invoice was voided before it was confirmed, so nothing was charged. Resume auto top-up under Billing to try again.";

/** A pause for `attempt`'s confirmation, whose invoice is void now: paused as declined, mailed once. */
async function endWaitForPayment(tx: Tx, deps: ChargeDeps, attempt: AutoTopUpAttemptRow, now: Date) {
  const settings = await findSettings(tx, attempt.orgId);
  if (settings?.status !== "paused" || settings.reason !== "authentication_required") return;
  await changeStatus(
    tx,
    attempt.orgId,
    { status: "paused", reason: "declined", detail: VOIDED_WHILE_WAITING_DETAIL },
    { actor: SYSTEM_ACTOR, mailKey: `${attempt.id}:voided`, billingUrl: billingUrlOf(deps) },
    now,
  );
}

/** The code and sentence of an attempt the provider never answered for (an operator looks too). */
export const GAVE_UP_CODE = "processing_error";

const billingUrlOf = (deps: Pick<ChargeDeps, "portalUrl">) => `${deps.portalUrl}/profile/billing`;

/** The attempt read again under its organisation's lock (what it is once no one else changes it). */
async function lockedAttempt(tx: Tx, attemptId: string): Promise<AutoTopUpAttemptRow | undefined> {
  const found = await findAttempt(tx, attemptId);
  if (!found || !(await lockUser(tx, found.orgId))) return undefined;
  return findAttempt(tx, attemptId);
}

/**
 * Settles an attempt from the provider's answer (the charge's own, a read, or an event's), in `tx`
 * under the organisation's lock. Paid always grants, whatever became of the attempt meanwhile:
 * money taken is credits given. Answers whether a pack was granted now, and whether the invoice
 * closing ended a `monthly_limit` pause (resumeIfLimitHasRoom).
 */
export async function settleInTx(
  tx: Tx,
  deps: ChargeDeps,
  attemptId: string,
  answer: AutoTopUpChargeAnswer,
  eventId: string | null,
  now: Date,
): Promise<Settlement> {
  const attempt = await lockedAttempt(tx, attemptId);
  if (!attempt) return NOTHING;
  // Void or paid, nothing more can land on its invoice: a cancelled attempt stops keeping its room.
  const closed =
    (answer.status === "paid" || answer.status === "void") &&
    (await markInvoiceClosed(tx, attempt.id, answer.invoiceId, now));
  const settled = await settleLocked(tx, deps, attempt, answer, eventId, now);
  // Checked once the attempt is what the answer made it (paid, it keeps counting): the room its
  // invoice kept may now end a monthly_limit pause it caused.
  if (closed && (await resumeIfLimitHasRoom(tx, deps, attempt.orgId, now)))
    return { ...settled, resumedFor: attempt.orgId };
  return settled;
}

async function settleLocked(
  tx: Tx,
  deps: ChargeDeps,
  attempt: AutoTopUpAttemptRow,
  answer: AutoTopUpChargeAnswer,
  eventId: string | null,
  now: Date,
): Promise<Settlement> {
  if (answer.status === "paid")
    return { granted: await grantPaid(tx, deps, attempt, answer, eventId, now), toVoid: null };
  const open = attempt.status === "processing" || attempt.status === "authentication_required";
  if (!open) return NOTHING;
  if (answer.status === "void") {
    await updateAttempt(tx, attempt.id, { status: "cancelled", detail: VOIDED_DETAIL, settledAt: now }, now);
    await recordCancelledAttempt(tx, deps, attempt, VOIDED_DETAIL, now);
    // Voided while the customer was to confirm it (not by one of our stops, which cancel first: at
    // the provider's Dashboard, say): the pause that pointed to its payment page would never end,
    // so it says what happened, is mailed, and can be resumed, as when the page lapses.
    if (attempt.status === "authentication_required") await endWaitForPayment(tx, deps, attempt, now);
    return NOTHING;
  }
  if (answer.status === "open") return NOTHING;
  const result: ChargeResult =
    answer.status === "requires_action"
      ? { status: "requires_action" }
      : { status: "declined", code: answer.code };
  const outcome = failureOutcome(result);
  if (outcome.next === "grant") return NOTHING;
  const context = { actor: SYSTEM_ACTOR, mailKey: attempt.id, billingUrl: billingUrlOf(deps) };
  if (outcome.reason === "authentication_required") {
    if (attempt.status === "authentication_required") return NOTHING;
    const payUrl = answer.status === "requires_action" ? answer.payUrl : attempt.payUrl;
    await updateAttempt(
      tx,
      attempt.id,
      { status: "authentication_required", payUrl, detail: outcome.sentence },
      now,
    );
    await recordFailedAttempt(tx, deps, attempt, outcome.sentence, now);
    await changeStatus(
      tx,
      attempt.orgId,
      { status: "paused", reason: "authentication_required" },
      context,
      now,
    );
    await mailPaymentLink(tx, deps, attempt, payUrl, now);
    return NOTHING;
  }
  await updateAttempt(
    tx,
    attempt.id,
    { status: "failed", declineCode: outcome.code, detail: outcome.sentence, settledAt: now },
    now,
  );
  await recordFailedAttempt(tx, deps, attempt, outcome.sentence, now);
  await changeStatus(
    tx,
    attempt.orgId,
    { status: "paused", reason: "declined", detail: outcome.sentence, declineCode: outcome.code },
    context,
    now,
  );
  return { granted: false, toVoid: { invoiceId: answer.invoiceId, attemptId: attempt.id } };
}

/**
 * Gives up on a processing attempt the provider never answered for (unreachable for an hour, a
 * lasting refusal, a price that no longer matches): failed, paused with a sentence and mailed, so
 * that the organisation knows and the open-attempt slot is free again. Logged for an operator.
 */
export async function giveUpInTx(
  tx: Tx,
  deps: ChargeDeps,
  attemptId: string,
  now: Date,
): Promise<Settlement> {
  const attempt = await lockedAttempt(tx, attemptId);
  if (!attempt) return NOTHING;
  if (attempt.status !== "processing") return NOTHING;
  const sentence = declineSentence(GAVE_UP_CODE);
  deps.logger.error(
    { attemptId, orgId: attempt.orgId, invoiceId: attempt.providerInvoiceId },
    "Auto top-up needs attention: the provider never settled this charge; the attempt gave up",
  );
  await updateAttempt(
    tx,
    attempt.id,
    { status: "failed", declineCode: GAVE_UP_CODE, detail: sentence, settledAt: now },
    now,
  );
  await recordFailedAttempt(tx, deps, attempt, sentence, now);
  await changeStatus(
    tx,
    attempt.orgId,
    { status: "paused", reason: "declined", detail: sentence, declineCode: GAVE_UP_CODE },
    { actor: SYSTEM_ACTOR, mailKey: attempt.id, billingUrl: billingUrlOf(deps) },
    now,
  );
  return {
    granted: false,
    toVoid: attempt.providerInvoiceId
      ? { invoiceId: attempt.providerInvoiceId, attemptId: attempt.id }
      : null,
  };
}

/**
 * An attempt that ended without money (cancelled by a stop, or failed) while its invoice was being
 * made: that invoice must never be paid, so it is voided. One another run left waiting for the
 * customer, or paid, keeps its invoice.
 */
export const isStopped = (status: AutoTopUpAttemptRow["status"]): boolean =>
  status === "cancelled" || status === "failed";

/** What an attempt whose invoice came out at another total says (the customer agreed to a price). */
export const TOTAL_CHANGED_DETAIL =
  "Not charged: with the billing details on file the payment came to another amount than the one agreed to.";

/**
 * The provider made the attempt's invoice at another total than the attempt's (Stripe Tax read
 * other VAT from the customer than ours, or the details changed while the attempt waited): it is
 * not paid. Cancelled, paused for new terms (mailed), a "not_charged" row; its invoice to void.
 */
export async function refuseChangedTotalInTx(
  tx: Tx,
  deps: ChargeDeps,
  attemptId: string,
  invoice: { invoiceId: string; total: number },
  now: Date,
): Promise<Settlement> {
  const attempt = await lockedAttempt(tx, attemptId);
  if (!attempt) return NOTHING;
  const toVoid = { invoiceId: invoice.invoiceId, attemptId: attempt.id };
  // Stopped while its invoice was made: nothing is paid, and the invoice is voided all the same.
  if (isStopped(attempt.status)) {
    await recordStrayInvoice(tx, attempt.id, invoice.invoiceId, now);
    return { granted: false, toVoid };
  }
  if (attempt.status !== "processing") return NOTHING;
  deps.logger.warn(
    {
      attemptId,
      orgId: attempt.orgId,
      invoiceId: invoice.invoiceId,
      total: invoice.total,
      agreed: attempt.gross,
    },
    "Auto top-up not charged: the provider's total differs from the amount agreed to",
  );
  await updateAttempt(
    tx,
    attempt.id,
    {
      status: "cancelled",
      providerInvoiceId: invoice.invoiceId,
      detail: TOTAL_CHANGED_DETAIL,
      settledAt: now,
    },
    now,
  );
  const changed = await changeStatus(
    tx,
    attempt.orgId,
    { status: "paused", reason: "consent_changed" },
    { actor: SYSTEM_ACTOR, mailKey: attempt.id, billingUrl: billingUrlOf(deps) },
    now,
  );
  if (changed) {
    const pack = {
      productId: attempt.productId,
      credits: attempt.credits,
      unitAmount: attempt.net,
      currency: attempt.currency,
    };
    await recordChargeNotMade(tx, deps, attempt.orgId, pack, "consent_changed", attempt.id, now);
  }
  return { granted: false, toVoid };
}

async function mailPaymentLink(
  tx: Tx,
  deps: ChargeDeps,
  attempt: AutoTopUpAttemptRow,
  payUrl: string | null,
  now: Date,
): Promise<void> {
  if (!payUrl) return;
  const organisation = await organisationName(tx, attempt.orgId);
  await queueBillingMail(
    tx,
    {
      userId: attempt.orgId,
      kind: "auto_top_up_action",
      dedupeKey: `auto_top_up_action:${attempt.id}`,
      build: (user) =>
        autoTopUpActionMail(user, {
          organisation,
          amount: formatMoney(attempt.gross, attempt.currency),
          credits: new Intl.NumberFormat("en-US").format(attempt.credits),
          payUrl,
          billingUrl: billingUrlOf(deps),
        }),
    },
    now,
  );
}

/** The pack, once (its fulfilment key), with its invoice and receipt; resumes a pause for this payment. */
async function grantPaid(
  tx: Tx,
  deps: ChargeDeps,
  attempt: AutoTopUpAttemptRow,
  paid: Extract<AutoTopUpChargeAnswer, { status: "paid" }>,
  eventId: string | null,
  now: Date,
): Promise<boolean> {
  if (await refundedForDeletedOrg(tx, deps, attempt, paid, now)) return false;
  const key = autoTopUpKey(attempt.id);
  const name = deps.catalogue.findTopUp(attempt.productId)?.topUp.name ?? `${attempt.credits} credit pack`;
  if (paid.document.number !== null) await recordInvoiceDocument(tx, paid.document, now);
  const granted = await insertGrant(
    tx,
    attempt.orgId,
    newGrant("topup", toMillicredits(attempt.credits), paid.paidAt, name, key),
    { paymentReference: paid.invoiceId, eventId },
  );
  // Credits added end the organisation's leases, as every grant does (subscription-changes.ts).
  if (granted) await endLeases(tx, { orgId: attempt.orgId }, "credits_changed");
  const onFile = await findBillingDetails(tx, attempt.orgId);
  const recorded = await recordPaidInvoice(
    tx,
    {
      userId: attempt.orgId,
      fulfilmentKey: key,
      provider: attempt.provider,
      kind: "topup",
      description: `Auto top-up: ${name}`,
      paidAt: paid.paidAt,
      payment: paid.payment,
      providerInvoiceId: paid.invoiceId,
      paymentReference: paid.paymentIntentId ?? paid.invoiceId,
      buyerAddress: addressLines(onFile?.address ?? null, paid.payment.buyer.country),
    },
    deps.seller,
    now,
  );
  await queueReceipt(tx, recorded, deps.portalUrl, now);
  if (attempt.status !== "paid") {
    await updateAttempt(
      tx,
      attempt.id,
      { status: "paid", gross: Math.max(paid.payment.total, attempt.net), settledAt: now, detail: null },
      now,
    );
    await appendAudit(
      tx,
      {
        actorId: null,
        actorLabel: SYSTEM_ACTOR.label,
        action: "auto_top_up.charged",
        subjectUserId: null,
        subjectOrgId: attempt.orgId,
        reason: null,
        details: {
          attempt_id: attempt.id,
          credits: attempt.credits,
          total: paid.payment.total,
          currency: paid.payment.currency,
        },
        ip: null,
      },
      now,
    );
  }
  const settings = await findSettings(tx, attempt.orgId);
  if (settings?.status === "paused" && settings.reason === "authentication_required") {
    await changeStatus(
      tx,
      attempt.orgId,
      { status: "active" },
      { actor: SYSTEM_ACTOR, billingUrl: billingUrlOf(deps) },
      now,
    );
  }
  return granted;
}

/**
 * A charge that completed after its organisation was deleted (it was on its way when the owner
 * deleted it) is refunded, as any payment arriving for a deleted organisation (decision 030),
 * instead of granting credits nobody can spend. Once: a refunded attempt is cancelled.
 */
async function refundedForDeletedOrg(
  tx: Tx,
  deps: ChargeDeps,
  attempt: AutoTopUpAttemptRow,
  paid: Extract<AutoTopUpChargeAnswer, { status: "paid" }>,
  now: Date,
): Promise<boolean> {
  if (!(await billingAccountDeleted(tx, attempt.orgId))) return false;
  if (attempt.status === "cancelled" && attempt.detail === REFUNDED_DETAIL) return true;
  const refunded = await deps.provider.refundUnclaimedPayment(tx, {
    orgId: attempt.orgId,
    customerId: (await findCustomerId(tx, attempt.orgId)) ?? null,
    paymentIntentId: paid.paymentIntentId,
    providerInvoiceId: paid.invoiceId,
    total: paid.payment.total,
    currency: paid.payment.currency,
    reason: "auto top-up paid for a deleted organisation",
  });
  if (!refunded)
    deps.logger.error(
      { attemptId: attempt.id, invoiceId: paid.invoiceId },
      "Billing needs attention: an auto top-up paid for a deleted organisation could not be refunded",
    );
  await updateAttempt(tx, attempt.id, { status: "cancelled", detail: REFUNDED_DETAIL, settledAt: now }, now);
  return true;
}

export const REFUNDED_DETAIL = "Refunded: the organisation was deleted before this payment completed.";
