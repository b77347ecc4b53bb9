// POST /v1/users/me/password (ACCOUNT-SECURITY.md, /profile/security): a signed-in user changes
// their password by giving the current one, which counts like a sign-in (a wrong one is a failed
// attempt, limited per address). Every access token ends, the browser that asked gets a new one,
// and the owner is mailed, with the API keys that keep working. On an account with two-factor
// sign-in on, the current password alone is not enough (decision 023): the token must also be
// fresh (a sign-in with the code, or POST /v1/reauth with it), or a stolen session that learnt the
// password could take the account over with a new one. So on a staff account whose only second
// factor is a passkey, whose sign-in asks for it (decision 046).
import { OpenAPIHono } from "@hono/zod-openapi";
import { changePasswordSchema, tokenResponseSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { recordSecurityEvent } from "../../audit/security-events.ts";
import { signInSucceeded } from "../../auth/sign-in-throttle.ts";
import type { AppEnv } from "../../http/app-env.ts";
import {
  isRecentAuth,
  limitWrites,
  reauthRefusal,
  reauthRequired,
  requireUser,
} from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import { addRoute, errorResponses, jsonContent, SIGNED_IN, schemaRef } from "../../http/openapi.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { admitAttempt } from "../auth/sign-in-attempts.ts";
import { tokenAnswer } from "../auth/token-answer.ts";

/**
 * The security event of a wrong current password (its owner's /profile/security lists it). Not a
 * sign-in, so not `login.failed`: someone holding the owner's session tried to change the password,
 * named by the call as `mfa.disable_failed` is. It still counts against the sign-in's limits.
 */
export const WRONG_CURRENT_PASSWORD_EVENT = "password.change_failed";

export function passwordChangeRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "post",
      path: "/users/me/password",
      operationId: "changePassword",
      tags: ["account"],
      summary: "Change the password, with the current one",
      description:
        "Every access token of the account stops working (other browsers are signed out); the answer is a new token for the caller. API keys keep working, and the mail about the change lists them.",
      security: SIGNED_IN,
      request: {
        body: {
          content: jsonContent(schemaRef(registry, "ChangePasswordRequest", changePasswordSchema, "input")),
        },
      },
      responses: {
        200: {
          description: "The password is changed: a new access token",
          content: jsonContent(schemaRef(registry, "TokenResponse", tokenResponseSchema)),
        },
        ...errorResponses(registry, {
          400: `"${DETAIL.incorrectPassword}": the current password is wrong (listed in the account's security events as \`${WRONG_CURRENT_PASSWORD_EVENT}\`)`,
          401: "No valid access token",
          403: reauthRefusal(
            registry,
            "Only on an account with two-factor sign-in on, or a staff account whose only second factor is a passkey (decision 046): ",
          ),
          422: "The new password breaks a rule (the message says which), or a field is missing",
          429: `"${DETAIL.tooManyRequests}", with Retry-After: too many wrong passwords from this address, or too many writes`,
        }),
      },
    },
    requireUser(deps),
    limitWrites(deps.limiter),
    async (c) => {
      const { user, claims } = c.var;
      const body = await parseJsonBody(c, changePasswordSchema);
      if (!isRecentAuth(deps.clock, claims) && (await deps.twoFactor.reauthNeeds(user.id)) !== "password") {
        throw await reauthRequired(deps, user.id);
      }
      const admitted = await admitAttempt(deps, c, user.username);
      if (!(await deps.accounts.confirmPassword(user, body.current_password))) {
        const { origin, now } = admitted;
        await recordSecurityEvent(
          deps.db,
          { action: WRONG_CURRENT_PASSWORD_EVENT, userId: user.id, actorLabel: user.username, origin },
          now,
        );
        throw new ApiError(400, DETAIL.incorrectPassword);
      }
      await signInSucceeded(deps.limiter, admitted.attempt);
      const changed = await deps.accounts.changePassword(user.id, body.new_password, admitted.origin);
      const issued = await deps.accessTokens.issue(changed, { authTime: admitted.now, amr: claims.amr });
      return tokenAnswer(c, issued);
    },
  );
  return app;
}
