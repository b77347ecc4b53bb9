// GET /v1/users/me.
import { OpenAPIHono } from "@hono/zod-openapi";
import { userSchema } from "../../../contract/account.ts";
import { findUserWithBilling } from "../../billing/user-billing.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { authenticate } from "../../http/auth-guard.ts";
import { addRoute, errorResponses, jsonContent, SIGNED_IN, schemaRef } from "../../http/openapi.ts";
import type { ApiDeps } from "../api-deps.ts";
import { presentUserWithBilling } from "./present-user.ts";

export function userRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;

  addRoute(
    app,
    {
      method: "get",
      path: "/users/me",
      operationId: "getCurrentUser",
      tags: ["users"],
      summary: "The logged-in user, with credit balance and subscription",
      security: SIGNED_IN,
      responses: {
        200: { description: "The user", content: jsonContent(schemaRef(registry, "User", userSchema)) },
        ...errorResponses(registry, { 401: "No valid access token (WWW-Authenticate: Bearer)" }),
      },
    },
    // requireUser's checks, with the user and their billing read in one statement (the API's most
    // frequent call: every page load of a logged-in visitor makes it).
    async (c) => {
      const account = await authenticate(deps, c.req.header("authorization"), findUserWithBilling);
      return c.json(presentUserWithBilling(account, deps.clock.now(), deps.tiers), 200);
    },
  );
  return app;
}
