// A user's subscription as a pure state machine. Each transition takes the current state and one
// input and returns the next state plus effects as data (credit grants to insert, calls to make at
// the payment provider); the DB/route layer persists the state and executes the effects in the
// same transaction. Nothing here reads the clock or does I/O.
//
// Two kinds of input, with different rules:
// - COMMANDS from the user (scheduleChange, cancel, and the checks before a checkout) can be
//   refused, with the contract's status and message.
// - FACTS from the provider (a subscription started, a renewal was paid or failed, the subscription
//   ended) are never refused: the money moved whether or not we like it. A fact that does not fit
//   the state is ignored or compensated (an effect), with a `note` saying why, for the log.
//
// Rules (ARCHITECTURE.md "Business rules the server owns"):
// - FREE -> active by a paid checkout. Only from FREE: one live subscription per user. A second
//   subscription that gets paid anyway (two checkouts opened side by side) is cancelled at the
//   provider and its payment refunded, and grants nothing.
// - The FIRST payment grants the tier's credits at once; a RENEWAL grants them at the next
//   midnight Europe/Berlin after the payment. Grant effects depend only on the paying event, never
//   on the state, and carry the purchase's fulfilment key; the DB inserts grants with
//   ON CONFLICT (fulfilment_key) DO NOTHING, so a purchase is granted once whichever of its events
//   arrive, how often, and in what order.
// - scheduleChange(product) means "from the end of this period, be on `product`": it replaces an
//   earlier scheduled change and withdraws a pending cancellation (the user is choosing to stay).
//   Choosing the plan one is already on withdraws whatever is pending; with nothing pending it is
//   refused as "already on that plan". Refused while past_due (cancelling is still possible).
// - cancel() sets cancel-at-period-end and drops a scheduled change (nothing to change to). The
//   plan and its credits stay until the period end, then the user is FREE and keeps unexpired
//   credits. Cancelling while past_due (the paid period is already over, the provider is retrying
//   the card) cancels at once instead, so the provider stops charging for a period we'd not serve.
// - A failed renewal makes the subscription past_due; the plan stays (the provider is retrying).
//   When the provider gives up it deletes the subscription (or marks it unpaid/canceled): FREE.
// - periodEnded(now) applies what is due at the period end on our side: a cancellation makes the
//   user FREE, a scheduled change switches the plan (its credits come with the renewal payment),
//   and an active plan with no renewal heard of RENEWAL_GRACE_MS after its end becomes FREE. It is
//   a safety net that also works before the provider's events arrive; those then find the work
//   done and change nothing (or, for a late renewal payment, reactivate the plan).
//
// Stale events: every provider fact names its subscription; facts about another subscription than
// the user's current one are ignored (a late "deleted" of an old subscription must not end a new
// one), facts about an older period than the current one never move the state backwards, and a
// payment whose period is already over when it arrives (a replay weeks late) grants (deduplicated
// by its key) but does not bring a plan back to life.

import type { Subscription as UserSubscription } from "../../contract/account.ts";
import { type TierInfo, tierForProductId } from "../../contract/catalogue.ts";
import { nextMidnightBerlin } from "./berlin-time.ts";
import { type BillingError, billingError } from "./billing-errors.ts";
import { addMonths, type NewGrant, newGrant, toMillicredits } from "./ledger.ts";

export interface FreeState {
  status: "free";
}

export interface PaidState {
  /** past_due: a renewal payment failed and the provider is retrying it. */
  status: "active" | "past_due";
  /** The provider's subscription id (sub_...). */
  subscriptionId: string;
  /** The tier product the user is on now. */
  productId: string;
  /** The last period that was paid for. While past_due its end is in the past. */
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  /**
   * True while the period is our estimate (a checkout event carries no period: we take the payment
   * time plus one month) until the first invoice brings the provider's own.
   */
  periodIsEstimate: boolean;
  cancelAtPeriodEnd: boolean;
  /** The tier product that takes over at the period end, if the user scheduled a change. */
  scheduledProductId: string | null;
}

export type SubscriptionState = FreeState | PaidState;

export const FREE: FreeState = Object.freeze({ status: "free" });

export interface Period {
  start: Date;
  end: Date;
}

