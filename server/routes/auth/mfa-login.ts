// POST /v1/token/mfa (ACCOUNT-SECURITY.md): the second step of a sign-in whose password was right,
// for an account with two-factor sign-in on. The mfa_token of POST /v1/token's 403 and a code from
// the authenticator app, or a recovery code, answer the usual access token with amr
// ["pwd", "otp", "mfa"]. Each wrong code counts against the sign-in limits like a wrong password,
// and against the account's hourly count of wrong codes (auth/code-guessing.ts), and the step ends
// after 5 of them, 5 minutes, or one success.
import { OpenAPIHono } from "@hono/zod-openapi";
import { tokenResponseSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { codeRefusedSchema, mfaLoginSchema } from "../../../contract/two-factor.ts";
import { MFA_CHALLENGE_TRIES } from "../../accounts/two-factor.ts";
import { findUserById } from "../../accounts/users.ts";
import { admitCode, codeWasNoGuess, codeWasWrong } from "../../auth/code-guessing.ts";
import { signInSucceeded } from "../../auth/sign-in-throttle.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { ApiError } from "../../http/errors.ts";
import { addRoute, errorResponses, jsonContent, PUBLIC, schemaRef, withFields } from "../../http/openapi.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { admitAttempt, recordFailedAttempt, recordSignIn } from "./sign-in-attempts.ts";
import { tokenAnswer } from "./token-answer.ts";

const expired = () => new ApiError(400, DETAIL.mfaStepExpired);

export function mfaLoginRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "post",
      path: "/token/mfa",
      operationId: "loginSecondFactor",
      security: PUBLIC,
      tags: ["auth"],
      summary: "Log in, second step: the authenticator app's code, a recovery code, or a passkey",
      description: `For the \`mfa_token\` of POST /v1/token's 403 "${DETAIL.mfaRequired}". It works for 5 minutes, ${MFA_CHALLENGE_TRIES} wrong codes and one success. A recovery code works once and is mailed about.`,
      request: {
        body: { content: jsonContent(schemaRef(registry, "MfaLoginRequest", mfaLoginSchema, "input")) },
      },
      responses: {
        200: {
          description:
            'An access token whose `amr` is `["pwd", "otp", "mfa"]`, with `hwk` for `otp` after a passkey',
          content: jsonContent(schemaRef(registry, "TokenResponse", tokenResponseSchema)),
        },
        ...errorResponses(registry, {
          400: withFields(
            `"${DETAIL.incorrectCode}" or, for a passkey, "${DETAIL.passkeyNotAccepted}", with \`tries_left\` (CodeRefused); or "${DETAIL.mfaStepExpired}" when the mfa_token is unknown, used, older than 5 minutes or out of tries`,
            schemaRef(registry, "CodeRefused", codeRefusedSchema),
          ),
          403: `"${DETAIL.accountDisabled}"`,
          422: "No mfa_token or no code",
          429: `"${DETAIL.tooManyRequests}", with Retry-After: too many failed sign-ins from this address, or for this account from this address; or "${DETAIL.tooManyWrongCodes}", with Retry-After: the account's wrong second factors passed the hourly limit (RATE_LIMIT_MFA_FAILURES_PER_HOUR, 10 by default; its owner is mailed)`,
        }),
      },
    },
    async (c) => {
      const body = await parseJsonBody(c, mfaLoginSchema);
      const owner = await deps.twoFactor.challengeOwner(body.mfa_token);
      if (!owner) throw expired();
      const admitted = await admitAttempt(deps, c, owner.username);
      const codeAttempt = { userId: owner.id, at: admitted.now, ip: admitted.attempt.ip };
      await admitCode(deps.limiter, deps.codeGuessingAlert, codeAttempt);
      const proof = body.webauthn
        ? {
            passkeyVerified: (await deps.passkeys.verify(body.webauthn, "second_factor", owner.id)).ok,
          }
        : { code: body.code ?? "" };
      const result = await deps.twoFactor.completeChallenge(body.mfa_token, owner, proof, admitted.origin);
      if (!result.ok) {
        if (result.reason === "expired") {
          await codeWasNoGuess(deps.limiter, owner.id);
          throw expired();
        }
        await recordFailedAttempt(deps, admitted, owner, { step: "mfa" });
        await codeWasWrong(deps.limiter, deps.codeGuessingAlert, codeAttempt);
        const refusal = body.webauthn ? DETAIL.passkeyNotAccepted : DETAIL.incorrectCode;
        throw new ApiError(400, refusal, {}, { tries_left: result.triesLeft });
      }
      await signInSucceeded(deps.limiter, admitted.attempt);
      await codeWasNoGuess(deps.limiter, owner.id);
      const user = await findUserById(deps.db, result.userId);
      if (!user) throw expired();
      if (user.disabledAt !== null) throw new ApiError(403, DETAIL.accountDisabled);
      await recordSignIn(deps, admitted, user, { second_factor: result.method });
      if (result.method === "recovery_code") {
        deps.securityMails.recoveryCodeUsed(
          user,
          result.recoveryCodesLeft,
          admitted.now,
          admitted.attempt.ip,
        );
      }
      const issued = await deps.accessTokens.issue(user, {
        authTime: admitted.now,
        amr: result.method === "passkey" ? ["pwd", "hwk", "mfa"] : ["pwd", "otp", "mfa"],
      });
      deps.logger.info({ userId: user.id }, "Access token issued after a second factor");
      return tokenAnswer(c, issued);
    },
  );
  return app;
}
