import { describe, expect, it } from "vitest";
import { FREE_SUBSCRIPTION, type User } from "../../contract/account.ts";
import { DETAIL } from "../../contract/messages.ts";
import { FREE_PLAN, formatBalance, hasPaidPlan, onDisputeHold, subscriptionOf } from "./account-view.ts";
import { DISPUTE_HOLD_TEXT } from "./dispute-hold-text.ts";
import { isoDay } from "./format-date.ts";
import { isRoleAllowed } from "./route-guard.ts";
import { scheduledChange } from "./scheduled-change.ts";
import { SITE } from "./site.ts";

const user = (subscription: User["subscription"]): User => ({
  id: "u",
  username: "ada",
  email: "a@example.com",
  role: "user",
  email_verified: true,
  credit_balance: 5000,
  subscription,
});
const paid = {
  ...FREE_SUBSCRIPTION,
  plan: "Tier B",
  product_id: "prod_test_tier_b",
  status: "active",
  expires_at: "2026-12-22T10:00:00Z",
};

describe("account view", () => {
  it("repeats the contract's FREE subscription exactly", () => {
    expect(FREE_PLAN).toEqual(FREE_SUBSCRIPTION);
  });

  it("reads a missing or null subscription as FREE", () => {
    expect(subscriptionOf(user(undefined)).plan).toBe("FREE");
    expect(subscriptionOf(user(null)).plan).toBe("FREE");
    expect(hasPaidPlan(user(null))).toBe(false);
    expect(hasPaidPlan(user(paid))).toBe(true);
    expect(hasPaidPlan(null)).toBe(false);
  });

  it.each([
    [{ ...paid }, null],
    [{ ...paid, scheduled_plan: "Tier C" }, "Changes to Tier C on 2026-12-22."],
    [
      { ...paid, cancel_at_period_end: true },
      "Your subscription ends on 2026-12-22; you keep your unexpired credits.",
    ],
  ])("says what is scheduled: %j", (subscription, text) => {
    expect(scheduledChange(subscription)).toBe(text);
  });

  it.each([
    [5000, "5,000"],
    [12.5, "12.5"],
    [0, "0"],
    // Never rounded up to more than the account holds.
    [863.259, "863.259"],
    [1863.001, "1,863.001"],
  ])("formats the balance %d as %s", (n, text) => {
    expect(formatBalance(n)).toBe(text);
  });

  it.each([
    ["2026-12-22T10:00:00Z", "2026-12-22"],
    // The Berlin day, as the mails give it: 23:59:59 UTC is already the next day there.
    ["2026-01-05T22:59:59.000Z", "2026-01-05"],
    ["2026-01-05T23:59:59.000Z", "2026-01-06"],
    [null, null],
    ["not a date", null],
  ])("shows the plan end %j as %j", (value, day) => {
    expect(isoDay(value)).toBe(day);
  });
});

describe("route guard rule", () => {
  it.each([
    ["user", undefined, true],
    ["admin", undefined, true],
    [undefined, undefined, false],
    ["", undefined, false],
    ["user", ["admin"], false],
    ["admin", ["admin"], true],
  ] as const)("role %j with allowed %j -> %s", (role, allowed, ok) => {
    expect(isRoleAllowed(role, allowed)).toBe(ok);
  });
});

describe("onDisputeHold", () => {
  const base = user(FREE_SUBSCRIPTION);
  it("is true only when the answer says the organisation is held", () => {
    expect(onDisputeHold({ ...base, dispute_hold: true })).toBe(true);
    expect(onDisputeHold({ ...base, dispute_hold: false })).toBe(false);
  });
  it("reads an answer without the field (another provider) and no user as not held", () => {
    expect(onDisputeHold(base)).toBe(false);
    expect(onDisputeHold(null)).toBe(false);
  });
});

describe("the dispute-hold alert's words", () => {
  it("start with the API's 402 detail and name the refusal", () => {
    expect(DISPUTE_HOLD_TEXT.title).toBe(DETAIL.paymentDisputed);
    expect(DISPUTE_HOLD_TEXT.refused(false)).toBe(
      "API calls with your keys are refused until support clears the hold.",
    );
    expect(DISPUTE_HOLD_TEXT.refused(true)).toContain("this organisation's keys");
    expect(DISPUTE_HOLD_TEXT.promise).toBe(`: ${SITE.supportPromise}.`);
  });
  it("tell Billing's reader that paying works but lifts nothing", () => {
    expect(DISPUTE_HOLD_TEXT.paying).toMatch(
      /^Payments still go through: .* only once the hold is cleared\./,
    );
    expect(DISPUTE_HOLD_TEXT.paying).toContain(
      "Auto top-up charges nothing, and cannot be turned on, while the hold lasts.",
    );
  });
});
