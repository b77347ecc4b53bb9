import { describe, expect, it } from "vitest";
import { FREE_SUBSCRIPTION, subscriptionSchema } from "../../contract/account.ts";
import { PRODUCT_IDS } from "../../contract/product-ids.ts";
import { createCatalogue } from "../billing/catalogue.ts";
import { BILLING_ERRORS } from "./billing-errors.ts";
import { toMillicredits } from "./ledger.ts";
import {
  type CommandResult,
  cancel,
  cancelNow,
  checkoutAllowed,
  FREE,
  type PaidState,
  periodEnded,
  providerStatusChanged,
  renewalFailed,
  renewalPaid,
  type SubscriptionEffect,
  type SubscriptionState,
  scheduleChange,
  snapshotOrder,
  subscriptionEnded,
  subscriptionStarted,
  topUpAllowed,
  toUserSubscription,
} from "./subscription.ts";

const ids = PRODUCT_IDS.test;
const A = ids.tiers.A.product;
const B = ids.tiers.B.product;
const C = ids.tiers.C.product;
const E = ids.tiers.E.product;
const TOPUP = ids.topUps["500"].product;

const d = (iso: string) => new Date(iso);
// Period 1 starts 10:00 CET on Jan 10; periods follow the Berlin calendar.
const P0 = { start: d("2024-12-10T09:00:00.000Z"), end: d("2025-01-10T09:00:00.000Z") };
const P1 = { start: d("2025-01-10T09:00:00.000Z"), end: d("2025-02-10T09:00:00.000Z") };
const P2 = { start: d("2025-02-10T09:00:00.000Z"), end: d("2025-03-10T09:00:00.000Z") };
const DURING_P1 = d("2025-01-20T12:00:00.000Z");

const ACTIVE_A: PaidState = {
  status: "active",
  subscriptionId: "sub_1",
  productId: A,
  currentPeriodStart: P1.start,
  currentPeriodEnd: P1.end,
  periodIsEstimate: false,
  cancelAtPeriodEnd: false,
  scheduledProductId: null,
};
const with_ = (patch: Partial<PaidState>): PaidState => ({ ...ACTIVE_A, ...patch });
const PAST_DUE_A = with_({ status: "past_due" });

function expectRefused(
  result: CommandResult | { ok: true } | { ok: false; error: unknown },
  code: keyof typeof BILLING_ERRORS,
) {
  expect(result).toEqual({ ok: false, error: { code, ...BILLING_ERRORS[code] } });
}

function grantOf(
  credits: number,
  grantedAt: string,
  expiresAt: string,
  key: string,
  tierName: string,
): SubscriptionEffect {
  return {
    type: "grant",
    grant: {
      kind: "subscription",
      amount: toMillicredits(credits),
      grantedAt: d(grantedAt),
      expiresAt: d(expiresAt),
      source: `${tierName} subscription`,
      fulfilmentKey: key,
    },
  };
}

describe("checkoutAllowed and topUpAllowed", () => {
  it.each([
    ["FREE", FREE, true, false],
    ["active", ACTIVE_A, false, true],
    ["past_due", PAST_DUE_A, false, true],
    ["cancelled at period end (still paid until then)", with_({ cancelAtPeriodEnd: true }), false, true],
  ])("%s: checkout %s, top-up %s", (_case, state, checkout, topUp) => {
    if (checkout) expect(checkoutAllowed(state)).toEqual({ ok: true });
    else expectRefused(checkoutAllowed(state), "already_subscribed");
    if (topUp) expect(topUpAllowed(state)).toEqual({ ok: true });
    else expectRefused(topUpAllowed(state), "top_up_on_free_plan");
  });

  it("uses the contract's wording", () => {
    expect(BILLING_ERRORS.already_subscribed).toEqual({
      status: 409,
      message: "You already have an active subscription",
    });
    expect(BILLING_ERRORS.top_up_on_free_plan).toEqual({
      status: 403,
      message: "Top-ups are not available on the Free plan",
    });
  });
});

