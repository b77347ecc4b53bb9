// What the /v1/admin routes are built from, and what every one of them shares: the staff check
// (401 without a token, 403 with the reason for a role the permission table does not allow) and
// the acting staff member as the audit log names them.
import type { Context, MiddlewareHandler } from "hono";
import { ADMIN_TEXT } from "../../../contract/admin.ts";
import type { Catalogue } from "../../billing/ports/payment-provider.ts";
import type { Billing } from "../../billing/service.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { refuseStaffWithoutTwoFactors } from "../../http/auth-guard.ts";
import { clientIp } from "../../http/client-ip.ts";
import { ApiError } from "../../http/errors.ts";
import { BEARER_SCHEME } from "../../http/openapi.ts";
import type { Actor } from "../../operations/actor.ts";
import type { SupportGrantLimits } from "../../operations/credit-changes.ts";
import { holds, isStaff, PERMISSIONS, type Permission } from "../../operations/permissions.ts";
import type { RefundDeps } from "../../operations/refunds.ts";
import type { ApiDeps } from "../api-deps.ts";

export interface AdminDeps extends ApiDeps, Omit<RefundDeps, "db"> {
  billing: Billing;
  /** The catalogue being sold (the metrics name tiers and price the MRR from it). */
  catalogue: Pick<Catalogue, "findTier">;
  /** SUPPORT_GRANT_LIMIT and SUPPORT_GRANT_DAILY_LIMIT: what support staff may grant. */
  supportGrantLimits: SupportGrantLimits;
}

/**
 * After requireUser: staff only, only those the permission table lets do `permission`, and only
 * with a token from a sign-in with two factors.
 */
export function requirePermission(permission: Permission): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const role = c.var.user.role;
    if (!holds(role, permission)) {
      throw new ApiError(403, isStaff(role) ? ADMIN_TEXT.adminOnly : ADMIN_TEXT.staffOnly);
    }
    refuseStaffWithoutTwoFactors(c.var.claims);
    await next();
  };
}

/**
 * The OpenAPI security of an operation that needs `permission`: a bearer token, with the staff
 * roles that hold the permission as the requirement's role names (OpenAPI 3.1). The document then
 * tells customers' calls and each kind of staff call apart, as the server does.
 */
export function staffSecurity(permission: Permission): Record<string, string[]>[] {
  return [{ [BEARER_SCHEME]: [...PERMISSIONS[permission]] }];
}

export function actorOf(c: Context<AppEnv>, trustProxy: boolean): Actor {
  const user = c.var.user;
  return { id: user.id, label: user.username, role: user.role, ip: clientIp(c, trustProxy) };
}

/** The answer every action gives: what was done, and the audit entry that says so. */
export const done = (detail: string, auditId: string) => ({ detail, audit_id: auditId });
