// POST /v1/token: OAuth2 password grant (form-urlencoded), as FastAPI's OAuth2PasswordRequestForm.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { loginSchema, tokenResponseSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { recordSecurityEvent } from "../../audit/security-events.ts";
import { admitSignIn, signInSucceeded } from "../../auth/sign-in-throttle.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { clientIp } from "../../http/client-ip.ts";
import { ApiError } from "../../http/errors.ts";
import { addRoute, errorResponses, schemaRef } from "../../http/openapi.ts";
import { tooManyRequests } from "../../http/rate-limit.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseFormBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";

/** How the log names someone who tried a username no account has (never the text they typed). */
const UNKNOWN_USER = "unknown user";

export function tokenRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const form = schemaRef(registry, "LoginForm", loginSchema, "input", {
    example: { grant_type: "password", username: "ann", password: "Secret#123" },
  });

  const route = {
    method: "post",
    path: "/token",
    operationId: "login",
    security: [],
    tags: ["auth"],
    summary: "Log in: exchange username and password for an access token",
    request: {
      body: { required: true, content: { "application/x-www-form-urlencoded": { schema: form } } },
    },
    responses: {
      200: {
        description:
          "An access token (JWT signed with EdDSA or ES256, keys at /.well-known/jwks.json) for `Authorization: Bearer`",
        content: {
          "application/json": { schema: schemaRef(registry, "TokenResponse", tokenResponseSchema) },
        },
      },
      ...errorResponses(registry, {
        400: `"${DETAIL.incorrectCredentials}": unknown user or wrong password (the same answer for both)`,
        403: `"${DETAIL.emailNotVerified}" or "${DETAIL.accountDisabled}" (only said to someone who gave the right password)`,
        422: "The form is incomplete or malformed",
        429: `"${DETAIL.tooManyRequests}", with Retry-After: too many failed sign-ins from this address, or for this username from this address (never for a username alone, so no one can lock its owner out)`,
      }),
    },
  } satisfies RouteConfig;

  addRoute(app, route, async (c) => {
    const input = await parseFormBody(c, loginSchema);
    const ip = clientIp(c, deps.trustProxy);
    const attempt = { username: input.username, ip };
    const origin = originOf(c, deps.trustProxy);
    const now = deps.clock.now();
    const admitted = await admitSignIn(deps.limiter, attempt);
    if (!admitted.allowed) {
      // Once a window per counter, not once per refused request: a flood must not flood the log.
      if (admitted.first) {
        await recordSecurityEvent(
          deps.db,
          { action: "login.throttled", userId: null, actorLabel: UNKNOWN_USER, origin },
          now,
        );
      }
      throw tooManyRequests(admitted);
    }
    const result = await deps.accounts.login(input.username, input.password);
    if (!result.ok && result.reason === "incorrect") {
      const { user } = result;
      await recordSecurityEvent(
        deps.db,
        {
          action: "login.failed",
          userId: user?.id ?? null,
          actorLabel: user?.username ?? UNKNOWN_USER,
          origin,
        },
        now,
      );
      throw new ApiError(400, DETAIL.incorrectCredentials);
    }
    // The password was right: whatever else stands in the way, the attempt does not count.
    await signInSucceeded(deps.limiter, attempt);
    if (!result.ok) {
      if (result.reason === "unverified") throw new ApiError(403, DETAIL.emailNotVerified);
      throw new ApiError(403, DETAIL.accountDisabled);
    }
    const { user } = result;
    await recordSecurityEvent(
      deps.db,
      { action: "login.succeeded", userId: user.id, actorLabel: user.username, origin },
      now,
    );
    const { token, expiresIn } = await deps.accessTokens.issue(user);
    deps.logger.info({ userId: user.id }, "Access token issued");
    // RFC 6749 5.1: token answers must not be cached.
    return c.json({ access_token: token, token_type: "bearer" as const, expires_in: expiresIn }, 200, {
      "Cache-Control": "no-store",
      Pragma: "no-cache",
    });
  });
  return app;
}
