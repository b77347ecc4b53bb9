// The forgotten-password flow: request a link, check it, set a new password with it.
import { OpenAPIHono } from "@hono/zod-openapi";
import { passwordResetSchema, resetCheckResponseSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  detailAnswer,
  errorResponses,
  jsonContent,
  PASSWORD_RULES,
  PATH_IDS,
  PUBLIC,
  pathParameter,
  schemaRef,
} from "../../http/openapi.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { addEmailRequestRoute } from "./email-request-route.ts";

export function passwordResetRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;

  addEmailRequestRoute(app, deps, {
    path: "/user/password-reset-request",
    operationId: "requestPasswordReset",
    tags: ["password reset"],
    summary: "Mail a password reset link (valid 1 h) if the address has an account",
    description: "The answer is byte-identical whether or not the address has an account.",
    addressLimit: "resetRequestEmail",
    answer: DETAIL.resetRequested,
    start: (email) => deps.accounts.requestPasswordReset(email),
  });

  addRoute(
    app,
    {
      method: "get",
      path: "/user/password-reset-check/{token}",
      operationId: "checkPasswordResetToken",
      security: PUBLIC,
      tags: ["password reset"],
      summary: "Is this reset token still usable? (Does not use it up.)",
      parameters: [pathParameter("token", "The token from the reset link", PATH_IDS.mailedToken)],
      responses: {
        200: {
          description: "Usable",
          content: jsonContent(schemaRef(registry, "ResetCheck", resetCheckResponseSchema)),
        },
        ...errorResponses(registry, { 400: `"${DETAIL.tokenInvalidOrExpired}"` }),
      },
    },
    async (c) => {
      const token = c.req.param("token") ?? "";
      if (!(await deps.accounts.isResetTokenUsable(token)))
        throw new ApiError(400, DETAIL.tokenInvalidOrExpired);
      return c.json({ valid: true as const }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/user/password-reset",
      operationId: "resetPassword",
      security: PUBLIC,
      tags: ["password reset"],
      summary:
        "Set a new password with a reset token; ends every access token of the account (API keys keep working: the mail that follows lists them)",
      request: {
        body: {
          required: true,
          content: jsonContent(
            schemaRef(registry, "PasswordReset", passwordResetSchema, "input", {
              example: { token: "the token from the reset link", password: "N3w#Secret" },
              properties: { password: PASSWORD_RULES },
            }),
          ),
        },
      },
      responses: {
        200: detailAnswer(registry, `"${DETAIL.passwordResetDone}"`),
        ...errorResponses(registry, {
          400: `"${DETAIL.tokenInvalidOrExpired}"`,
          422: "The new password breaks a rule",
        }),
      },
    },
    async (c) => {
      const { token, password } = await parseJsonBody(c, passwordResetSchema);
      if (!(await deps.accounts.resetPassword(token, password, originOf(c, deps.trustProxy))))
        throw new ApiError(400, DETAIL.tokenInvalidOrExpired);
      return c.json({ detail: DETAIL.passwordResetDone }, 200);
    },
  );
  return app;
}
