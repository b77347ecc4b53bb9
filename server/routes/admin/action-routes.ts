// The console's actions (OPERATIONS.md): credits, the subscription, disabling, the role, mails and
// API keys. Each takes a reason, is checked against the permission table, counts against the
// staff member's budget of signed-in writes, and writes its audit entry with its effect.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type * as z from "zod/mini";
import {
  ADMIN_TEXT,
  actionResultSchema,
  cancelSubscriptionRequestSchema,
  creditChangeRequestSchema,
  creditChangeResultSchema,
  customerMailRequestSchema,
  grantLimitRefusalSchema,
  reasonRequestSchema,
  refundRequestSchema,
  refundResultSchema,
  refundTooMuchSchema,
  roleChangeRequestSchema,
  takeBackRefusalSchema,
} from "../../../contract/admin.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, requireUser } from "../../http/auth-guard.ts";
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
import { accountActions } from "../../operations/account-actions.ts";
import type { Actor } from "../../operations/actor.ts";
import type { Permission } from "../../operations/permissions.ts";
import { REFUND_TEXT, refundPayment } from "../../operations/refunds.ts";
import { type AdminDeps, actorOf, done, requirePermission, staffSecurity } from "./admin-deps.ts";
import { answerCreditChange } from "./credit-change-answer.ts";

interface ActionSpec<S extends z.ZodMiniType> {
  method?: "post" | "delete";
  path: string;
  /** The path's {id}: a customer's user id unless said otherwise. */
  idDescription?: string;
  /** What kind of id the path names (a user's, a payment's: uuid; an API key's). */
  idKind?: keyof typeof PATH_IDS;
  operationId: string;
  summary: string;
  permission: Permission;
  request: { name: string; schema: S };
  /** Besides 401, 403, 422 and 429, which every action has. */
  errors: Record<number, string | RefusalWithFields>;
  success?: { status: 200 | 201 | 202; description: string; name: string; schema: z.ZodMiniType };
  handle: (c: Context<AppEnv>, body: z.infer<S>, actor: Actor, now: Date) => Promise<object>;
}

