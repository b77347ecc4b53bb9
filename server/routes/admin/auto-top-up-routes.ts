// The console's auto top-up calls (ORGANISATIONS.md, "The operator console"; AUTO-TOP-UP.md,
// "Pages"): an organisation's auto top-up as its owners see it, and turning it off with a reason.
// Turning it off stops charges to a customer's card as cancelling a subscription stops renewals,
// so it takes the same permission (admins); staff never act on an organisation they belong to.
import { OpenAPIHono } from "@hono/zod-openapi";
import { ADMIN_TEXT, actionResultSchema } from "../../../contract/admin.ts";
import { ADMIN_ORG_TEXT } from "../../../contract/admin-orgs.ts";
import { AUTO_TOP_UP_TEXT, adminAutoTopUpOffSchema, autoTopUpSchema } from "../../../contract/auto-top-up.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import type { AutoTopUpCommands } from "../../billing/auto-top-up/settings.ts";
import { autoTopUpView } from "../../billing/auto-top-up/view.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, requireUser } from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  PATH_IDS,
  pathParameter,
  schemaRef,
} from "../../http/openapi.ts";
import { pathId } from "../../http/path-id.ts";
import { parseJsonBody } from "../../http/validation.ts";
import { findOrganisation } from "../../operations/org-console.ts";
import type { ApiDeps } from "../api-deps.ts";
import { actorOf, done, requirePermission, staffSecurity } from "./admin-deps.ts";

export type AdminAutoTopUpDeps = Pick<ApiDeps, "db" | "clock" | "accessTokens" | "limiter" | "trustProxy"> & {
  autoTopUpCommands: AutoTopUpCommands;
};

const orgIdParameter = pathParameter(
  "id",
  "The organisation's id (a personal one's is its user's)",
  PATH_IDS.uuid,
);

export function adminAutoTopUpRoutes(deps: AdminAutoTopUpDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const tags = ["admin"];
  const commands = deps.autoTopUpCommands;

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/orgs/{id}/auto-top-up",
      operationId: "adminOrgAutoTopUp",
      tags,
      summary: "An organisation's auto top-up, as its owners see it under Billing",
      security: staffSecurity("viewCustomers"),
      parameters: [orgIdParameter],
      responses: {
        200: {
          description:
            "Auto top-up: settings, card, state with its reason, this month's charges, last attempts",
          content: jsonContent(schemaRef(registry, "AutoTopUp", autoTopUpSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: "Not support staff or an admin",
          404: ORG_DETAIL.notFound,
        }),
      },
    },
    requireUser(deps),
    requirePermission("viewCustomers"),
    async (c) => {
      const org = await findOrganisation(deps.db, pathId(c, "id", "uuid"));
      if (!org) throw new ApiError(404, ORG_DETAIL.notFound);
      return c.json(await autoTopUpView(deps.db, org.id, commands.currency, deps.clock.now()), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/admin/orgs/{id}/auto-top-up/off",
      operationId: "adminTurnOffOrgAutoTopUp",
      tags,
      summary: "Turn an organisation's auto top-up off (admin); the reason goes to its activity log",
      description:
        "It stays off until an owner or billing member turns it on again, with new consent. A payment awaiting the bank's confirmation is cancelled; owners and billing members are mailed.",
      security: staffSecurity("cancelSubscription"),
      parameters: [orgIdParameter],
      request: {
        body: {
          required: true,
          content: jsonContent(
            schemaRef(registry, "AdminAutoTopUpOffRequest", adminAutoTopUpOffSchema, "input"),
          ),
        },
      },
      responses: {
        200: {
          description: "Done: the audit entry it wrote",
          content: jsonContent(schemaRef(registry, "ActionResult", actionResultSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: `"${ADMIN_TEXT.adminOnly}" / "${ADMIN_TEXT.staffOnly}", or "${ADMIN_ORG_TEXT.notOwnOrganisation}"`,
          404: ORG_DETAIL.notFound,
          409: `"${AUTO_TOP_UP_TEXT.alreadyOff}" (or never set up), or "${ADMIN_ORG_TEXT.orgDeleted}"`,
          422: "Invalid body: the reason (3 to 500 characters)",
        }),
      },
    },
    requireUser(deps),
    requirePermission("cancelSubscription"),
    limitWrites(deps.limiter),
    async (c) => {
      const body = await parseJsonBody(c, adminAutoTopUpOffSchema);
      const auditId = await commands.staffTurnOff(
        actorOf(c, deps.trustProxy),
        pathId(c, "id", "uuid"),
        body.reason,
        deps.clock.now(),
      );
      return c.json(done(AUTO_TOP_UP_TEXT.turnedOff, auditId), 200);
    },
  );

  return app;
}
