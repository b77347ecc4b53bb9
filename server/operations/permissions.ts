// Who among the staff may do what (OPERATIONS.md, "Roles"). The server checks every /v1/admin call
// against this table; the console reads the same table to offer only what the viewer may do.
import type { Role } from "../db/schema/index.ts";

export const STAFF_ROLES = ["support", "admin"] as const satisfies readonly Role[];

/** Each operator permission and the roles that hold it. */
export const PERMISSIONS = {
  viewCustomers: STAFF_ROLES,
  sendCustomerMail: STAFF_ROLES,
  grantCredits: STAFF_ROLES,
  revokeApiKey: STAFF_ROLES,
  takeBackCredits: ["admin"],
  refundPayment: ["admin"],
  cancelSubscription: ["admin"],
  disableAccount: ["admin"],
  clearDisputeHold: ["admin"],
  changeRole: ["admin"],
  viewAuditLog: ["admin"],
  viewReports: ["admin"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function isStaff(role: Role): boolean {
  return (STAFF_ROLES as readonly Role[]).includes(role);
}

export function holds(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/**
 * The most credits (whole credits) one grant by `role` may give: support is capped at
 * SUPPORT_GRANT_LIMIT, an admin is not (null).
 */
export function grantLimitOf(role: Role, supportGrantLimit: number): number | null {
  return role === "admin" ? null : supportGrantLimit;
}

/**
 * The most credits (whole credits) `role` may grant in one Berlin day, all customers together:
 * support is capped at SUPPORT_GRANT_DAILY_LIMIT, an admin is not (null).
 */
export function dailyGrantLimitOf(role: Role, supportDailyLimit: number): number | null {
  return role === "admin" ? null : supportDailyLimit;
}

/**
 * Whether a grant of `amount` credits fits what is left of a daily limit after `grantedToday`;
 * the credits still left today either way (never below zero).
 */
export function fitsDailyLimit(
  limit: number,
  grantedToday: number,
  amount: number,
): { fits: boolean; left: number } {
  const left = Math.max(0, limit - grantedToday);
  return { fits: amount <= left, left };
}
