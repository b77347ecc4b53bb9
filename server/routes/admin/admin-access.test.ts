// Every /v1/admin route of the OpenAPI document × anonymous, user, support and admin: 401 without
// a token, 403 with the reason for a role the permission table does not allow, and anything else
// for one it allows; a staff token from a password alone gets 403 as well (two factors needed).
// The routes are read from the document, so a new admin route is in this table the moment it is
// documented.
import { describe, expect, it } from "vitest";
import { ADMIN_TEXT } from "../../../contract/admin.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { PERMISSIONS } from "../../operations/permissions.ts";
import { adminCall, setRole, staffMember } from "../../testing/admin.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

/** The permission each documented admin operation needs (a new route must be added here). */
const PERMISSION_OF: Record<string, keyof typeof PERMISSIONS> = {
  adminSearchCustomers: "viewCustomers",
  adminGetCustomer: "viewCustomers",
  adminCustomerLedger: "viewCustomers",
  adminCustomerPayments: "viewCustomers",
  adminCustomerUsage: "viewCustomers",
  adminCustomerAudit: "viewCustomers",
  adminChangeCredits: "grantCredits",
  adminCancelSubscription: "cancelSubscription",
  adminDisableAccount: "disableAccount",
  adminEnableAccount: "disableAccount",
  adminClearDisputeHold: "clearDisputeHold",
  adminChangeRole: "changeRole",
  adminSendCustomerMail: "sendCustomerMail",
  adminRevokeApiKey: "revokeApiKey",
  adminRefundPayment: "refundPayment",
  adminAuditLog: "viewAuditLog",
  adminAuditCsv: "viewAuditLog",
  adminVatReport: "viewReports",
  adminVatReportCsv: "viewReports",
  adminMetrics: "viewReports",
  adminSearchOrgs: "viewCustomers",
  adminGetOrg: "viewCustomers",
  adminOrgMembers: "viewCustomers",
  adminOrgLedger: "viewCustomers",
  adminOrgPayments: "viewCustomers",
  adminOrgUsage: "viewCustomers",
  adminOrgAudit: "viewCustomers",
  adminCustomerOrgs: "viewCustomers",
  adminChangeOrgCredits: "grantCredits",
  adminCancelOrgSubscription: "cancelSubscription",
  adminDisableOrg: "disableAccount",
  adminEnableOrg: "disableAccount",
  adminClearOrgDisputeHold: "clearDisputeHold",
  adminMakeOrgOwner: "changeRole",
  adminOrgAutoTopUp: "viewCustomers",
  adminTurnOffOrgAutoTopUp: "cancelSubscription",
};

describe.each(TEST_DATABASES)("admin routes × roles (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("answers every documented admin route by the permission table", async () => {
    const doc = (await (await ctx.t.app.request("/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { operationId: string; security: unknown }>>;
    };
    const routes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/v1/admin"))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({
          path,
          method: method.toUpperCase(),
          id: op.operationId,
          security: op.security,
        })),
      );
    expect(routes.map((r) => r.id).sort()).toEqual(Object.keys(PERMISSION_OF).sort());
    // The document names the roles each call takes, as the server checks them below.
    for (const route of routes) {
      const roles = [...PERMISSIONS[PERMISSION_OF[route.id] as keyof typeof PERMISSIONS]];
      expect(route.security, route.id).toEqual([{ bearerAuth: roles }]);
    }

    const customer = await verifiedUser(ctx.t, "cora");
    const support = await staffMember(ctx.t, "sue", "support");
    const admin = await staffMember(ctx.t, "ada", "admin");
    const callers = { user: customer.accessToken, support: support.accessToken, admin: admin.accessToken };
    // An admin whose token comes from a password alone: two-factor sign-in is off for "pat".
    const passwordOnly = await verifiedUser(ctx.t, "pat");
    await setRole(ctx.t, passwordOnly.id, "admin");

    for (const route of routes) {
      const path = route.path.replace("{id}", customer.id);
      const send = (token: string | undefined) =>
        route.method === "GET"
          ? getJson(ctx.t.app, path, token)
          : adminCall(ctx.t, path, token, {}, route.method as "POST" | "DELETE");
      expect((await send(undefined)).status, `${route.id} anonymous`).toBe(401);
      const weak = await send(passwordOnly.accessToken);
      expect(weak.status, `${route.id} with a password alone`).toBe(403);
      expect(((await weak.json()) as { detail: string }).detail).toBe(DETAIL.staffMfaRequired);
      for (const [role, token] of Object.entries(callers)) {
        const res = await send(token);
        const allowed = (
          PERMISSIONS[PERMISSION_OF[route.id] as keyof typeof PERMISSIONS] as readonly string[]
        ).includes(role);
        if (allowed) {
          expect([401, 403], `${route.id} as ${role}: ${res.status}`).not.toContain(res.status);
        } else {
          expect(res.status, `${route.id} as ${role}`).toBe(403);
          const { detail } = (await res.json()) as { detail: string };
          expect(detail).toBe(role === "user" ? ADMIN_TEXT.staffOnly : ADMIN_TEXT.adminOnly);
        }
      }
    }
    // Five calls for each of some 35 routes: more than the default 20 s on a busy machine.
  }, 90_000);
});