export type SubscriptionEffect =
  /** Insert this grant, ignoring it if its fulfilment key is already in the ledger. */
  | { type: "grant"; grant: NewGrant }
  | { type: "provider_set_cancel_at_period_end"; subscriptionId: string; cancelAtPeriodEnd: boolean }
  /**
   * Make the provider bill `productId` from the end of its current period on (null: remove the
   * scheduled change). `effectiveAt` is our copy of that period end, for logs and the local provider.
   */
  | { type: "provider_schedule_change"; subscriptionId: string; productId: string | null; effectiveAt: Date }
  /** End the subscription at the provider now; refund its latest invoice when it was never served. */
  | { type: "provider_cancel_now"; subscriptionId: string; refundLatestInvoice: boolean }
  /** Money moved but nothing could be fulfilled automatically: log as an error and alert an operator. */
  | { type: "needs_attention"; reason: string };

export interface Transition {
  ok: true;
  state: SubscriptionState;
  effects: SubscriptionEffect[];
  /** Why nothing (or something unusual) happened; null for an ordinary transition. */
  note: string | null;
}

export interface Refused {
  ok: false;
  error: BillingError;
}

export type CommandResult = Transition | Refused;

/** Finds the tier sold under a product id. The default knows both id sets of the shared catalogue. */
export type TierLookup = (productId: string) => TierInfo | undefined;

const next = (
  state: SubscriptionState,
  effects: SubscriptionEffect[] = [],
  note: string | null = null,
): Transition => ({
  ok: true,
  state,
  effects,
  note,
});
const unchanged = (state: SubscriptionState, note: string, effects: SubscriptionEffect[] = []) =>
  next(state, effects, note);
const refuse = (code: Parameters<typeof billingError>[0]): Refused => ({
  ok: false,
  error: billingError(code),
});

function subscriptionGrant(tier: TierInfo, grantAt: Date, fulfilmentKey: string): SubscriptionEffect {
  return {
    type: "grant",
    grant: newGrant(
      "subscription",
      toMillicredits(tier.creditsPerMonth),
      grantAt,
      `${tier.name} subscription`,
      fulfilmentKey,
    ),
  };
}

// ---- commands ----

/** Before `POST /v1/create-checkout-session`: only a FREE user may start a subscription. */
export function checkoutAllowed(state: SubscriptionState): { ok: true } | Refused {
  return state.status === "free" ? { ok: true } : refuse("already_subscribed");
}

/** Before `POST /v1/create-top-up-checkout`: top-ups are for paid plans only (the FAQ's rule). */
export function topUpAllowed(state: SubscriptionState): { ok: true } | Refused {
  return state.status === "free" ? refuse("top_up_on_free_plan") : { ok: true };
}

/** `POST /v1/update-subscription {product_id}`: from the end of this period, be on `productId`. */
export function scheduleChange(
  state: SubscriptionState,
  productId: string,
  tiers: TierLookup = tierForProductId,
): CommandResult {
  if (state.status === "free") return refuse("no_paid_plan");
  if (!tiers(productId)) return refuse("product_not_found");
  // The provider is retrying an invoice for the current plan; a change now would apply at a period
  // end that has already passed, and the retried payment would switch the plan back.
  if (state.status === "past_due") return refuse("subscription_past_due");

  const target = productId === state.productId ? null : productId;
  if (target === null && state.scheduledProductId === null && !state.cancelAtPeriodEnd) {
    return refuse("already_on_plan");
  }
  if (target === state.scheduledProductId && !state.cancelAtPeriodEnd) {
    return unchanged(state, "this change is already scheduled");
  }

  const effects: SubscriptionEffect[] = [];
  // Withdraw the cancellation first: a provider may refuse to schedule changes on a subscription
  // that is set to end.
  if (state.cancelAtPeriodEnd) {
    effects.push({
      type: "provider_set_cancel_at_period_end",
      subscriptionId: state.subscriptionId,
      cancelAtPeriodEnd: false,
    });
  }
  if (target !== state.scheduledProductId) {
    effects.push({
      type: "provider_schedule_change",
      subscriptionId: state.subscriptionId,
      productId: target,
      effectiveAt: state.currentPeriodEnd,
    });
  }
  return next(
    { ...state, scheduledProductId: target, cancelAtPeriodEnd: false },
    effects,
    target === null ? "pending change withdrawn; staying on the current plan" : null,
  );
}

