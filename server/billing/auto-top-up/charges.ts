// An auto top-up's life (AUTO-TOP-UP.md, "The charge"): queued under the organisation's lock when
// the trigger rule says so, charged off-session by the provider, then settled from the provider's
// answer or its event, whichever comes first: paid grants the pack once (fulfilment key
// `auto_top_up:<attempt id>`) and records its invoice; authentication pauses with the payment link;
// a decline pauses with its sentence. Nothing here runs inside a spend.

import { eq } from "drizzle-orm";
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { AutoTopUpAttemptRow, AutoTopUpSettingsRow } from "../../db/schema/index.ts";
import { organizations } from "../../db/schema/index.ts";
import type { Db, Tx } from "../../db/types.ts";
import { type AutoTopUpPack, type BalanceCause, packGross, shouldQueue } from "../../domain/auto-top-up.ts";
import { type LimitCheck, monthlyLimitCheck } from "../../domain/auto-top-up-limit.ts";
import { berlinMidnightDaysAgo, nextMidnightBerlin, startOfBerlinMonth } from "../../domain/berlin-time.ts";
import { balance, toMillicredits } from "../../domain/ledger.ts";
import type { Seller } from "../../domain/vat.ts";
import type { Catalogue, TopUpOffer } from "../catalogue.ts";
import { lockUser, userGrants } from "../ledger-store.ts";
import type { AutoTopUpCharge, PaymentProvider } from "../ports/payment-provider.ts";
import { currentState } from "../subscription-changes.ts";
import { findCustomerId } from "../subscription-store.ts";
import { consentStillCovers, type VatOnFile, vatOnFile } from "./consents.ts";
import { recordChargeNotMade } from "./history.ts";
import { changeStatus, type StatusChange, SYSTEM_ACTOR } from "./status.ts";
import {
  attemptsSince,
  findCard,
  findOpenAttempt,
  findSettings,
  limitAttemptOf,
  openAttempt,
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

/** One pack against this month's limit now: what the trigger charges, and what a pause's end checks. */
export interface LimitNow {
  pack: AutoTopUpPack;
  /** The VAT on file, read once: the pack's gross, the consent's terms and a held-back row use it. */
  onFile: VatOnFile;
  /** One pack's gross at that VAT, minor units. */
  gross: number;
  limit: LimitCheck;
  /**
   * The month's latest attempt (null: none yet). A monthly_limit pause is named by it: seen again
   * with no attempt made since (a member's Save or Resume while the month is still full), it is the
   * same pause, mailed and recorded once; after a new attempt, a new one.
   */
  lastAttemptId: string | null;
}

/**
 * Whether one pack fits `now`'s Berlin month under the organisation's limit (in `tx`, under its
 * lock): the pack, the VAT on file and the month's attempts read here alone, so that the trigger
 * (queueIfDue) and the end of a `monthly_limit` pause (resumeIfLimitHasRoom) can never disagree
 * about the room left.
 */
export async function limitNow(
  tx: Tx,
  deps: Pick<ChargeDeps, "seller">,
  orgId: string,
  settings: Pick<AutoTopUpSettingsRow, "monthlyLimit">,
  offer: TopUpOffer,
  now: Date,
): Promise<LimitNow> {
  const pack = packOf(offer);
  const onFile = await vatOnFile(tx, orgId, deps.seller.country, now);
  const gross = packGross(pack, onFile.vat);
  const thisMonth = await attemptsSince(tx, orgId, startOfBerlinMonth(now));
  const limit = monthlyLimitCheck({
    limit: settings.monthlyLimit,
    packGross: gross,
    attempts: thisMonth.map(limitAttemptOf),
    now,
  });
  return { pack, onFile, gross, limit, lastAttemptId: thisMonth[0]?.id ?? null };
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
    const dayStart = berlinMidnightDaysAgo(now, 0);
    const today = await attemptsSince(tx, orgId, dayStart);
    const decision = shouldQueue({
      status: settings.status,
      openAttempt: open !== undefined,
      balance: balance(await userGrants(tx, orgId), now),
      threshold: toMillicredits(settings.threshold),
      cause,
      attemptsToday: today.length,
    });
    const context = (mailKey: string) => ({ actor: SYSTEM_ACTOR, mailKey, billingUrl: billingUrlOf(deps) });
    const offer = deps.catalogue.findTopUp(settings.productId);
    // A due charge that a pause holds back: the pause (mailed once per fact) and, when it is new,
    // the charge not made in the billing history under the same fact.
    const holdBack = async (
      change: Extract<StatusChange, { status: "paused" }>,
      fact: string,
      onFile?: VatOnFile,
    ) => {
      const changed = await changeStatus(tx, orgId, change, context(`${orgId}:${fact}`), now);
      if (changed && offer)
        await recordChargeNotMade(
          tx,
          deps,
          orgId,
          packOf(offer),
          change.reason,
          `${orgId}:${fact}`,
          now,
          onFile,
        );
    };
    if (decision.action === "skip") return null;
    if (decision.action === "pause") {
      // Named by the day and its latest attempt: the member's Resume that day, with no attempt made
      // since, meets the same pause again, mailed and recorded once (a key of the pause's instant
      // mailed every owner at each click); a pause after a newer attempt is a new one.
      // It ends by itself when the Berlin day does (the sweep resumes it): no Resume before then lets
      // a charge through (decision 032, addendum on the daily limit's end).
      await holdBack(
        { status: "paused", reason: "daily_limit", pausedUntil: nextMidnightBerlin(now) },
        `${dayStart.toISOString()}:${today[0]?.id}`,
      );
      return null;
    }
    if (await stoppedForGood(tx, deps, orgId, now)) return null;
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
    // The consent covers one card: a newer one waits for the customer's consent (it normally paused
    // when it was saved; this catches what that could not see).
    if (settings.cardPaymentMethodId !== card.paymentMethodId) {
      await holdBack({ status: "paused", reason: "card_replaced" }, card.setupIntentId);
      return null;
    }
    if (!offer) {
      deps.logger.error(
        { orgId, productId: settings.productId },
        "Auto top-up needs attention: unknown pack",
      );
      return null;
    }
    const { pack, onFile, gross, limit, lastAttemptId } = await limitNow(
      tx,
      deps,
      orgId,
      settings,
      offer,
      now,
    );
    if (!limit.ok) {
      const change =
        limit.reason === "monthly_limit"
          ? { status: "paused" as const, reason: limit.reason, pausedUntil: limit.until }
          : { status: "paused" as const, reason: limit.reason };
      // A monthly_limit pause is named by the month's latest attempt (LimitNow.lastAttemptId): a
      // false one that a void lifted (decision 032, addendum) does not keep a real one after the
      // next charge from its mail and its row, and a Save or Resume while the month is still full
      // meets the same pause again, mailed once.
      const key =
        limit.reason === "monthly_limit"
          ? `${startOfBerlinMonth(now).toISOString()}:${lastAttemptId ?? "none"}`
          : String(settings.consentId);
      await holdBack(change, key, onFile);
      return null;
    }
    // The billing details may have changed the price the consent agreed to since it was given
    // (billingDetailsChanged pauses at once; this catches what it could not see).
    if (!(await consentStillCovers(tx, settings, pack, onFile))) {
      await holdBack(
        { status: "paused", reason: "consent_changed" },
        `${settings.consentId}:consent_changed`,
        onFile,
      );
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
 * Once an attempt's invoice is seen void or paid (settle.ts), in `tx` under the organisation's lock:
 * a `monthly_limit` pause ends when the month's limit, checked again by the trigger's rule, has room
 * for a pack now. A cancelled attempt's open invoice kept its room (decision 032, addendum); the
 * pause it caused must not last the month once the invoice is void and nothing was charged. Such a
 * pause needs no new consent (it ends by itself with the month; the consented terms are unchanged).
 * Whether a charge is due is the trigger's to decide: the caller asks it again. True when resumed.
 */
export async function resumeIfLimitHasRoom(
  tx: Tx,
  deps: ChargeDeps,
  orgId: string,
  now: Date,
): Promise<boolean> {
  const settings = await findSettings(tx, orgId);
  if (settings?.status !== "paused" || settings.reason !== "monthly_limit") return false;
  const offer = deps.catalogue.findTopUp(settings.productId);
  if (!offer) return false;
  const { limit } = await limitNow(tx, deps, orgId, settings, offer, now);
  if (!limit.ok) return false;
  return changeStatus(
    tx,
    orgId,
    { status: "active" },
    { actor: SYSTEM_ACTOR, billingUrl: billingUrlOf(deps) },
    now,
  );
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
