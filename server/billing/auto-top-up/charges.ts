// An auto top-up's life (AUTO-TOP-UP.md, "The charge"): queued under the organisation's lock when
// the trigger rule says so, charged off-session by the provider, then settled from the provider's
// answer or its event, whichever comes first: paid grants the pack once (fulfilment key
// `auto_top_up:<attempt id>`) and records its invoice; authentication pauses with the payment link;
// a decline pauses with its sentence. Nothing here runs inside a spend.

import { eq } from "drizzle-orm";
import type { Logger } from "pino";
import { formatMoney } from "../../../contract/invoice-document.ts";
import { appendAudit } from "../../audit/audit-log.ts";
import type { Clock } from "../../clock.ts";
import type { AutoTopUpAttemptRow } from "../../db/schema/index.ts";
import { organizations } from "../../db/schema/index.ts";
import type { Db, Tx } from "../../db/types.ts";
import {
  type AutoTopUpPack,
  type BalanceCause,
  type ChargeResult,
  failureOutcome,
  monthlyLimitCheck,
  packGross,
  shouldQueue,
} from "../../domain/auto-top-up.ts";
import { berlinDateOf, berlinMidnightDaysAgo, startOfBerlinMonth } from "../../domain/berlin-time.ts";
import { addressLines } from "../../domain/billing-details.ts";
import { balance, newGrant, toMillicredits } from "../../domain/ledger.ts";
import type { Seller } from "../../domain/vat.ts";
import { autoTopUpActionMail } from "../../mail/auto-top-up-templates.ts";
import { queueBillingMail } from "../billing-mails.ts";
import type { Catalogue, TopUpOffer } from "../catalogue.ts";
import { recordInvoiceDocument, recordPaidInvoice } from "../invoices.ts";
import { insertGrant, lockUser, userGrants } from "../ledger-store.ts";
import { queueReceipt } from "../payment-history.ts";
import { autoTopUpKey } from "../ports/fulfilment-keys.ts";
import type { AutoTopUpCharge, AutoTopUpChargeAnswer, PaymentProvider } from "../ports/payment-provider.ts";
import { currentState } from "../subscription-changes.ts";
import { findBillingDetails, findCustomerId } from "../subscription-store.ts";
import { vatOnFile } from "./consents.ts";
import { changeStatus, SYSTEM_ACTOR } from "./status.ts";
import {
  attemptsSince,
  findAttempt,
  findCard,
  findOpenAttempt,
  findSettings,
  openAttempt,
  updateAttempt,
} from "./store.ts";

export interface ChargeDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  catalogue: Catalogue;
  provider: PaymentProvider;
  seller: Seller;
  portalUrl: string;
}

const billingUrlOf = (deps: Pick<ChargeDeps, "portalUrl">) => `${deps.portalUrl}/profile/billing`;

/** A catalogue top-up as auto top-up's rules see it. */
export const packOf = (offer: TopUpOffer): AutoTopUpPack => ({
  productId: offer.productId,
  credits: offer.topUp.tokenAmount,
  unitAmount: offer.topUp.unitAmount,
  currency: offer.topUp.currency,
});

/** One pack's gross at the organisation's VAT today (consents.ts vatOnFile, as its consent words it). */
export async function grossToday(tx: Tx | Db, pack: AutoTopUpPack, orgId: string, seller: Seller, now: Date) {
  return packGross(pack, (await vatOnFile(tx, orgId, seller.country, now)).vat);
}

/**
 * After a balance change: under the organisation's lock, opens one attempt when the trigger rule
 * says so, or pauses (daily or monthly limit, one pack above the limit) or turns off (no card, no
 * paid plan, organisation disabled). Answers the opened attempt's id, or null.
 */
