// The console's organisation calls (ORGANISATIONS.md, "The operator console"): find organisations,
// see one "as for a customer" (its account, ledger, payments, usage, audit trail and members), the
// organisations of a customer, and the actions: credits, cancelling the subscription, disabling,
// clearing a dispute hold, and making a member an owner. The customer calls' roles, reasons and
// idempotency keys (customer-routes.ts, action-routes.ts); the organisation's id is its billing
// account, so the customer views read it as they read a customer's.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type * as z from "zod/mini";
import {
  ADMIN_TEXT,
  actionResultSchema,
  adminLedgerSchema,
  adminPaymentListSchema,
  auditPageSchema,
  cancelSubscriptionRequestSchema,
  creditChangeRequestSchema,
  creditChangeResultSchema,
  grantLimitRefusalSchema,
  reasonRequestSchema,
  takeBackRefusalSchema,
} from "../../../contract/admin.ts";
import {
  ADMIN_ORG_TEXT,
  adminOrgMemberListSchema,
  adminOrgSchema,
  adminOrgSearchSchema,
  customerOrgListSchema,
  makeOwnerRequestSchema,
} from "../../../contract/admin-orgs.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { usageSchema } from "../../../contract/usage.ts";
import { canonicalUuid, findUserById } from "../../accounts/users.ts";
import { listAudit } from "../../audit/audit-query.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, requireUser } from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  PATH_IDS,
  pathParameter,
  type RefusalWithFields,
  schemaRef,
  withFields,
} from "../../http/openapi.ts";
import { pathId } from "../../http/path-id.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { Actor } from "../../operations/actor.ts";
import { customerLedger } from "../../operations/customer-views.ts";
import { orgActions, orgCreditSubject } from "../../operations/org-actions.ts";
import {
  customerOrgs,
  findOrganisation,
  orgMembers,
  orgOverview,
  searchOrgs,
} from "../../operations/org-console.ts";
import type { Permission } from "../../operations/permissions.ts";
import { paymentsWithProviderIds } from "../../operations/provider-ids.ts";
import { USAGE_PARAMETERS, usageAnswer } from "../usage/routes.ts";
import { type AdminDeps, actorOf, done, requirePermission, staffSecurity } from "./admin-deps.ts";
import { answerCreditChange } from "./credit-change-answer.ts";

const cursorParameter = {
  name: "cursor",
  in: "query" as const,
  required: false,
  description: "The `next_cursor` of the previous page",
  schema: { type: "string" as const, maxLength: 200 },
};

const orgIdParameter = pathParameter(
  "id",
  "The organisation's id (a personal one's is its user's)",
  PATH_IDS.uuid,
);

interface OrgActionSpec<S extends z.ZodMiniType> {
  path: string;
  operationId: string;
  summary: string;
  permission: Permission;
  request: { name: string; schema: S };
  /** Besides 401, 403, 404, 422 and 429, which every action has. */
  errors: Record<number, string | RefusalWithFields>;
  success?: { status: 200 | 201; description: string; name: string; schema: z.ZodMiniType };
  handle: (c: Context<AppEnv>, body: z.infer<S>, actor: Actor, now: Date) => Promise<object>;
}