describe("scheduleChange", () => {
  const setCancel = (value: boolean): SubscriptionEffect => ({
    type: "provider_set_cancel_at_period_end",
    subscriptionId: "sub_1",
    cancelAtPeriodEnd: value,
  });
  const schedule = (productId: string | null): SubscriptionEffect => ({
    type: "provider_schedule_change",
    subscriptionId: "sub_1",
    productId,
    effectiveAt: P1.end,
  });

  it.each([
    ["FREE has no plan to change", FREE, B, "no_paid_plan"],
    ["an unknown product", ACTIVE_A, "prod_nope", "product_not_found"],
    ["a top-up is not a plan", ACTIVE_A, TOPUP, "product_not_found"],
    ["the current plan with nothing pending", ACTIVE_A, A, "already_on_plan"],
    ["a change while the renewal payment is failing", PAST_DUE_A, B, "subscription_past_due"],
  ] as const)("refuses %s", (_case, state, productId, code) => {
    expectRefused(scheduleChange(state, productId), code);
  });

  it.each([
    ["A -> B schedules B for the period end", ACTIVE_A, B, { scheduledProductId: B }, [schedule(B)]],
    [
      "a new choice replaces the scheduled one",
      with_({ scheduledProductId: B }),
      C,
      { scheduledProductId: C },
      [schedule(C)],
    ],
    [
      "choosing the current plan withdraws a scheduled change",
      with_({ scheduledProductId: B }),
      A,
      { scheduledProductId: null },
      [schedule(null)],
    ],
    [
      "a change after a cancel withdraws the cancellation",
      with_({ cancelAtPeriodEnd: true }),
      B,
      { scheduledProductId: B, cancelAtPeriodEnd: false },
      [setCancel(false), schedule(B)],
    ],
    [
      "choosing the current plan after a cancel just withdraws the cancellation",
      with_({ cancelAtPeriodEnd: true }),
      A,
      { cancelAtPeriodEnd: false },
      [setCancel(false)],
    ],
    ["an upgrade to the top tier", ACTIVE_A, E, { scheduledProductId: E }, [schedule(E)]],
  ])("%s", (_case, state, productId, patch, effects) => {
    const result = scheduleChange(state, productId);
    expect(result).toMatchObject({ ok: true, effects });
    if (result.ok) expect(result.state).toEqual({ ...state, ...patch });
  });

  it.each([
    [
      "withdrawing a scheduled change says so",
      with_({ scheduledProductId: B }),
      A,
      "pending change withdrawn; staying on the current plan",
    ],
    ["scheduling a change has no note", ACTIVE_A, B, null],
  ])("%s", (_case, state, productId, note) => {
    expect(scheduleChange(state, productId)).toMatchObject({ ok: true, note });
  });

  it("choosing the already scheduled plan again changes nothing and calls nobody", () => {
    const state = with_({ scheduledProductId: B });
    expect(scheduleChange(state, B)).toEqual({
      ok: true,
      state,
      effects: [],
      note: "this change is already scheduled",
    });
  });

  it("with the test catalogue's lookup, a live-set product is unknown", () => {
    const catalogue = createCatalogue();
    expectRefused(
      scheduleChange(ACTIVE_A, PRODUCT_IDS.live.tiers.B.product, (id) => catalogue.findTier(id)?.tier),
      "product_not_found",
    );
  });
});

describe("cancel", () => {
  it("refuses FREE", () => {
    expectRefused(cancel(FREE), "no_paid_plan");
  });

  it.each([
    [
      "active: cancel at the period end",
      ACTIVE_A,
      with_({ cancelAtPeriodEnd: true }),
      [{ type: "provider_set_cancel_at_period_end", subscriptionId: "sub_1", cancelAtPeriodEnd: true }],
      null,
    ],
    [
      "with a scheduled change: the change is dropped too",
      with_({ scheduledProductId: B }),
      with_({ cancelAtPeriodEnd: true, scheduledProductId: null }),
      [
        { type: "provider_schedule_change", subscriptionId: "sub_1", productId: null, effectiveAt: P1.end },
        { type: "provider_set_cancel_at_period_end", subscriptionId: "sub_1", cancelAtPeriodEnd: true },
      ],
      null,
    ],
    [
      "already cancelled: nothing more to do",
      with_({ cancelAtPeriodEnd: true }),
      with_({ cancelAtPeriodEnd: true }),
      [],
      "already cancelled at the period end",
    ],
    [
      "past_due: the paid period is over, so it ends now",
      PAST_DUE_A,
      FREE,
      [{ type: "provider_cancel_now", subscriptionId: "sub_1", refundLatestInvoice: false }],
      null,
    ],
  ] as const)("%s", (_case, state, expected, effects, note) => {
    const result = cancel(state);
    expect(result).toEqual({ ok: true, state: expected, effects, note });
  });
});