export async function queueIfDue(
  deps: ChargeDeps,
  orgId: string,
  cause: BalanceCause,
): Promise<string | null> {
  return deps.db.transaction(async (tx) => {
    if (!(await lockUser(tx, orgId))) return null;
    const settings = await findSettings(tx, orgId);
    if (!settings) return null;
    const now = deps.clock.now();
    const open = await findOpenAttempt(tx, orgId);
    const thisMonth = await attemptsSince(tx, orgId, startOfBerlinMonth(now));
    const dayStart = berlinMidnightDaysAgo(now, 0);
    const decision = shouldQueue({
      status: settings.status,
      openAttempt: open !== undefined,
      balance: balance(await userGrants(tx, orgId), now),
      threshold: toMillicredits(settings.threshold),
      cause,
      attemptsToday: thisMonth.filter((a) => a.createdAt >= dayStart).length,
    });
    const context = (mailKey: string) => ({ actor: SYSTEM_ACTOR, mailKey, billingUrl: billingUrlOf(deps) });
    if (decision.action === "skip") return null;
    if (decision.action === "pause") {
      await changeStatus(
        tx,
        orgId,
        { status: "paused", reason: "daily_limit" },
        context(`${orgId}:${berlinDateOf(now)}`),
        now,
      );
      return null;
    }
    if (await stoppedForGood(tx, deps, orgId, now)) return null;
    const offer = deps.catalogue.findTopUp(settings.productId);
    const card = await findCard(tx, orgId);
    const customerId = await findCustomerId(tx, orgId);
    if (!card || !customerId) {
      await changeStatus(
        tx,
        orgId,
        { status: "off", reason: "card_removed" },
        context(`${orgId}:${settings.consentId}`),
        now,
      );
      return null;
    }
    if (!offer) {
      deps.logger.error(
        { orgId, productId: settings.productId },
        "Auto top-up needs attention: unknown pack",
      );
      return null;
    }
    const pack = packOf(offer);
    const gross = await grossToday(tx, pack, orgId, deps.seller, now);
    const limit = monthlyLimitCheck({
      limit: settings.monthlyLimit,
      packGross: gross,
      attempts: thisMonth.map((a) => ({ madeAt: a.createdAt, amount: a.gross, status: a.status })),
      now,
    });
    if (!limit.ok) {
      const change =
        limit.reason === "monthly_limit"
          ? { status: "paused" as const, reason: limit.reason, pausedUntil: limit.until }
          : { status: "paused" as const, reason: limit.reason };
      const key =
        limit.reason === "monthly_limit" ? startOfBerlinMonth(now).toISOString() : settings.consentId;
      await changeStatus(tx, orgId, change, context(`${orgId}:${key}`), now);
      return null;
    }
    return openAttempt(
      tx,
      {
        orgId,
        provider: deps.provider.kind,
        productId: pack.productId,
        credits: pack.credits,
        currency: pack.currency,
        net: pack.unitAmount,
        gross,
        paymentMethodId: card.paymentMethodId,
      },
      now,
    );
  });
}

/**
 * Turns auto top-up off when the organisation can no longer be charged: disabled, deleted or on a
 * dispute hold, or without a paid plan. Their own commands do this as they happen; this catches
 * what they could not (a previous version's instance, a missed hook), before any money moves.
 */
async function stoppedForGood(tx: Tx, deps: ChargeDeps, orgId: string, now: Date): Promise<boolean> {
  const [org] = await tx
    .select({
      disabledAt: organizations.disabledAt,
      deletedAt: organizations.deletedAt,
      disputeHoldAt: organizations.disputeHoldAt,
    })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  const { state } = await currentState(tx, orgId, now);
  const reason = org?.disputeHoldAt
    ? "dispute_hold"
    : org?.disabledAt || org?.deletedAt
      ? "organisation_disabled"
      : state.status === "free"
        ? "plan_ended"
        : null;
  if (reason === null) return false;
  const settings = await findSettings(tx, orgId);
  await changeStatus(
    tx,
    orgId,
    { status: "off", reason },
    { actor: SYSTEM_ACTOR, mailKey: `${orgId}:${settings?.consentId}`, billingUrl: billingUrlOf(deps) },
    now,
  );
  return true;
}