export function adminActionRoutes(deps: AdminDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const actions = accountActions({
    db: deps.db,
    accounts: deps.accounts,
    billing: deps.billing,
    autoTopUp: deps.autoTopUp,
  });

  function addAction<S extends z.ZodMiniType>(spec: ActionSpec<S>): void {
    const success = spec.success ?? {
      status: 200,
      description: "Done: the audit entry it wrote",
      name: "ActionResult",
      schema: actionResultSchema,
    };
    const route = {
      method: spec.method ?? "post",
      path: spec.path,
      operationId: spec.operationId,
      tags: ["admin"],
      summary: spec.summary,
      security: staffSecurity(spec.permission),
      parameters: [
        pathParameter("id", spec.idDescription ?? "The customer's user id", PATH_IDS[spec.idKind ?? "uuid"]),
      ],
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
            "A role the permission table does not allow (the reason in detail), staff acting on their own account, or support past its grant limits (GrantLimitRefusal: `limit`, and `left` for the daily one)",
            schemaRef(registry, "GrantLimitRefusal", grantLimitRefusalSchema),
          ),
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

  /** The path's id in its canonical form: the customer's or payment's UUID in lower case. */
  const id = (c: Context<AppEnv>) => pathId(c, "id", "uuid");

  addAction({
    path: "/admin/customers/{id}/credits",
    operationId: "adminChangeCredits",
    summary:
      "Grant goodwill credits (support within SUPPORT_GRANT_LIMIT a grant and SUPPORT_GRANT_DAILY_LIMIT a Berlin day) or take unspent credits back (admin)",
    permission: "grantCredits",
    request: { name: "CreditChangeRequest", schema: creditChangeRequestSchema },
    errors: {
      404: ADMIN_TEXT.customerNotFound,
      409: withFields(
        `More than the unspent credits (TakeBackRefusal: \`available\` says how many), the idempotency key used for another amount, or "${ADMIN_TEXT.accountDeleted}"`,
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
      return answerCreditChange(deps, actor, id(c), body, now);
    },
  });

  addAction({
    path: "/admin/payments/{id}/refund",
    idDescription: "The payment's id (the `id` of the customer's payments list)",
    operationId: "adminRefundPayment",
    summary: "Refund a payment in full (the default) or in part, through the provider; a credit note follows",
    permission: "refundPayment",
    request: { name: "RefundRequest", schema: refundRequestSchema },
    errors: {
      404: REFUND_TEXT.notFound,
      409: withFields(
        "Failed, disputed or fully refunded, more than is left (RefundTooMuch: `refundable` says how much), or the key used for another refund",
        schemaRef(registry, "RefundTooMuch", refundTooMuchSchema),
      ),
    },
    success: {
      status: 202,
      description:
        "Asked of the provider: the credits, the history and the credit note follow when its charge.refunded arrives",
      name: "RefundResult",
      schema: refundResultSchema,
    },
    handle: async (c, body, actor, now) => {
      const done = await refundPayment(
        { db: deps.db, provider: deps.provider, afterProviderChange: deps.afterProviderChange },
        actor,
        id(c),
        { amount: body.amount, reason: body.reason, idempotencyKey: body.idempotency_key },
        now,
      );
      return { refund_id: done.refundId, status: done.status, audit_id: done.auditId };
    },
  });

  addAction({
    path: "/admin/customers/{id}/subscription/cancel",
    operationId: "adminCancelSubscription",
    summary: "Cancel the customer's subscription at the period's end or now (no refund; refund separately)",
    permission: "cancelSubscription",
    request: { name: "AdminCancelRequest", schema: cancelSubscriptionRequestSchema },
    errors: {
      400: "The customer has no paid plan",
      404: ADMIN_TEXT.customerNotFound,
      409: `"${ADMIN_TEXT.accountDeleted}"`,
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
      path: `/admin/customers/{id}/${disable ? "disable" : "enable"}`,
      operationId: disable ? "adminDisableAccount" : "adminEnableAccount",
      summary: disable
        ? "Disable an account: login, its tokens and its API keys are refused on every instance at once"
        : "Enable a disabled account: its tokens and keys that were valid before work again",
      permission: "disableAccount",
      request: { name: "ReasonRequest", schema: reasonRequestSchema },
      errors: {
        404: ADMIN_TEXT.customerNotFound,
        409: `${disable ? ADMIN_TEXT.alreadyDisabled : ADMIN_TEXT.notDisabled}, or "${ADMIN_TEXT.accountDeleted}"`,
      },
      handle: async (c, body, actor, now) => {
        const act = disable ? actions.disable : actions.enable;
        const { auditId } = await act(actor, id(c), body.reason, now);
        return done(disable ? "Account disabled" : "Account enabled", auditId);
      },
    });
  }

  addAction({
    path: "/admin/customers/{id}/dispute-hold/clear",
    operationId: "adminClearDisputeHold",
    summary: "Clear a dispute hold: the account can be charged again",
    permission: "clearDisputeHold",
    request: { name: "ReasonRequest", schema: reasonRequestSchema },
    errors: {
      404: ADMIN_TEXT.customerNotFound,
      409: `${ADMIN_TEXT.noDisputeHold}, or "${ADMIN_TEXT.accountDeleted}"`,
    },
    handle: async (c, body, actor, now) => {
      const { auditId } = await actions.clearDisputeHold(actor, id(c), body.reason, now);
      return done("Dispute hold cleared", auditId);
    },
  });

  addAction({
    path: "/admin/customers/{id}/role",
    operationId: "adminChangeRole",
    summary: "Change a role (never one's own; the last admin stays admin)",
    permission: "changeRole",
    request: { name: "RoleChangeRequest", schema: roleChangeRequestSchema },
    errors: {
      404: ADMIN_TEXT.customerNotFound,
      409: `${ADMIN_TEXT.sameRole}, ${ADMIN_TEXT.lastAdmin}, "${ADMIN_TEXT.staffNeedsSecondFactor}", or "${ADMIN_TEXT.accountDeleted}"`,
    },
    handle: async (c, body, actor, now) => {
      const { auditId } = await actions.changeRole(actor, id(c), body.role, body.reason, now);
      return done(`Role changed to ${body.role}`, auditId);
    },
  });

  addAction({
    path: "/admin/customers/{id}/emails",
    operationId: "adminSendCustomerMail",
    summary: "Send the customer a new verification link or a password-reset link",
    permission: "sendCustomerMail",
    request: { name: "CustomerMailRequest", schema: customerMailRequestSchema },
    errors: {
      404: ADMIN_TEXT.customerNotFound,
      409: `${ADMIN_TEXT.alreadyVerified}, or "${ADMIN_TEXT.accountDeleted}"`,
    },
    handle: async (c, body, actor, now) => {
      const { auditId } = await actions.sendMail(actor, id(c), body.kind, body.reason, now);
      return done(
        body.kind === "verification" ? "Verification mail sent" : "Password-reset mail sent",
        auditId,
      );
    },
  });

  addAction({
    method: "delete",
    path: "/admin/api-keys/{id}",
    idDescription: "The key's id (its prefix without gpk_)",
    idKind: "apiKey",
    operationId: "adminRevokeApiKey",
    summary: "Revoke a customer's API key: refused by every instance at once",
    permission: "revokeApiKey",
    request: { name: "ReasonRequest", schema: reasonRequestSchema },
    errors: { 404: ADMIN_TEXT.keyNotFound, 409: "The key is already revoked" },
    handle: async (c, body, actor, now) => {
      const { auditId } = await actions.revokeKey(actor, pathId(c, "id", "apiKey"), body.reason, now);
      return done("API key revoked", auditId);
    },
  });

  return app;
}