describe("cancelNow (staff, the console)", () => {
  it("refuses FREE", () => {
    expectRefused(cancelNow(FREE), "no_paid_plan");
  });

  it.each([
    ["active", ACTIVE_A],
    ["cancelled at the period end", with_({ cancelAtPeriodEnd: true })],
    ["with a scheduled change", with_({ scheduledProductId: B })],
    ["past due", PAST_DUE_A],
  ] as const)("%s: FREE now, cancelled at the provider without a refund", (_case, state) => {
    expect(cancelNow(state)).toEqual({
      ok: true,
      state: FREE,
      effects: [{ type: "provider_cancel_now", subscriptionId: "sub_1", refundLatestInvoice: false }],
      note: null,
    });
  });
});

describe("subscriptionStarted (first payment: credits at once)", () => {
  const checkout = {
    subscriptionId: "sub_1",
    productId: A,
    paidAt: P1.start,
    period: null,
    fulfilmentKey: "k1",
  };
  const invoice = { ...checkout, period: P1 };
  const firstGrant = grantOf(1000, "2025-01-10T09:00:00.000Z", "2025-02-10T09:00:00.000Z", "k1", "Tier A");
  const now = P1.start;

  it.each([
    [
      "FREE + checkout event: active on an estimated period",
      FREE,
      checkout,
      with_({ periodIsEstimate: true }),
      [firstGrant],
      null,
    ],
    ["FREE + invoice event: active on the provider's period", FREE, invoice, ACTIVE_A, [firstGrant], null],
    [
      "estimated period + the invoice: the provider's period replaces the estimate",
      with_({ periodIsEstimate: true, currentPeriodEnd: d("2025-02-10T09:00:01.000Z") }),
      invoice,
      ACTIVE_A,
      [firstGrant],
      "provider period replaces the estimate",
    ],
    [
      "provider period + the checkout event: nothing changes",
      ACTIVE_A,
      checkout,
      ACTIVE_A,
      [firstGrant],
      "subscription already started",
    ],
    ["the same event again", ACTIVE_A, invoice, ACTIVE_A, [firstGrant], "subscription already started"],
    [
      "a second subscription while one is live: refunded, nothing granted",
      ACTIVE_A,
      { ...invoice, subscriptionId: "sub_2", fulfilmentKey: "k2" },
      ACTIVE_A,
      [{ type: "provider_cancel_now", subscriptionId: "sub_2", refundLatestInvoice: true }],
      "a second subscription was paid while another is live; refunding it",
    ],
    [
      "a second subscription while past_due: refunded as well",
      PAST_DUE_A,
      { ...checkout, subscriptionId: "sub_2" },
      PAST_DUE_A,
      [{ type: "provider_cancel_now", subscriptionId: "sub_2", refundLatestInvoice: true }],
      "a second subscription was paid while another is live; refunding it",
    ],
    [
      "an unknown product: nothing granted, an operator is alerted",
      FREE,
      { ...invoice, productId: "prod_nope" },
      FREE,
      [{ type: "needs_attention", reason: "subscription sub_1 paid for unknown product prod_nope" }],
      "paid subscription for an unknown product",
    ],
  ] as const)("%s", (_case, state, input, expected, effects, note) => {
    expect(subscriptionStarted(state, input, now)).toEqual({ ok: true, state: expected, effects, note });
  });

  it("grants the tier's own amount (Tier E: 50,000 credits)", () => {
    const result = subscriptionStarted(FREE, { ...invoice, productId: E }, now);
    expect(result.effects).toEqual([
      grantOf(50_000, "2025-01-10T09:00:00.000Z", "2025-02-10T09:00:00.000Z", "k1", "Tier E"),
    ]);
  });

  it("a first period ending exactly now is over (periods are half-open); a millisecond later it is not", () => {
    const over = subscriptionStarted(FREE, invoice, P1.end);
    expect(over).toEqual({
      ok: true,
      state: FREE,
      effects: [firstGrant],
      note: "start of a subscription whose first period is already over (a late replay)",
    });
    const live = subscriptionStarted(FREE, invoice, new Date(P1.end.getTime() - 1));
    expect(live.state).toEqual(ACTIVE_A);
  });

  it("a late replay whose first period is over grants (deduplicated by key) but does not revive the plan", () => {
    const result = subscriptionStarted(FREE, invoice, d("2025-03-01T00:00:00.000Z"));
    expect(result.state).toBe(FREE);
    expect(result.effects).toEqual([firstGrant]);
  });
});

