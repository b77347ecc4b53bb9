// GET /v1/users/me.
import { OpenAPIHono } from "@hono/zod-openapi";
import { userSchema } from "../../../contract/account.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { addRoute, BEARER_SCHEME, errorResponses, jsonContent, schemaRef } from "../../http/openapi.ts";
import type { ApiDeps } from "../api-deps.ts";
import { presentUser } from "./present-user.ts";

export function userRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;

  addRoute(
    app,
    {
      method: "get",
      path: "/users/me",
      tags: ["users"],
      summary: "The logged-in user, with credit balance and subscription",
      security: [{ [BEARER_SCHEME]: [] }],
      responses: {
        200: { description: "The user", content: jsonContent(schemaRef(registry, "User", userSchema)) },
        ...errorResponses(registry, { 401: "No valid access token (WWW-Authenticate: Bearer)" }),
      },
    },
    requireUser(deps),
    async (c) => c.json(await presentUser(deps.db, c.var.user, deps.clock.now(), deps.tiers), 200),
  );
  return app;
}