/** `POST /v1/cancel-subscription`: cancel at the period end (at once while past_due). */
/**
 * Staff end a subscription at once (the operator console): the plan becomes FREE now and the
 * provider cancels without refunding; a refund is an action of its own.
 */
export function cancelNow(state: SubscriptionState): CommandResult {
  if (state.status === "free") return refuse("no_paid_plan");
  return next(FREE, [
    { type: "provider_cancel_now", subscriptionId: state.subscriptionId, refundLatestInvoice: false },
  ]);
}

export function cancel(state: SubscriptionState): CommandResult {
  if (state.status === "free") return refuse("no_paid_plan");
  if (state.status === "past_due") {
    return next(FREE, [
      { type: "provider_cancel_now", subscriptionId: state.subscriptionId, refundLatestInvoice: false },
    ]);
  }
  if (state.cancelAtPeriodEnd) return unchanged(state, "already cancelled at the period end");

  const effects: SubscriptionEffect[] = [];
  if (state.scheduledProductId !== null) {
    effects.push({
      type: "provider_schedule_change",
      subscriptionId: state.subscriptionId,
      productId: null,
      effectiveAt: state.currentPeriodEnd,
    });
  }
  effects.push({
    type: "provider_set_cancel_at_period_end",
    subscriptionId: state.subscriptionId,
    cancelAtPeriodEnd: true,
  });
  return next({ ...state, cancelAtPeriodEnd: true, scheduledProductId: null }, effects);
}

// ---- facts from the provider ----

export interface StartedInput {
  subscriptionId: string;
  productId: string;
  paidAt: Date;
  /** The first period, when the event carries it (an invoice does; a checkout session does not). */
  period: Period | null;
  fulfilmentKey: string;
}

/** The first payment of a subscription (checkout.session.completed or invoice.paid subscription_create). */
export function subscriptionStarted(
  state: SubscriptionState,
  input: StartedInput,
  now: Date,
  tiers: TierLookup = tierForProductId,
): Transition {
  const tier = tiers(input.productId);
  if (!tier) {
    return unchanged(state, "paid subscription for an unknown product", [
      {
        type: "needs_attention",
        reason: `subscription ${input.subscriptionId} paid for unknown product ${input.productId}`,
      },
    ]);
  }
  if (state.status !== "free" && state.subscriptionId !== input.subscriptionId) {
    return unchanged(state, "a second subscription was paid while another is live; refunding it", [
      { type: "provider_cancel_now", subscriptionId: input.subscriptionId, refundLatestInvoice: true },
    ]);
  }

  const grant = subscriptionGrant(tier, input.paidAt, input.fulfilmentKey);
  if (state.status !== "free") {
    // The same subscription again: its other event, or a redelivery. Only an estimated period
    // learns something (the provider's own period).
    if (input.period && state.periodIsEstimate) {
      return next(
        {
          ...state,
          currentPeriodStart: input.period.start,
          currentPeriodEnd: input.period.end,
          periodIsEstimate: false,
        },
        [grant],
        "provider period replaces the estimate",
      );
    }
    return unchanged(state, "subscription already started", [grant]);
  }

  const period = input.period ?? { start: input.paidAt, end: addMonths(input.paidAt, 1) };
  if (period.end.getTime() <= now.getTime()) {
    return unchanged(state, "start of a subscription whose first period is already over (a late replay)", [
      grant,
    ]);
  }
  return next(
    {
      status: "active",
      subscriptionId: input.subscriptionId,
      productId: input.productId,
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      periodIsEstimate: input.period === null,
      cancelAtPeriodEnd: false,
      scheduledProductId: null,
    },
    [grant],
  );
}

export interface RenewalPaidInput {
  subscriptionId: string;
  /** The product the renewal invoice billed (the scheduled one, if a change took effect). */
  productId: string;
  paidAt: Date;
  /** The period the invoice pays for. */
  period: Period;
  fulfilmentKey: string;
}