describe("renewalPaid (credits at the next Berlin midnight)", () => {
  const paidAt = d("2025-02-10T09:00:05.000Z");
  const renewal = { subscriptionId: "sub_1", productId: A, paidAt, period: P2, fulfilmentKey: "r2" };
  // 10:00:05 CET on Feb 10 -> 00:00 CET on Feb 11 = 23:00Z on Feb 10; expires a Berlin month later.
  const renewalGrant = (credits = 1000, tier = "Tier A") =>
    grantOf(credits, "2025-02-10T23:00:00.000Z", "2025-03-10T23:00:00.000Z", "r2", tier);
  const onP2 = (patch: Partial<PaidState> = {}) =>
    with_({ currentPeriodStart: P2.start, currentPeriodEnd: P2.end, ...patch });
  const now = paidAt;

  it.each([
    ["active: the next period", ACTIVE_A, renewal, onP2(), [renewalGrant()], null],
    ["past_due: the retried payment went through", PAST_DUE_A, renewal, onP2(), [renewalGrant()], null],
    [
      "a scheduled change took effect",
      with_({ scheduledProductId: B }),
      { ...renewal, productId: B },
      onP2({ productId: B }),
      [renewalGrant(5000, "Tier B")],
      null,
    ],
    [
      "the provider billed the old plan after all: the invoice wins",
      with_({ scheduledProductId: B }),
      renewal,
      onP2(),
      [renewalGrant()],
      null,
    ],
    [
      "after periodEnded already switched the plan",
      with_({ productId: B }),
      { ...renewal, productId: B },
      onP2({ productId: B }),
      [renewalGrant(5000, "Tier B")],
      null,
    ],
    [
      "a payment for the current period again does not clear past_due",
      PAST_DUE_A,
      { ...renewal, period: P1 },
      PAST_DUE_A,
      [renewalGrant()],
      "payment for a period that is not newer than the current one",
    ],
    [
      "a payment for an earlier period arriving late",
      ACTIVE_A,
      { ...renewal, period: P0 },
      ACTIVE_A,
      [renewalGrant()],
      "payment for a period that is not newer than the current one",
    ],
    [
      "FREE (we had ended it) but the provider charged: reactivated",
      FREE,
      renewal,
      onP2(),
      [renewalGrant()],
      "renewal paid for a subscription we considered ended; reactivated",
    ],
    [
      "another subscription renewing while this one is live: refunded",
      ACTIVE_A,
      { ...renewal, subscriptionId: "sub_0" },
      ACTIVE_A,
      [{ type: "provider_cancel_now", subscriptionId: "sub_0", refundLatestInvoice: true }],
      "another subscription renewed while this one is live; refunding it",
    ],
    [
      "an unknown product",
      ACTIVE_A,
      { ...renewal, productId: "prod_nope" },
      ACTIVE_A,
      [{ type: "needs_attention", reason: "subscription sub_1 renewed for unknown product prod_nope" }],
      "renewal paid for an unknown product",
    ],
  ] as const)("%s", (_case, state, input, expected, effects, note) => {
    expect(renewalPaid(state, input, now)).toEqual({ ok: true, state: expected, effects, note });
  });

  it("on FREE, a period ending exactly now is over; a millisecond before its end it is reactivated", () => {
    expect(renewalPaid(FREE, renewal, P2.end)).toEqual({
      ok: true,
      state: FREE,
      effects: [renewalGrant()],
      note: "renewal payment for a period that is already over (a late replay)",
    });
    expect(renewalPaid(FREE, renewal, new Date(P2.end.getTime() - 1)).state).toMatchObject({
      status: "active",
      currentPeriodEnd: P2.end,
    });
  });

  it("a late replay on FREE whose period is over grants but does not revive the plan", () => {
    const result = renewalPaid(FREE, renewal, d("2025-04-01T00:00:00.000Z"));
    expect(result.state).toBe(FREE);
    expect(result.effects).toEqual([renewalGrant()]);
  });

  it.each([
    ["paid late evening in summer", "2025-07-10T21:30:00.000Z", "2025-07-10T22:00:00.000Z"],
    [
      "paid exactly at Berlin midnight: the following midnight",
      "2025-07-10T22:00:00.000Z",
      "2025-07-11T22:00:00.000Z",
    ],
    ["paid on the fall-back Sunday", "2025-10-26T10:00:00.000Z", "2025-10-26T23:00:00.000Z"],
    ["paid on New Year's Eve", "2025-12-31T16:00:00.000Z", "2025-12-31T23:00:00.000Z"],
  ])("%s (%s) -> granted at %s", (_case, paid, grantedAt) => {
    const period = { start: d(paid), end: d("2026-06-01T00:00:00.000Z") };
    const result = renewalPaid(ACTIVE_A, { ...renewal, paidAt: d(paid), period }, d(paid));
    const effect = result.effects[0];
    expect(effect?.type === "grant" && effect.grant.grantedAt.toISOString()).toBe(grantedAt);
  });
});

