import { describe, expect, it } from "vitest";
import {
  dailyGrantLimitOf,
  fitsDailyLimit,
  grantLimitOf,
  holds,
  isStaff,
  PERMISSIONS,
} from "./permissions.ts";

describe("the permission table (OPERATIONS.md, Roles)", () => {
  it.each([
    ["viewCustomers", true, true],
    ["sendCustomerMail", true, true],
    ["grantCredits", true, true],
    ["revokeApiKey", true, true],
    ["takeBackCredits", false, true],
    ["refundPayment", false, true],
    ["cancelSubscription", false, true],
    ["disableAccount", false, true],
    ["clearDisputeHold", false, true],
    ["changeRole", false, true],
    ["viewAuditLog", false, true],
    ["viewReports", false, true],
  ] as const)("%s: support %s, admin %s, a customer never", (permission, support, admin) => {
    expect(holds("support", permission)).toBe(support);
    expect(holds("admin", permission)).toBe(admin);
    expect(holds("user", permission)).toBe(false);
  });

  it("names every permission in the table above", () => {
    expect(Object.keys(PERMISSIONS)).toHaveLength(12);
  });

  it("knows staff from customers", () => {
    expect([isStaff("user"), isStaff("support"), isStaff("admin")]).toEqual([false, true, true]);
  });

  it("caps support's grants at the limit, and admins' not at all", () => {
    expect(grantLimitOf("support", 500)).toBe(500);
    expect(grantLimitOf("user", 500)).toBe(500);
    expect(grantLimitOf("admin", 500)).toBeNull();
  });

  it("caps support's grants a day at the daily limit, and admins' not at all", () => {
    expect(dailyGrantLimitOf("support", 2_000)).toBe(2_000);
    expect(dailyGrantLimitOf("user", 2_000)).toBe(2_000);
    expect(dailyGrantLimitOf("admin", 2_000)).toBeNull();
  });

  it.each([
    [0, 2_000, true, 2_000],
    [1_500, 500, true, 500],
    [1_500, 501, false, 500],
    [2_000, 1, false, 0],
    // More granted than the limit (it was lowered during the day): nothing is left, never less.
    [2_500, 1, false, 0],
  ])("with %d granted today, a grant of %d fits: %s (%d left)", (grantedToday, amount, fits, left) => {
    expect(fitsDailyLimit(2_000, grantedToday, amount)).toEqual({ fits, left });
  });
});
