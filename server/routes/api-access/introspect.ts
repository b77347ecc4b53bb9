// `POST /v1/introspect` (RFC 7662) for the generation service: what a credential stands for now.
import { OpenAPIHono } from "@hono/zod-openapi";
import { introspectionSchema, introspectRequestSchema } from "../../../contract/api-keys.ts";
import { INACTIVE, introspect } from "../../api-access/introspection.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { addRoute, errorResponses, SERVICE_KEY_SCHEME, schemaRef } from "../../http/openapi.ts";
import { requireService } from "../../http/service-auth.ts";
import { parseFormBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";

export function introspectRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "post",
      path: "/introspect",
      operationId: "introspect",
      tags: ["generation service"],
      summary:
        "What an access token or API key stands for right now (RFC 7662; service key with scope introspect)",
      description:
        'Anything not valid at this moment (unknown, malformed, revoked, expired) answers `{"active": false}` and nothing else. The answer may be cached for a few seconds.',
      security: [{ [SERVICE_KEY_SCHEME]: [] }],
      request: {
        body: {
          content: {
            "application/x-www-form-urlencoded": {
              schema: schemaRef(registry, "IntrospectRequest", introspectRequestSchema, "input"),
            },
          },
        },
      },
      responses: {
        200: {
          description: "The credential's state",
          content: {
            "application/json": { schema: schemaRef(registry, "Introspection", introspectionSchema) },
          },
        },
        ...errorResponses(registry, {
          401: "No valid service key",
          403: "The service key lacks the scope introspect",
          422: "Not a form, or a token over 4,096 characters (a missing or empty token is simply not active)",
          429: "Too many failed service authentications from this address",
        }),
      },
    },
    requireService(deps, "introspect"),
    async (c) => {
      const form = await parseFormBody(c, introspectRequestSchema);
      const answer = form.token ? await introspect(deps, form.token, deps.clock.now()) : INACTIVE;
      return c.json(answer, 200);
    },
  );
  return app;
}