describe("renewalFailed", () => {
  const failed = { subscriptionId: "sub_1", period: P2 };
  it.each([
    ["active -> past_due, the paid period stays", ACTIVE_A, failed, PAST_DUE_A, null],
    ["past_due stays past_due", PAST_DUE_A, failed, PAST_DUE_A, "already past due"],
    [
      "a late failure for a period that got paid since",
      with_({ currentPeriodStart: P2.start, currentPeriodEnd: P2.end }),
      failed,
      with_({ currentPeriodStart: P2.start, currentPeriodEnd: P2.end }),
      "payment failure for a period that is already paid",
    ],
    [
      "another subscription",
      ACTIVE_A,
      { ...failed, subscriptionId: "sub_0" },
      ACTIVE_A,
      "payment failure for a subscription that is not the user's current one",
    ],
    ["FREE", FREE, failed, FREE, "payment failure for a subscription that is not the user's current one"],
  ] as const)("%s", (_case, state, input, expected, note) => {
    expect(renewalFailed(state, input)).toEqual({ ok: true, state: expected, effects: [], note });
  });
});

describe("subscriptionEnded and providerStatusChanged", () => {
  const notOurs = "end of a subscription that is not the user's current one";
  it.each([
    ["active", ACTIVE_A, "sub_1", FREE, null],
    ["past_due: the provider gave up", PAST_DUE_A, "sub_1", FREE, null],
    ["cancelled at period end", with_({ cancelAtPeriodEnd: true }), "sub_1", FREE, null],
    [
      "a late end of an older subscription leaves the new one alone",
      with_({ subscriptionId: "sub_2" }),
      "sub_1",
      with_({ subscriptionId: "sub_2" }),
      notOurs,
    ],
    ["already FREE", FREE, "sub_1", FREE, notOurs],
  ])("ended: %s", (_case, state, subscriptionId, expected, note) => {
    const result = subscriptionEnded(state, { subscriptionId });
    expect(result).toEqual({ ok: true, state: expected, effects: [], note });
  });

  it.each([
    ["canceled", FREE],
    ["unpaid", FREE],
    ["incomplete_expired", FREE],
    ["active", ACTIVE_A],
    ["past_due", ACTIVE_A],
    ["trialing", ACTIVE_A],
  ])("provider status %s -> %o", (status, expected) => {
    const result = providerStatusChanged(ACTIVE_A, { subscriptionId: "sub_1", status });
    expect(result.state).toEqual(expected);
    expect(result.effects).toEqual([]);
    expect(result.note).toBe(expected === FREE ? null : `provider status ${status}: nothing to do`);
  });
});