export function adminOrgRoutes(deps: AdminDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const tags = ["admin"];
  const actions = orgActions({ db: deps.db, billing: deps.billing, autoTopUp: deps.autoTopUp });
  const id = (c: Context<AppEnv>) => pathId(c, "id", "uuid");

  // --- Reads: support staff and admins ---
  const guard = [requireUser(deps), requirePermission("viewCustomers")] as const;
  const security = staffSecurity("viewCustomers");
  const readErrors = (extra: Record<number, string> = {}) =>
    errorResponses(registry, {
      401: "No valid access token",
      403: "Not support staff or an admin",
      ...extra,
    });
  const notFound = { 404: ORG_DETAIL.notFound };

  /** The organisation's id from the path, if it exists (deleted ones too); 404 otherwise. */
  async function existing(c: Context<AppEnv>): Promise<string> {
    const org = await findOrganisation(deps.db, id(c));
    if (!org) throw new ApiError(404, ORG_DETAIL.notFound);
    return org.id;
  }

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/orgs",
      operationId: "adminSearchOrgs",
      tags,
      summary:
        "Find organisations by name prefix, organisation id, API key prefix, invoice number or customer id",
      security,
      parameters: [
        {
          name: "q",
          in: "query",
          required: false,
          description:
            "A name prefix (any case), an organisation id, an API key or its start (gpk_…), an invoice number (INV-…) or a provider customer id (cus_…). Empty: the newest organisations.",
          schema: { type: "string", maxLength: 200 },
        },
      ],
      responses: {
        200: {
          description: "At most fifty organisations, newest first",
          content: jsonContent(schemaRef(registry, "AdminOrgSearch", adminOrgSearchSchema)),
        },
        ...readErrors(),
      },
    },
    ...guard,
    async (c) => c.json(await searchOrgs(deps.db, c.req.query("q") ?? "", deps.clock.now(), deps.tiers), 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/orgs/{id}",
      operationId: "adminGetOrg",
      tags,
      summary: "An organisation's state, owners, plan, credits, API keys and billing details",
      security,
      parameters: [orgIdParameter],
      responses: {
        200: {
          description: "The organisation (never a key secret)",
          content: jsonContent(schemaRef(registry, "AdminOrg", adminOrgSchema)),
        },
        ...readErrors(notFound),
      },
    },
    ...guard,
    async (c) => {
      const found = await orgOverview(deps.db, id(c), deps.clock.now(), deps.tiers);
      if (!found) throw new ApiError(404, ORG_DETAIL.notFound);
      return c.json(found, 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/orgs/{id}/members",
      operationId: "adminOrgMembers",
      tags,
      summary: "An organisation's members with address, role, monthly cap and this month's spend",
      security,
      parameters: [orgIdParameter],
      responses: {
        200: {
          description: "Owners first, then by username",
          content: jsonContent(schemaRef(registry, "AdminOrgMemberList", adminOrgMemberListSchema)),
        },
        ...readErrors(notFound),
      },
    },
    ...guard,
    async (c) => c.json({ data: await orgMembers(deps.db, await existing(c), deps.clock.now()) }, 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/orgs/{id}/ledger",
      operationId: "adminOrgLedger",
      tags,
      summary: "An organisation's grants, spends (per Berlin day and feature) and adjustments, newest first",
      security,
      parameters: [orgIdParameter, cursorParameter],
      responses: {
        200: {
          description: "Fifty lines a page",
          content: jsonContent(schemaRef(registry, "AdminLedger", adminLedgerSchema)),
        },
        ...readErrors(notFound),
      },
    },
    ...guard,
    async (c) =>
      c.json(await customerLedger(deps.db, await existing(c), c.req.query("cursor") || undefined), 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/orgs/{id}/payments",
      operationId: "adminOrgPayments",
      tags,
      summary:
        "An organisation's payments with VAT, refunds, disputes, credit notes and provider ids, newest first",
      security,
      parameters: [orgIdParameter],
      responses: {
        200: {
          description: "The payments",
          content: jsonContent(schemaRef(registry, "AdminPaymentList", adminPaymentListSchema)),
        },
        ...readErrors(notFound),
      },
    },
    ...guard,
    async (c) => c.json({ data: await paymentsWithProviderIds(deps.db, await existing(c)) }, 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/orgs/{id}/usage",
      operationId: "adminOrgUsage",
      tags,
      summary: "An organisation's usage, as GET /v1/usage answers its owners (group_by=member included)",
      security,
      parameters: [orgIdParameter, ...USAGE_PARAMETERS],
      responses: {
        200: {
          description: "The groups and the range's total",
          content: jsonContent(schemaRef(registry, "Usage", usageSchema)),
        },
        ...readErrors({ ...notFound, 422: "A wrong range or group_by" }),
      },
    },
    ...guard,
    async (c) => c.json(await usageAnswer(c, deps, await existing(c)), 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/orgs/{id}/audit",
      operationId: "adminOrgAudit",
      tags,
      summary: "The audit entries about an organisation (subject_org_id), newest first",
      security,
      parameters: [orgIdParameter, cursorParameter],
      responses: {
        200: {
          description: "Fifty entries a page",
          content: jsonContent(schemaRef(registry, "AuditPage", auditPageSchema)),
        },
        ...readErrors(notFound),
      },
    },
    ...guard,
    async (c) => {
      const orgId = await existing(c);
      return c.json(await listAudit(deps.db, { subjectOrg: orgId }, c.req.query("cursor") || undefined), 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/customers/{id}/organizations",
      operationId: "adminCustomerOrgs",
      tags,
      summary: "The organisations a customer is a member of, with their role in each",
      security,
      parameters: [pathParameter("id", "The customer's user id", PATH_IDS.uuid)],
      responses: {
        200: {
          description: "The personal organisation first, then by name",
          content: jsonContent(schemaRef(registry, "CustomerOrgList", customerOrgListSchema)),
        },
        ...readErrors({ 404: ADMIN_TEXT.customerNotFound }),
      },
    },
    ...guard,
    async (c) => {
      const userId = id(c);
      if (!(await findUserById(deps.db, userId))) throw new ApiError(404, ADMIN_TEXT.customerNotFound);
      return c.json({ data: await customerOrgs(deps.db, userId) }, 200);
    },
  );

  // --- Actions ---
  function addAction<S extends z.ZodMiniType>(spec: OrgActionSpec<S>): void {
    const success = spec.success ?? {
      status: 200,
      description: "Done: the audit entry it wrote",
      name: "ActionResult",
      schema: actionResultSchema,
    };
    const route = {
      method: "post",
      path: spec.path,
      operationId: spec.operationId,
      tags,
      summary: spec.summary,
      security: staffSecurity(spec.permission),
      parameters: [orgIdParameter],
      request: {
        body: {
          required: true,
          content: jsonContent(schemaRef(registry, spec.request.name, spec.request.schema, "input")),
        },
      },
      responses: {
        [success.status]: {
          description: success.description,
          content: jsonContent(schemaRef(registry, success.name, success.schema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: withFields(
            `A role the permission table does not allow (the reason in detail), "${ADMIN_ORG_TEXT.notOwnOrganisation}", or support past its grant limits (GrantLimitRefusal: \`limit\`, and \`left\` for the daily one)`,
            schemaRef(registry, "GrantLimitRefusal", grantLimitRefusalSchema),
          ),
          404: ORG_DETAIL.notFound,
          422: "Invalid body: the reason (3 to 500 characters) and the action's fields",
          429: "Too many signed-in writes",
          ...spec.errors,
        }),
      },
    } satisfies RouteConfig;
    addRoute(
      app,
      route,
      requireUser(deps),
      requirePermission(spec.permission),
      limitWrites(deps.limiter),
      async (c) => {
        const body = await parseJsonBody(c, spec.request.schema);
        const answer = await spec.handle(c, body, actorOf(c, deps.trustProxy), deps.clock.now());
        return c.json(answer, success.status);
      },
    );
  }

  addAction({
    path: "/admin/orgs/{id}/credits",
    operationId: "adminChangeOrgCredits",
    summary:
      "Grant goodwill credits to an organisation (support within its limits) or take unspent credits back (admin)",
    permission: "grantCredits",
    request: { name: "CreditChangeRequest", schema: creditChangeRequestSchema },
    errors: {
      409: withFields(
        `More than the unspent credits (TakeBackRefusal: \`available\` says how many), the idempotency key used for another amount, or "${ADMIN_ORG_TEXT.orgDeleted}"`,
        schemaRef(registry, "TakeBackRefusal", takeBackRefusalSchema),
      ),
    },
    success: {
      status: 201,
      description:
        "The ledger line, the balance after it, and the audit entry (a repeated key answers the first)",
      name: "CreditChangeResult",
      schema: creditChangeResultSchema,
    },
    handle: async (c, body, actor, now) => {
      return answerCreditChange(deps, actor, orgCreditSubject(actor, id(c)), body, now);
    },
  });

  addAction({
    path: "/admin/orgs/{id}/subscription/cancel",
    operationId: "adminCancelOrgSubscription",
    summary:
      "Cancel an organisation's subscription at the period's end or now (no refund; refund separately)",
    permission: "cancelSubscription",
    request: { name: "AdminCancelRequest", schema: cancelSubscriptionRequestSchema },
    errors: {
      400: "The organisation has no paid plan",
      409: `"${ADMIN_ORG_TEXT.orgDeleted}"`,
    },
    handle: async (c, body, actor, now) => {
      const { auditId } = await actions.cancelSubscription(actor, id(c), body.at, body.reason, now);
      return done(
        body.at === "now" ? "Subscription ended" : "Subscription cancelled at the period end",
        auditId,
      );
    },
  });

  for (const disable of [true, false]) {
    addAction({
      path: `/admin/orgs/{id}/${disable ? "disable" : "enable"}`,
      operationId: disable ? "adminDisableOrg" : "adminEnableOrg",
      summary: disable
        ? "Disable an organisation: every key of it is inactive and nothing is charged to it"
        : "Enable a disabled organisation: its keys that were valid before work again",
      permission: "disableAccount",
      request: { name: "ReasonRequest", schema: reasonRequestSchema },
      errors: {
        409: `${disable ? ADMIN_ORG_TEXT.alreadyDisabled : ADMIN_ORG_TEXT.notDisabled}, or "${ADMIN_ORG_TEXT.orgDeleted}"`,
      },
      handle: async (c, body, actor, now) => {
        const act = disable ? actions.disable : actions.enable;
        const { auditId } = await act(actor, id(c), body.reason, now);
        return done(disable ? "Organisation disabled" : "Organisation enabled", auditId);
      },
    });
  }

  addAction({
    path: "/admin/orgs/{id}/dispute-hold/clear",
    operationId: "adminClearOrgDisputeHold",
    summary: "Clear an organisation's dispute hold: it can be charged again",
    permission: "clearDisputeHold",
    request: { name: "ReasonRequest", schema: reasonRequestSchema },
    errors: { 409: `${ADMIN_ORG_TEXT.noDisputeHold}, or "${ADMIN_ORG_TEXT.orgDeleted}"` },
    handle: async (c, body, actor, now) => {
      const { auditId } = await actions.clearDisputeHold(actor, id(c), body.reason, now);
      return done("Dispute hold cleared", auditId);
    },
  });

  addAction({
    path: "/admin/orgs/{id}/owner",
    operationId: "adminMakeOrgOwner",
    summary: "Make a member an owner (admin; recovery after an identity check; never oneself)",
    permission: "changeRole",
    request: { name: "MakeOwnerRequest", schema: makeOwnerRequestSchema },
    errors: {
      404: `${ORG_DETAIL.notFound}, or "${ADMIN_ORG_TEXT.memberNotFound}"`,
      409: `${ADMIN_ORG_TEXT.alreadyOwner}, "${ORG_DETAIL.personalHasNoMembers}", "${ORG_DETAIL.memberOwnerLimit(ADMIN_ORG_TEXT.thisMember)}", or "${ADMIN_ORG_TEXT.orgDeleted}"`,
    },
    handle: async (c, body, actor, now) => {
      const userId = canonicalUuid(body.user_id);
      const { auditId } = await actions.makeOwner(actor, id(c), userId, body.reason, now);
      return done("The member is now an owner", auditId);
    },
  });

  return app;
}
