// Signing in with a passkey (ACCOUNT-SECURITY.md). POST /v1/passkeys/options starts a ceremony:
// for a passwordless sign-in (the browser offers the site's passkeys), or, with an mfa_token, for
// the second factor of a sign-in whose password was right (only that account's passkeys).
// POST /v1/token/passkey finishes a passwordless one: a passkey that verified its owner is the
// whole proof (amr ["hwk"]), which also counts as two factors for staff.
import { OpenAPIHono } from "@hono/zod-openapi";
import { tokenResponseSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import {
  passkeyAssertionSchema,
  passkeyOptionsRequestSchema,
  webauthnOptionsSchema,
} from "../../../contract/passkeys.ts";
import { findUserById } from "../../accounts/users.ts";
import { signInSucceeded } from "../../auth/sign-in-throttle.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { clientIp } from "../../http/client-ip.ts";
import { ApiError } from "../../http/errors.ts";
import { addRoute, errorResponses, jsonContent, PUBLIC, schemaRef } from "../../http/openapi.ts";
import { enforceLimits } from "../../http/rate-limit.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { admitAttempt, recordFailedAttempt, recordSignIn } from "./sign-in-attempts.ts";
import { tokenAnswer } from "./token-answer.ts";

/** The throttling counter of passwordless attempts: per address, as no username is typed. */
const PASSKEY_ATTEMPT = "(passkey)";

export function passkeyLoginRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const options = jsonContent(schemaRef(registry, "WebAuthnOptions", webauthnOptionsSchema));

  addRoute(
    app,
    {
      method: "post",
      path: "/passkeys/options",
      operationId: "passkeySignInOptions",
      security: PUBLIC,
      tags: ["auth"],
      summary: "Start signing in with a passkey: the options for navigator.credentials.get",
      description:
        "With `{}`: a passwordless sign-in, finished at POST /v1/token/passkey. With the `mfa_token` of POST /v1/token's 403: the second factor, finished at POST /v1/token/mfa with `webauthn`. The challenge works once, for 5 minutes.",
      request: {
        body: {
          required: false,
          content: jsonContent(
            schemaRef(registry, "PasskeyOptionsRequest", passkeyOptionsRequestSchema, "input"),
          ),
        },
      },
      responses: {
        200: { description: "WebAuthn's PublicKeyCredentialRequestOptionsJSON", content: options },
        ...errorResponses(registry, {
          400: `"${DETAIL.mfaStepExpired}": the mfa_token is unknown, used or expired`,
          422: "A malformed body",
          429: `"${DETAIL.tooManyRequests}", with Retry-After: more than 10 a minute from this address`,
        }),
      },
    },
    async (c) => {
      const body = await parseJsonBody(c, passkeyOptionsRequestSchema);
      await enforceLimits(deps.limiter, [["passkeyOptionsIp", clientIp(c, deps.trustProxy)]]);
      if (!body.mfa_token) return c.json(await deps.passkeys.authenticationOptions(), 200);
      const owner = await deps.twoFactor.challengeOwner(body.mfa_token);
      if (!owner) throw new ApiError(400, DETAIL.mfaStepExpired);
      return c.json(
        await deps.passkeys.authenticationOptions({ userId: owner.id, purpose: "second_factor" }),
        200,
      );
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/token/passkey",
      operationId: "loginWithPasskey",
      security: PUBLIC,
      tags: ["auth"],
      summary: "Log in with a passkey, without a password",
      request: {
        body: {
          content: jsonContent(schemaRef(registry, "PasskeyAssertion", passkeyAssertionSchema, "input")),
        },
      },
      responses: {
        200: {
          description: 'An access token whose `amr` is `["hwk"]`',
          content: jsonContent(schemaRef(registry, "TokenResponse", tokenResponseSchema)),
        },
        ...errorResponses(registry, {
          400: `"${DETAIL.passkeyNotAccepted}": an unknown passkey, a used or expired challenge, or an answer that does not verify`,
          403: `"${DETAIL.emailNotVerified}" or "${DETAIL.accountDisabled}"`,
          422: "A malformed body",
          429: `"${DETAIL.tooManyRequests}", with Retry-After: too many failed sign-ins from this address`,
        }),
      },
    },
    async (c) => {
      const body = await parseJsonBody(c, passkeyAssertionSchema);
      const admitted = await admitAttempt(deps, c, PASSKEY_ATTEMPT);
      const result = await deps.passkeys.verify(body.response, "sign_in");
      const user = result.ok ? await findUserById(deps.db, result.userId) : undefined;
      if (!user) {
        await recordFailedAttempt(deps, admitted, undefined, { step: "passkey" });
        throw new ApiError(400, DETAIL.passkeyNotAccepted);
      }
      await signInSucceeded(deps.limiter, admitted.attempt);
      if (!user.emailVerified) throw new ApiError(403, DETAIL.emailNotVerified);
      if (user.disabledAt !== null) throw new ApiError(403, DETAIL.accountDisabled);
      await recordSignIn(deps, admitted, user, { method: "passkey" });
      const issued = await deps.accessTokens.issue(user, { authTime: admitted.now, amr: ["hwk"] });
      return tokenAnswer(c, issued);
    },
  );
  return app;
}
