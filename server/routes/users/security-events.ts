// GET /v1/users/me/security-events: what /profile/security lists under "Recent security events"
// (audit/security-event-list.ts says which events those are).
import { OpenAPIHono } from "@hono/zod-openapi";
import {
  SECURITY_EVENTS_SHOWN,
  securityEventsSchema,
  WRONG_PASSWORDS_SHOWN,
} from "../../../contract/security-events.ts";
import { recentSecurityEvents } from "../../audit/security-event-list.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { addRoute, errorResponses, jsonContent, SIGNED_IN, schemaRef } from "../../http/openapi.ts";
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
      description: `Among them at most the ${WRONG_PASSWORDS_SHOWN} latest wrong passwords at sign-in (anyone who knows the username can add those); \`wrong_passwords_not_listed\` counts the earlier ones.`,
      security: SIGNED_IN,
      responses: {
        200: {
          description: "Sign-ins, sign-outs, password and two-factor changes, with address and browser",
          content: jsonContent(schemaRef(registry, "SecurityEvents", securityEventsSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    requireUser(deps),
    async (c) => c.json(await recentSecurityEvents(deps.db, c.var.user.id), 200),
  );
  return app;
}