describe("snapshotOrder: a provider's snapshot (whole seconds) against our last change (milliseconds)", () => {
  // Our change at 10:00:00.600; Stripe's `created` has no milliseconds.
  const change = new Date("2030-01-15T10:00:00.600Z");
  const at = (iso: string) => new Date(iso);

  it("is newer when there was no change of ours yet", () => {
    expect(snapshotOrder(at("2000-01-01T00:00:00Z"), null)).toBe("newer");
  });

  it("is of the same second when created in our change's second, before or after its milliseconds", () => {
    expect(snapshotOrder(at("2030-01-15T10:00:00.000Z"), change)).toBe("same_second");
    expect(snapshotOrder(at("2030-01-15T10:00:00.999Z"), change)).toBe("same_second");
    expect(snapshotOrder(at("2030-01-15T10:00:00.600Z"), change)).toBe("same_second");
  });

  it("is older from one second before, newer from one second after", () => {
    expect(snapshotOrder(at("2030-01-15T09:59:59.000Z"), change)).toBe("older");
    expect(snapshotOrder(at("2030-01-15T09:59:59.999Z"), change)).toBe("older");
    expect(snapshotOrder(at("2030-01-15T10:00:01.000Z"), change)).toBe("newer");
  });

  it("compares whole seconds of a change made on a whole second (an applied snapshot's time)", () => {
    const onTheSecond = at("2030-01-15T10:00:00.000Z");
    expect(snapshotOrder(at("2030-01-15T10:00:00.000Z"), onTheSecond)).toBe("same_second");
    expect(snapshotOrder(at("2030-01-15T09:59:59.000Z"), onTheSecond)).toBe("older");
    expect(snapshotOrder(at("2030-01-15T10:00:01.000Z"), onTheSecond)).toBe("newer");
  });
});

describe("providerStatusChanged: changes made at the provider", () => {
  const tiers = (id: string) =>
    id === "prod_b" || id === "prod_c" ? { name: id, creditsPerMonth: 1 } : undefined;
  const snapshot = (change: object) => ({ subscriptionId: "sub_1", status: "active", ...change });
  const CHANGED = "changed at the provider";
  const NOTHING = "provider status active: nothing to do";
  it.each([
    ["a cancellation", snapshot({ cancelAtPeriodEnd: true }), with_({ cancelAtPeriodEnd: true }), CHANGED],
    ["a resumption of a plan not cancelled", snapshot({ cancelAtPeriodEnd: false }), ACTIVE_A, NOTHING],
    ["a switch to a known tier", snapshot({ productId: "prod_b" }), with_({ productId: "prod_b" }), CHANGED],
    ["a switch to an unknown product", snapshot({ productId: "prod_unknown" }), ACTIVE_A, NOTHING],
    ["the product it bills already", snapshot({ productId: ACTIVE_A.productId }), ACTIVE_A, NOTHING],
    ["no product in the snapshot", snapshot({ productId: null }), ACTIVE_A, NOTHING],
    [
      "an older snapshot",
      snapshot({ cancelAtPeriodEnd: true, current: false }),
      ACTIVE_A,
      "a snapshot older than our last change",
    ],
    [
      "another subscription",
      { ...snapshot({ cancelAtPeriodEnd: true }), subscriptionId: "sub_9" },
      ACTIVE_A,
      NOTHING,
    ],
  ])("%s", (_case, input, expected, note) => {
    const result = providerStatusChanged(ACTIVE_A, input, tiers as never);
    expect(result.state).toEqual(expected);
    expect(result.effects).toEqual([]);
    expect(result.note).toBe(note);
    // Nothing to do leaves the very same state, so the caller saves nothing.
    if (note !== CHANGED) expect(result.state).toBe(ACTIVE_A);
  });

  it("the product it bills already changes nothing, though it is a known tier", () => {
    const onB = with_({ productId: "prod_b" });
    const result = providerStatusChanged(onB, snapshot({ productId: "prod_b" }), tiers as never);
    expect(result.state).toBe(onB);
    expect(result.note).toBe(NOTHING);
  });

  it("a snapshot without a product changes nothing, whatever the catalogue knows", () => {
    const anyTier = () => ({ name: "any", creditsPerMonth: 1 });
    for (const productId of [null, undefined]) {
      const result = providerStatusChanged(ACTIVE_A, snapshot({ productId }), anyTier as never);
      expect(result.state).toBe(ACTIVE_A);
      expect(result.note).toBe(NOTHING);
    }
  });

  it("a FREE user's snapshot changes nothing", () => {
    const result = providerStatusChanged(FREE, snapshot({ cancelAtPeriodEnd: true }), tiers as never);
    expect(result).toEqual({
      ok: true,
      state: FREE,
      effects: [],
      note: "provider status active: nothing to do",
    });
  });

  it("a switch to another tier than the scheduled one keeps the schedule", () => {
    const result = providerStatusChanged(
      with_({ scheduledProductId: "prod_c" }),
      snapshot({ productId: "prod_b" }),
      tiers as never,
    );
    expect(result.state).toEqual(with_({ productId: "prod_b", scheduledProductId: "prod_c" }));
  });

  it("a switch to the scheduled tier clears the schedule", () => {
    const result = providerStatusChanged(
      with_({ scheduledProductId: "prod_c" }),
      snapshot({ productId: "prod_c" }),
      tiers as never,
    );
    expect(result.state).toEqual(with_({ productId: "prod_c", scheduledProductId: null }));
  });

  it("resuming after a cancellation keeps the period", () => {
    const result = providerStatusChanged(
      with_({ cancelAtPeriodEnd: true }),
      snapshot({ cancelAtPeriodEnd: false }),
    );
    expect(result.state).toEqual(ACTIVE_A);
  });
});