/** A renewal invoice was paid (invoice.paid, billing_reason subscription_cycle). */
export function renewalPaid(
  state: SubscriptionState,
  input: RenewalPaidInput,
  now: Date,
  tiers: TierLookup = tierForProductId,
): Transition {
  const tier = tiers(input.productId);
  if (!tier) {
    return unchanged(state, "renewal paid for an unknown product", [
      {
        type: "needs_attention",
        reason: `subscription ${input.subscriptionId} renewed for unknown product ${input.productId}`,
      },
    ]);
  }
  if (state.status !== "free" && state.subscriptionId !== input.subscriptionId) {
    return unchanged(state, "another subscription renewed while this one is live; refunding it", [
      { type: "provider_cancel_now", subscriptionId: input.subscriptionId, refundLatestInvoice: true },
    ]);
  }

  const grant = subscriptionGrant(tier, nextMidnightBerlin(input.paidAt), input.fulfilmentKey);
  if (state.status === "free") {
    if (input.period.end.getTime() <= now.getTime()) {
      return unchanged(state, "renewal payment for a period that is already over (a late replay)", [grant]);
    }
    // We had ended it (our period-end safety net, or events out of order) but the provider charged
    // for a new period: the customer paid, so they get the period.
    return next(
      {
        status: "active",
        subscriptionId: input.subscriptionId,
        productId: input.productId,
        currentPeriodStart: input.period.start,
        currentPeriodEnd: input.period.end,
        periodIsEstimate: false,
        cancelAtPeriodEnd: false,
        scheduledProductId: null,
      },
      [grant],
      "renewal paid for a subscription we considered ended; reactivated",
    );
  }
  const start = input.period.start.getTime();
  const currentStart = state.currentPeriodStart.getTime();
  // A payment for the current or an earlier period changes nothing: in particular it must not
  // clear a past_due that a newer period's failure set.
  if (start <= currentStart)
    return unchanged(state, "payment for a period that is not newer than the current one", [grant]);
  return next(
    {
      ...state,
      status: "active",
      productId: input.productId,
      currentPeriodStart: input.period.start,
      currentPeriodEnd: input.period.end,
      periodIsEstimate: false,
      // The period boundary where a scheduled change applies has passed; the invoice says what
      // the provider actually billed.
      scheduledProductId: null,
    },
    [grant],
  );
}

export interface RenewalFailedInput {
  subscriptionId: string;
  /** The period the failed invoice would pay for. */
  period: Period;
}

/** A renewal payment failed (invoice.payment_failed, billing_reason subscription_cycle). */
export function renewalFailed(state: SubscriptionState, input: RenewalFailedInput): Transition {
  // Stryker disable next-line ConditionalExpression,StringLiteral: FREE has no subscriptionId, so the
  // second test alone gives the same answer; the first is there for the type of `state` below.
  if (state.status === "free" || state.subscriptionId !== input.subscriptionId) {
    return unchanged(state, "payment failure for a subscription that is not the user's current one");
  }
  if (input.period.start.getTime() <= state.currentPeriodStart.getTime()) {
    return unchanged(state, "payment failure for a period that is already paid");
  }
  if (state.status === "past_due") return unchanged(state, "already past due");
  return next({ ...state, status: "past_due" });
}

/** The subscription ended at the provider (customer.subscription.deleted: cancelled, or dunning gave up). */
export function subscriptionEnded(state: SubscriptionState, input: { subscriptionId: string }): Transition {
  // Stryker disable next-line ConditionalExpression,StringLiteral: as in renewalFailed.
  if (state.status === "free" || state.subscriptionId !== input.subscriptionId) {
    return unchanged(state, "end of a subscription that is not the user's current one");
  }
  return next(FREE);
}

/** Provider statuses after which the subscription will never bill again. */
export const TERMINAL_PROVIDER_STATUSES: readonly string[] = ["canceled", "unpaid", "incomplete_expired"];

/** A customer.subscription.updated snapshot, and whether it is newer than our last change. */
export interface ProviderSnapshot {
  subscriptionId: string;
  status: string;
  cancelAtPeriodEnd?: boolean;
  /** The product the subscription bills now (null: not in the event). */
  productId?: string | null;
  /**
   * False when the snapshot is older than the last change we know of (our own command, or a newer
   * snapshot already applied): events are not delivered in order, and copying a late one would
   * undo a newer change.
   */
  current?: boolean;
}

/**
 * Where a provider's snapshot stands against our last change of the subscription (null: none yet).
 * The provider dates its events in whole seconds (Stripe's `created`), we date our changes to the
 * millisecond: a snapshot of an earlier second is older, one of a later second newer, and one of
 * the same second may be from either side of our change. Only the provider can say which: ask it
 * for the subscription as it is now (Stripe's advice for an event that may be stale).
 */
