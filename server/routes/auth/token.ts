// POST /v1/token: OAuth2 password grant (form-urlencoded), as FastAPI's OAuth2PasswordRequestForm.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { loginSchema, tokenResponseSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { MFA_METHODS, mfaRequiredSchema } from "../../../contract/two-factor.ts";
import { signInAsksFactor } from "../../accounts/staff-factors.ts";
import { refuseWhileGuessed } from "../../auth/code-guessing.ts";
import { signInSucceeded } from "../../auth/sign-in-throttle.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { ApiError } from "../../http/errors.ts";
import { addRoute, errorResponses, PUBLIC, schemaRef, withFields } from "../../http/openapi.ts";
import { parseFormBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { admitAttempt, recordFailedAttempt, recordSignIn } from "./sign-in-attempts.ts";
import { tokenAnswer } from "./token-answer.ts";

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
    security: PUBLIC,
    tags: ["auth"],
    summary: "Log in: exchange username and password for an access token",
    request: {
      // Either form encoding, as OAuth2's password form (and FastAPI's OAuth2PasswordRequestForm) takes it.
      body: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": { schema: form },
          "multipart/form-data": { schema: form },
        },
      },
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
        403: withFields(
          `"${DETAIL.emailNotVerified}" or "${DETAIL.accountDisabled}" (only said to someone who gave the right password); or "${DETAIL.mfaRequired}" with \`mfa_token\` and \`methods\` (MfaRequired) when the account has two-factor sign-in on (an authenticator app; for staff (support, admin), a passkey too): send the code, or the passkey's answer, to POST /v1/token/mfa. \`methods\` lists only what the account has: \`["webauthn"]\` for a staff account whose only second factor is a passkey`,
          schemaRef(registry, "MfaRequired", mfaRequiredSchema),
        ),
        422: "The form is incomplete or malformed",
        429: `"${DETAIL.tooManyRequests}", with Retry-After: too many failed sign-ins from this address, or for this username from this address (never for a username alone, so no one can lock its owner out); or, only after the right password, "${DETAIL.tooManyWrongCodes}", with Retry-After: the account's wrong second factors at POST /v1/token/mfa passed the hourly limit, so no mfa_token is given until the hour is over`,
      }),
    },
  } satisfies RouteConfig;

  addRoute(app, route, async (c) => {
    const input = await parseFormBody(c, loginSchema);
    const admitted = await admitAttempt(deps, c, input.username);
    const result = await deps.accounts.login(input.username, input.password);
    if (!result.ok && result.reason === "incorrect") {
      await recordFailedAttempt(deps, admitted, result.user);
      throw new ApiError(400, DETAIL.incorrectCredentials);
    }
    if (!result.ok) {
      // The password was right: whatever else stands in the way, the attempt does not count.
      await signInSucceeded(deps.limiter, admitted.attempt);
      if (result.reason === "unverified") throw new ApiError(403, DETAIL.emailNotVerified);
      throw new ApiError(403, DETAIL.accountDisabled);
    }
    const { user } = result;
    // A confirmed authenticator app; for staff, a passkey too (decision 046): a staff account's
    // password alone never makes a token.
    const factors = await deps.twoFactor.factors(user.id);
    if (signInAsksFactor(factors)) {
      // The token waits for the second factor (POST /v1/token/mfa). The attempt stays counted
      // until the code is right: someone who has the password cannot reset the count with it
      // between guesses at the code. No new mfa_token while the account's wrong codes are over
      // their hourly limit (auth/code-guessing.ts).
      await refuseWhileGuessed(deps.limiter, user.id);
      const mfaToken = await deps.twoFactor.startChallenge(user.id);
      // Only what the account has: a staff account with a passkey alone is offered the passkey alone.
      const methods = MFA_METHODS.filter((m) => (m === "webauthn" ? factors.passkey : factors.app));
      throw new ApiError(
        403,
        DETAIL.mfaRequired,
        { "Cache-Control": "no-store" },
        { mfa_token: mfaToken, methods },
      );
    }
    await signInSucceeded(deps.limiter, admitted.attempt);
    await recordSignIn(deps, admitted, user);
    const issued = await deps.accessTokens.issue(user);
    deps.logger.info({ userId: user.id }, "Access token issued");
    return tokenAnswer(c, issued);
  });
  return app;
}
