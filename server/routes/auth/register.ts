// POST /v1/register.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { registeredUserSchema, registerSchema } from "../../../contract/account.ts";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { clientIp } from "../../http/client-ip.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  PASSWORD_RULES,
  PUBLIC,
  schemaRef,
} from "../../http/openapi.ts";
import { enforceLimits } from "../../http/rate-limit.ts";
import { parseJsonBody, refuseUnusableAddress } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";

export function registerRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;

  const route = {
    method: "post",
    path: "/register",
    operationId: "register",
    security: PUBLIC,
    tags: ["auth"],
    summary: "Create an account and mail its verification link",
    description: "Any Authorization header is ignored.",
    request: {
      body: {
        required: true,
        content: jsonContent(
          schemaRef(registry, "RegisterRequest", registerSchema, "input", {
            example: {
              email: "ann@example.com",
              username: "ann",
              password: "Secret#123",
              confirmPassword: "Secret#123",
            },
            properties: {
              username: "3 to 30 letters, digits, dots, dashes or underscores; unique regardless of case",
              password: PASSWORD_RULES,
            },
          }),
        ),
      },
    },
    responses: {
      201: {
        description: "Created; the verification mail is on its way",
        content: jsonContent(
          schemaRef(registry, "RegisteredUser", registeredUserSchema, "output", {
            example: {
              id: "0b5c7a3e-2f7d-4c1e-9a55-3f1f0d6b8c21",
              username: "ann",
              email: "ann@example.com",
            },
          }),
        ),
      },
      ...errorResponses(registry, {
        400: `"${DETAIL.emailExists}" or "${DETAIL.usernameExists}"`,
        422: `A field breaks a rule (the messages of the portal's form), or the address is from a disposable-mail service ("${VALIDATION.emailDisposable}") or in a top-level domain that never receives mail, .invalid or .localhost ("${VALIDATION.emailReserved}")`,
        429: `"${DETAIL.tooManyRequests}", with Retry-After`,
      }),
    },
  } satisfies RouteConfig;

  addRoute(app, route, async (c) => {
    const input = await parseJsonBody(c, registerSchema);
    await enforceLimits(deps.limiter, [["registerIp", clientIp(c, deps.trustProxy)]]);
    refuseUnusableAddress(input.email);
    const result = await deps.accounts.register(input);
    if (!result.ok)
      throw new ApiError(400, result.conflict === "email" ? DETAIL.emailExists : DETAIL.usernameExists);
    const { id, username, email } = result.user;
    return c.json({ id, username, email }, 201);
  });
  return app;
}