describe("periodEnded", () => {
  it.each([
    ["FREE", FREE, P1.end, FREE, "no paid plan"],
    [
      "before the end",
      with_({ cancelAtPeriodEnd: true }),
      d("2025-02-10T08:59:59.999Z"),
      with_({ cancelAtPeriodEnd: true }),
      "period not over yet",
    ],
    ["cancelled, exactly at the end: FREE", with_({ cancelAtPeriodEnd: true }), P1.end, FREE, null],
    [
      "cancelled, some time after the end: FREE",
      with_({ cancelAtPeriodEnd: true }),
      d("2025-03-01T00:00:00.000Z"),
      FREE,
      null,
    ],
    [
      "a scheduled change takes over",
      with_({ scheduledProductId: B }),
      P1.end,
      with_({ productId: B }),
      null,
    ],
    [
      "past_due with a scheduled change",
      with_({ status: "past_due", scheduledProductId: C }),
      P1.end,
      with_({ status: "past_due", productId: C }),
      null,
    ],
    [
      "nothing pending: waits for the renewal",
      ACTIVE_A,
      P1.end,
      ACTIVE_A,
      "period over; waiting for the renewal payment",
    ],
    [
      "no renewal just under the grace period: still waiting",
      ACTIVE_A,
      d("2025-02-13T08:59:59.999Z"),
      ACTIVE_A,
      "period over; waiting for the renewal payment",
    ],
    [
      "no renewal three days after the end: FREE",
      ACTIVE_A,
      d("2025-02-13T09:00:00.000Z"),
      FREE,
      "no renewal payment heard of within the grace period",
    ],
    [
      "a scheduled change and no renewal for three days: FREE",
      with_({ scheduledProductId: B }),
      d("2025-02-14T00:00:00.000Z"),
      FREE,
      "no renewal payment heard of within the grace period",
    ],
    [
      "past_due is left to the provider's dunning",
      PAST_DUE_A,
      d("2025-03-01T00:00:00.000Z"),
      PAST_DUE_A,
      "period over; waiting for the renewal payment",
    ],
  ] as const)("%s", (_case, state, now, expected, note) => {
    expect(periodEnded(state, now)).toEqual({ ok: true, state: expected, effects: [], note });
  });

  it("is idempotent", () => {
    const once = periodEnded(with_({ scheduledProductId: B }), P1.end).state;
    expect(periodEnded(once, P1.end).state).toEqual(once);
  });

  it("a renewal paid after the grace period brings the plan back", () => {
    const lapsed = periodEnded(ACTIVE_A, d("2025-02-14T00:00:00.000Z")).state;
    const renewal = {
      subscriptionId: "sub_1",
      productId: A,
      paidAt: P2.start,
      period: P2,
      fulfilmentKey: "r2",
    };
    expect(renewalPaid(lapsed, renewal, d("2025-02-14T00:00:01.000Z")).state).toEqual(
      with_({ currentPeriodStart: P2.start, currentPeriodEnd: P2.end }),
    );
  });
});

