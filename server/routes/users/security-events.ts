// GET /v1/users/me/security-events: what /profile/security lists under "Recent security events":
// the account's sign-ins, sign-outs, password and two-factor changes, with the address and browser
// the audit log recorded (never staff actions or their reasons, which are support's to explain).
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, desc, eq, like, or } from "drizzle-orm";
import {
  SECURITY_EVENT_PREFIXES,
  SECURITY_EVENTS_SHOWN,
  securityEventsSchema,
} from "../../../contract/security-events.ts";
import { browserName } from "../../audit/browser-name.ts";
import { auditLog } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { addRoute, BEARER_SCHEME, errorResponses, jsonContent, schemaRef } from "../../http/openapi.ts";
import type { ApiDeps } from "../api-deps.ts";

export function securityEventRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "get",
      path: "/users/me/security-events",
      operationId: "listSecurityEvents",
      tags: ["account"],
      summary: `The account's ${SECURITY_EVENTS_SHOWN} most recent security events, newest first`,
      security: [{ [BEARER_SCHEME]: [] }],
      responses: {
        200: {
          description: "Sign-ins, sign-outs, password and two-factor changes, with address and browser",
          content: jsonContent(schemaRef(registry, "SecurityEvents", securityEventsSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    requireUser(deps),
    async (c) => {
      const rows = await deps.db
        .select({
          id: auditLog.id,
          at: auditLog.at,
          action: auditLog.action,
          ip: auditLog.ip,
          details: auditLog.details,
        })
        .from(auditLog)
        .where(
          and(
            eq(auditLog.subjectUserId, c.var.user.id),
            or(...SECURITY_EVENT_PREFIXES.map((prefix) => like(auditLog.action, `${prefix}%`))),
          ),
        )
        .orderBy(desc(auditLog.seq))
        .limit(SECURITY_EVENTS_SHOWN);
      const data = rows.map((row) => ({
        id: row.id,
        at: row.at.toISOString(),
        action: row.action,
        ip: row.ip,
        browser: browserName(typeof row.details.user_agent === "string" ? row.details.user_agent : null),
      }));
      return c.json({ data }, 200);
    },
  );
  return app;
}
