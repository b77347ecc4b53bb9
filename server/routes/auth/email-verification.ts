// E-mail verification: use the mailed link, or ask for a new one.
import { OpenAPIHono } from "@hono/zod-openapi";
import { verifyEmailSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  detailAnswer,
  errorResponses,
  jsonContent,
  PUBLIC,
  schemaRef,
} from "../../http/openapi.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { addEmailRequestRoute } from "./email-request-route.ts";

export function emailVerificationRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;

  addEmailRequestRoute(app, deps, {
    path: "/user/resend-email-verification",
    operationId: "resendEmailVerification",
    tags: ["e-mail verification"],
    summary: "Mail a new verification link (valid 24 h) if the address has an unverified account",
    description: "The answer is byte-identical whether the address is unknown, unverified or verified.",
    addressLimit: "resendVerificationEmail",
    answer: DETAIL.verificationResent,
    start: (email) => deps.accounts.resendVerification(email),
  });

  addRoute(
    app,
    {
      method: "post",
      path: "/user/verify-email",
      operationId: "verifyEmail",
      security: PUBLIC,
      tags: ["e-mail verification"],
      summary: "Verify the address with the mailed token; the first verification grants the free credits",
      request: {
        body: {
          required: true,
          content: jsonContent(
            schemaRef(registry, "VerifyEmail", verifyEmailSchema, "input", {
              example: { token: "the token from the verification link" },
            }),
          ),
        },
      },
      responses: {
        200: detailAnswer(registry, `"${DETAIL.emailVerified}"`),
        ...errorResponses(registry, {
          400: `"${DETAIL.tokenInvalidOrExpired}"`,
          422: "No token in the body",
        }),
      },
    },
    async (c) => {
      const { token } = await parseJsonBody(c, verifyEmailSchema);
      if (!(await deps.accounts.verifyEmail(token))) throw new ApiError(400, DETAIL.tokenInvalidOrExpired);
      return c.json({ detail: DETAIL.emailVerified }, 200);
    },
  );
  return app;
}
