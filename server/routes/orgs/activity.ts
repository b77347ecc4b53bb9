// GET /v1/orgs/{id}/activity: the organisation's events from the audit log (subject_org_id),
// newest first, 50 a page. Owners and managers see every event; billing members the billing and
// auto top-up events; developers none. An event's address is shown only on the caller's own events.
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { can } from "../../../contract/org-roles.ts";
import { activitySchema } from "../../../contract/orgs.ts";
import { auditLog } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { ApiError, RequestValidationError } from "../../http/errors.ts";
import { addRoute, errorResponses, jsonContent, SIGNED_IN, schemaRef } from "../../http/openapi.ts";
import { billingActivityPatterns, visibleDetails, visibleIp } from "../../orgs/org-rules.ts";
import { NOT_A_MEMBER, ORG_ID_PARAMETER, type OrgRouteDeps, pathOrg } from "./org-deps.ts";

export const ACTIVITY_PAGE_SIZE = 50;

export function activityRoutes(deps: OrgRouteDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;

  addRoute(
    app,
    {
      method: "get",
      path: "/orgs/{id}/activity",
      operationId: "listOrganizationActivity",
      tags: ["organisations"],
      summary:
        "The organisation's activity log, newest first (owners and managers; billing members its billing events)",
      security: SIGNED_IN,
      parameters: [
        ORG_ID_PARAMETER,
        {
          name: "cursor",
          in: "query",
          required: false,
          description: "The `next_cursor` of the previous page",
          schema: { type: "string", pattern: "^[0-9]{1,18}$", maxLength: 18 },
        },
      ],
      responses: {
        200: {
          description: "Events",
          content: jsonContent(schemaRef(registry, "OrganizationActivity", activitySchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: `"${ORG_DETAIL.notAllowed}": developers see no activity`,
          404: NOT_A_MEMBER,
          422: "A cursor that is not a `next_cursor`",
        }),
      },
    },
    requireUser(deps),
    pathOrg(deps.db),
    async (c) => {
      const { org, user } = c.var;
      const everything = can(org.role, "activity");
      if (!everything && !can(org.role, "billingActivity")) throw new ApiError(403, ORG_DETAIL.notAllowed);
      const cursor = c.req.query("cursor");
      if (cursor !== undefined && !/^[0-9]{1,18}$/.test(cursor)) {
        throw new RequestValidationError([
          { loc: ["query", "cursor"], msg: "Use the next_cursor of the previous page", type: "value_error" },
        ]);
      }
      const conditions: SQL[] = [eq(auditLog.subjectOrgId, org.id)];
      if (cursor !== undefined) conditions.push(lt(auditLog.seq, Number(cursor)));
      if (!everything) {
        const patterns = billingActivityPatterns();
        conditions.push(
          sql`(${sql.join(
            patterns.map((p) => sql`${auditLog.action} like ${p}`),
            sql` or `,
          )})`,
        );
      }
      const rows = await deps.db
        .select()
        .from(auditLog)
        .where(and(...conditions))
        .orderBy(desc(auditLog.seq))
        .limit(ACTIVITY_PAGE_SIZE + 1);
      const page = rows.slice(0, ACTIVITY_PAGE_SIZE);
      const data = page.map((row) => ({
        id: row.id,
        at: row.at.toISOString(),
        action: row.action,
        actor: { id: row.actorId, label: row.actorLabel },
        subject_user_id: row.subjectUserId,
        details: visibleDetails(row.actorId, user.id, row.details),
        ip: visibleIp(row.actorId, user.id, row.ip),
      }));
      const last = page.at(-1);
      return c.json(
        { data, next_cursor: rows.length > ACTIVITY_PAGE_SIZE && last ? String(last.seq) : null },
        200,
      );
    },
  );
  return app;
}
