// POST /v1/reauth (ACCOUNT-SECURITY.md): the password again, or a passkey, for a sensitive action.
// Answers a new access token whose auth_time is now (its amr unchanged); the token it was called
// with is signed out, so re-authenticating does not leave a second live token behind. A wrong
// password, a wrong code or a refused passkey counts against the sign-in limits like a failed
// sign-in. Re-authenticating is never weaker than signing in (decision 023): on an account with
// two-factor sign-in on, the password needs a code beside it, or a stolen session that learnt the
// password could add a passkey and sign in with it alone from then on. A staff account whose only
// second factor is a passkey signs in with it, so it answers here with the passkey alone (046).
import { OpenAPIHono } from "@hono/zod-openapi";
import { codeRequiredSchema, reauthSchema, tokenResponseSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { webauthnOptionsSchema } from "../../../contract/passkeys.ts";
import { appendSecurityEvent } from "../../audit/security-events.ts";
import { admitCode, codeWasNoGuess, codeWasWrong } from "../../auth/code-guessing.ts";
import { signInSucceeded } from "../../auth/sign-in-throttle.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, requireUser } from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  SIGNED_IN,
  schemaRef,
  withFields,
} from "../../http/openapi.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { admitAttempt, recordFailedAttempt } from "./sign-in-attempts.ts";
import { tokenAnswer } from "./token-answer.ts";

export function reauthRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;

  addRoute(
    app,
    {
      method: "post",
      path: "/reauth/passkey-options",
      operationId: "reauthPasskeyOptions",
      tags: ["auth"],
      summary: "Start confirming it is you with a passkey: the options for navigator.credentials.get",
      description:
        "Lists the account's own passkeys and asks the authenticator to check its owner (user verification). Finish at POST /v1/reauth with `webauthn`; the challenge works once, for 5 minutes.",
      security: SIGNED_IN,
      responses: {
        200: {
          description: "WebAuthn's PublicKeyCredentialRequestOptionsJSON",
          content: jsonContent(schemaRef(registry, "WebAuthnOptions", webauthnOptionsSchema)),
        },
        ...errorResponses(registry, {
          400: `"${DETAIL.noPasskey}"`,
          401: "No valid access token",
          429: "Too many signed-in writes",
        }),
      },
    },
    requireUser(deps),
    limitWrites(deps.limiter),
    async (c) => {
      const userId = c.var.user.id;
      if ((await deps.passkeys.list(userId)).length === 0) throw new ApiError(400, DETAIL.noPasskey);
      return c.json(await deps.passkeys.authenticationOptions({ userId, purpose: "reauth" }), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/reauth",
      operationId: "reauthenticate",
      tags: ["auth"],
      summary:
        "Confirm the password or a passkey: a new access token that counts as just signed in, for sensitive actions",
      description:
        "Creating an API key (and the other sensitive actions) answers 403 `reauth_required: true` when the password was entered more than 10 minutes ago; call this with `{password}` (and `code`, from the authenticator app or a recovery code, when that 403 said `code_required: true`), or with `{webauthn}` (the answer to POST /v1/reauth/passkey-options), then retry with the new token. The token this is called with stops working.",
      security: SIGNED_IN,
      request: {
        body: { content: jsonContent(schemaRef(registry, "ReauthRequest", reauthSchema, "input")) },
      },
      responses: {
        200: {
          description: "A new access token: `auth_time` now, `amr` as before",
          content: jsonContent(schemaRef(registry, "TokenResponse", tokenResponseSchema)),
        },
        ...errorResponses(registry, {
          400: withFields(
            `"${DETAIL.incorrectPassword}", "${DETAIL.incorrectCode}", "${DETAIL.passkeyNotConfirmed}", "${DETAIL.reauthPasskeyRequired}" (a password from a staff account whose only second factor is a passkey: its passkey answers, as at sign-in), or "${DETAIL.reauthCodeRequired}" with \`code_required: true\` (CodeRequired: a password without a code on an account with two-factor sign-in on)`,
            schemaRef(registry, "CodeRequired", codeRequiredSchema),
          ),
          401: "No valid access token",
          422: "Neither a password nor a passkey's answer, or both",
          429: `"${DETAIL.tooManyRequests}", with Retry-After: too many failed sign-ins from this address; or "${DETAIL.tooManyWrongCodes}": too many wrong codes for this account within the hour (the sign-in's code step counts the same)`,
        }),
      },
    },
    requireUser(deps),
    async (c) => {
      const { user, claims } = c.var;
      const body = await parseJsonBody(c, reauthSchema);
      // Asked before the password is checked: the answer says nothing about the password.
      const needs = body.webauthn ? undefined : await deps.twoFactor.reauthNeeds(user.id);
      // A staff account with a passkey alone signs in with the passkey: so it re-authenticates.
      if (needs === "passkey") throw new ApiError(400, DETAIL.reauthPasskeyRequired);
      const codeRequired = needs === "code";
      if (codeRequired && body.code === undefined) {
        throw new ApiError(400, DETAIL.reauthCodeRequired, {}, { code_required: true });
      }
      const admitted = await admitAttempt(deps, c, user.username);
      const { origin, now } = admitted;
      let secondFactor: string | undefined;
      if (body.webauthn) {
        if (!(await deps.passkeys.verify(body.webauthn, "reauth", user.id)).ok) {
          await recordFailedAttempt(deps, admitted, user, { step: "reauth", method: "passkey" });
          throw new ApiError(400, DETAIL.passkeyNotConfirmed);
        }
      } else if (!(await deps.accounts.confirmPassword(user, body.password ?? ""))) {
        await recordFailedAttempt(deps, admitted, user, { step: "reauth" });
        throw new ApiError(400, DETAIL.incorrectPassword);
      } else if (codeRequired) {
        // The same per-account count of wrong codes as the sign-in's code step: the per-address
        // limits alone let someone with the password and a stolen token guess from many addresses.
        const codeAttempt = { userId: user.id, at: now, ip: admitted.attempt.ip };
        await admitCode(deps.limiter, deps.codeGuessingAlert, codeAttempt);
        const spent = await deps.twoFactor.spendCode(user, body.code ?? "", origin);
        if (!spent) {
          await recordFailedAttempt(deps, admitted, user, { step: "reauth", method: "code" });
          await codeWasWrong(deps.limiter, deps.codeGuessingAlert, codeAttempt);
          throw new ApiError(400, DETAIL.incorrectCode);
        }
        await codeWasNoGuess(deps.limiter, user.id);
        secondFactor = spent.method;
        if (spent.method === "recovery_code") {
          deps.securityMails.recoveryCodeUsed(user, spent.recoveryCodesLeft, now, admitted.attempt.ip);
        }
      }
      await signInSucceeded(deps.limiter, admitted.attempt);
      const { token, expiresIn } = await deps.accessTokens.issue(user, { authTime: now, amr: claims.amr });
      await deps.db.transaction(async (tx) => {
        await deps.revocations.revoke(tx, { jti: claims.jti, userId: user.id, exp: claims.exp });
        await appendSecurityEvent(
          tx,
          {
            action: "session.reauth",
            userId: user.id,
            actorLabel: user.username,
            origin,
            details: {
              method: body.webauthn ? "passkey" : "password",
              ...(secondFactor ? { second_factor: secondFactor } : {}),
            },
          },
          now,
        );
      });
      return tokenAnswer(c, { token, expiresIn });
    },
  );
  return app;
}