export type SnapshotOrder = "newer" | "older" | "same_second";

export function snapshotOrder(created: Date, lastChange: Date | null): SnapshotOrder {
  if (lastChange === null) return "newer";
  const snapshotSecond = Math.floor(created.getTime() / 1000);
  const changeSecond = Math.floor(lastChange.getTime() / 1000);
  if (snapshotSecond > changeSecond) return "newer";
  if (snapshotSecond < changeSecond) return "older";
  return "same_second";
}

/**
 * customer.subscription.updated. A terminal status ends the plan (as customer.subscription.deleted
 * does). Otherwise a current snapshot of the user's subscription brings what was changed outside
 * the portal (the Stripe Dashboard, the Billing Portal): a cancellation at the period end or its
 * undoing, and a switch to another tier. Payment outcomes are not read from it: they arrive as
 * invoice events.
 */
export function providerStatusChanged(
  state: SubscriptionState,
  input: ProviderSnapshot,
  tiers: TierLookup = tierForProductId,
): Transition {
  if (TERMINAL_PROVIDER_STATUSES.includes(input.status)) return subscriptionEnded(state, input);
  if (input.current === false) return unchanged(state, "a snapshot older than our last change");
  // Stryker disable next-line ConditionalExpression,StringLiteral: as in renewalFailed.
  if (state.status === "free" || state.subscriptionId !== input.subscriptionId)
    return unchanged(state, `provider status ${input.status}: nothing to do`);
  let after: PaidState = state;
  if (input.cancelAtPeriodEnd !== undefined && input.cancelAtPeriodEnd !== state.cancelAtPeriodEnd) {
    after = { ...after, cancelAtPeriodEnd: input.cancelAtPeriodEnd };
  }
  const product = input.productId ?? null;
  if (product !== null && product !== state.productId && tiers(product)) {
    after = {
      ...after,
      productId: product,
      scheduledProductId: after.scheduledProductId === product ? null : after.scheduledProductId,
    };
  }
  if (after === state) return unchanged(state, `provider status ${input.status}: nothing to do`);
  return next(after, [], "changed at the provider");
}

/**
 * How long after its period end an active subscription waits for a renewal payment before we stop
 * serving it. A provider bills within about an hour of the period end; this only fires when the
 * renewal's events never reach us (an outage longer than the provider's retry window, or an end
 * event processed before a late start). A renewal payment arriving later reactivates the plan.
 * past_due is left to the provider, whose dunning can legitimately take weeks.
 */
export const RENEWAL_GRACE_MS = 3 * 86_400_000;

/** Applies what is due at the period end on our side (see the rules above). Idempotent. */
export function periodEnded(state: SubscriptionState, now: Date): Transition {
  if (state.status === "free") return unchanged(state, "no paid plan");
  const end = state.currentPeriodEnd.getTime();
  if (now.getTime() < end) return unchanged(state, "period not over yet");
  if (state.cancelAtPeriodEnd) return next(FREE);
  if (state.status === "active" && now.getTime() >= end + RENEWAL_GRACE_MS) {
    return next(FREE, [], "no renewal payment heard of within the grace period");
  }
  if (state.scheduledProductId !== null) {
    return next({ ...state, productId: state.scheduledProductId, scheduledProductId: null });
  }
  return unchanged(state, "period over; waiting for the renewal payment");
}

// ---- views ----

/** The `subscription` object of the contract's User. */
export function toUserSubscription(
  state: SubscriptionState,
  tiers: TierLookup = tierForProductId,
): UserSubscription {
  if (state.status === "free") {
    return {
      plan: "FREE",
      product_id: null,
      status: "free",
      expires_at: null,
      cancel_at_period_end: false,
      scheduled_plan: null,
    };
  }
  const name = (productId: string) => tiers(productId)?.name ?? productId;
  return {
    plan: name(state.productId),
    product_id: state.productId,
    status: state.status,
    expires_at: state.currentPeriodEnd.toISOString(),
    cancel_at_period_end: state.cancelAtPeriodEnd,
    // Stryker disable next-line ConditionalExpression: name(null) is null too; the test is for the type.
    scheduled_plan: state.scheduledProductId === null ? null : name(state.scheduledProductId),
  };
}