/** What the provider needs to charge an attempt. */
export async function chargeOf(deps: ChargeDeps, attempt: AutoTopUpAttemptRow): Promise<AutoTopUpCharge> {
  const offer = deps.catalogue.findTopUp(attempt.productId);
  const customerId = await findCustomerId(deps.db, attempt.orgId);
  if (!offer || !customerId) throw new Error(`auto top-up ${attempt.id} has no pack or customer`);
  return {
    attemptId: attempt.id,
    orgId: attempt.orgId,
    customerId,
    paymentMethodId: attempt.paymentMethodId,
    productId: attempt.productId,
    priceId: offer.priceId,
    description: `Auto top-up: ${offer.topUp.name}`,
    amount: attempt.net,
    currency: attempt.currency,
  };
}

/**
 * Settles an attempt from the provider's answer (the charge's own, a read, or an event's), in `tx`
 * under the organisation's lock. Paid always grants, whatever became of the attempt meanwhile:
 * money taken is credits given. Answers whether a pack was granted now.
 */
export async function settleInTx(
  tx: Tx,
  deps: ChargeDeps,
  attemptId: string,
  answer: AutoTopUpChargeAnswer,
  eventId: string | null,
  now: Date,
): Promise<boolean> {
  const found = await findAttempt(tx, attemptId);
  if (!found || !(await lockUser(tx, found.orgId))) return false;
  const attempt = (await findAttempt(tx, attemptId)) as AutoTopUpAttemptRow;
  if (answer.status === "paid") return grantPaid(tx, deps, attempt, answer, eventId, now);
  const open = attempt.status === "processing" || attempt.status === "authentication_required";
  if (!open) return false;
  if (answer.status === "void") {
    await updateAttempt(tx, attempt.id, { status: "cancelled", settledAt: now }, now);
    return false;
  }
  if (answer.status === "open") return false;
  const result: ChargeResult =
    answer.status === "requires_action"
      ? { status: "requires_action" }
      : { status: "declined", code: answer.code };
  const outcome = failureOutcome(result);
  if (outcome.next === "grant") return false;
  const context = { actor: SYSTEM_ACTOR, mailKey: attempt.id, billingUrl: billingUrlOf(deps) };
  if (outcome.reason === "authentication_required") {
    if (attempt.status === "authentication_required") return false;
    const payUrl = answer.status === "requires_action" ? answer.payUrl : attempt.payUrl;
    await updateAttempt(
      tx,
      attempt.id,
      { status: "authentication_required", payUrl, detail: outcome.sentence },
      now,
    );
    await changeStatus(
      tx,
      attempt.orgId,
      { status: "paused", reason: "authentication_required" },
      context,
      now,
    );
    await mailPaymentLink(tx, deps, attempt, payUrl, now);
    return false;
  }
  await updateAttempt(
    tx,
    attempt.id,
    { status: "failed", declineCode: outcome.code, detail: outcome.sentence, settledAt: now },
    now,
  );
  await changeStatus(
    tx,
    attempt.orgId,
    { status: "paused", reason: "declined", detail: outcome.sentence, declineCode: outcome.code },
    context,
    now,
  );
  return false;
}

async function mailPaymentLink(
  tx: Tx,
  deps: ChargeDeps,
  attempt: AutoTopUpAttemptRow,
  payUrl: string | null,
  now: Date,
): Promise<void> {
  if (!payUrl) return;
  const [org] = await tx
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, attempt.orgId));
  await queueBillingMail(
    tx,
    {
      userId: attempt.orgId,
      kind: "auto_top_up_action",
      dedupeKey: `auto_top_up_action:${attempt.id}`,
      build: (user) =>
        autoTopUpActionMail(user, {
          organisation: org?.name ?? "your personal account",
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
  const key = autoTopUpKey(attempt.id);
  const name = deps.catalogue.findTopUp(attempt.productId)?.topUp.name ?? `${attempt.credits} credit pack`;
  if (paid.document.number !== null) await recordInvoiceDocument(tx, paid.document, now);
  const granted = await insertGrant(
    tx,
    attempt.orgId,
    newGrant("topup", toMillicredits(attempt.credits), paid.paidAt, name, key),
    { paymentReference: paid.invoiceId, eventId },
  );
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