describe("views", () => {
  it("FREE is the contract's FREE subscription", () => {
    expect(toUserSubscription(FREE)).toEqual(FREE_SUBSCRIPTION);
  });

  it.each([
    [
      "active with a scheduled change",
      with_({ scheduledProductId: B }),
      {
        plan: "Tier A",
        product_id: A,
        status: "active",
        expires_at: "2025-02-10T09:00:00.000Z",
        cancel_at_period_end: false,
        scheduled_plan: "Tier B",
      },
    ],
    [
      "cancelled",
      with_({ cancelAtPeriodEnd: true }),
      {
        plan: "Tier A",
        product_id: A,
        status: "active",
        expires_at: "2025-02-10T09:00:00.000Z",
        cancel_at_period_end: true,
        scheduled_plan: null,
      },
    ],
    [
      "past_due",
      with_({ status: "past_due", productId: E }),
      {
        plan: "Tier E",
        product_id: E,
        status: "past_due",
        expires_at: "2025-02-10T09:00:00.000Z",
        cancel_at_period_end: false,
        scheduled_plan: null,
      },
    ],
  ])("%s", (_case, state, expected) => {
    const view = toUserSubscription(state);
    expect(view).toEqual(expected);
    expect(subscriptionSchema.safeParse(view).success).toBe(true);
  });

  it("names a product the catalogue does not know by its id", () => {
    expect(
      toUserSubscription(with_({ productId: "prod_retired", scheduledProductId: "prod_other" })),
    ).toMatchObject({
      plan: "prod_retired",
      scheduled_plan: "prod_other",
    });
  });
});

describe("lifecycles", () => {
  type Step = (
    s: SubscriptionState,
  ) => { state: SubscriptionState; effects: SubscriptionEffect[] } | CommandResult;
  function run(steps: Step[]) {
    let state: SubscriptionState = FREE;
    const grants = new Map<string, Date>();
    for (const step of steps) {
      const result = step(state);
      if ("ok" in result && !result.ok) throw new Error(result.error.message);
      if (!("state" in result)) throw new Error("no state");
      state = result.state;
      for (const e of result.effects) {
        // What the DB does: a second grant with the same fulfilment key is ignored.
        if (e.type === "grant" && !grants.has(e.grant.fulfilmentKey))
          grants.set(e.grant.fulfilmentKey, e.grant.grantedAt);
      }
    }
    return { state, grants };
  }
  const started =
    (period: typeof P1 | null, key = "start:sub_1") =>
    (s: SubscriptionState) =>
      subscriptionStarted(
        s,
        { subscriptionId: "sub_1", productId: A, paidAt: P1.start, period, fulfilmentKey: key },
        P1.start,
      );

  it("subscribe, change plan, renew on the new plan, cancel, end FREE", () => {
    const { state, grants } = run([
      started(null),
      started(P1),
      started(null),
      (s) => scheduleChange(s, B),
      (s) => periodEnded(s, DURING_P1),
      (s) => periodEnded(s, P1.end),
      (s) =>
        renewalPaid(
          s,
          { subscriptionId: "sub_1", productId: B, paidAt: P2.start, period: P2, fulfilmentKey: "renew:p2" },
          P2.start,
        ),
      cancel,
      (s) => periodEnded(s, P2.end),
      (s) => subscriptionEnded(s, { subscriptionId: "sub_1" }),
    ]);
    expect(state).toBe(FREE);
    expect([...grants.keys()]).toEqual(["start:sub_1", "renew:p2"]);
    expect(grants.get("renew:p2")?.toISOString()).toBe("2025-02-10T23:00:00.000Z");
  });

  it("a renewal fails, is retried and fails, the provider gives up: FREE", () => {
    const failed = (s: SubscriptionState) => renewalFailed(s, { subscriptionId: "sub_1", period: P2 });
    const { state, grants } = run([
      started(P1),
      failed,
      failed,
      (s) => providerStatusChanged(s, { subscriptionId: "sub_1", status: "past_due" }),
      (s) => subscriptionEnded(s, { subscriptionId: "sub_1" }),
    ]);
    expect(state).toBe(FREE);
    expect(grants.size).toBe(1);
  });

  it("the first purchase's two events, repeated, in either order, give one grant and the same state", () => {
    const orders = [
      [started(null), started(P1)],
      [started(P1), started(null)],
      [started(P1), started(null), started(P1), started(null)],
      [started(null), started(null), started(P1)],
    ];
    const results = orders.map((steps) => run(steps));
    for (const r of results) {
      expect(r.state).toEqual(ACTIVE_A);
      expect(r.grants.size).toBe(1);
    }
  });
});
