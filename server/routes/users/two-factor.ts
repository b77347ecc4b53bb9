// Two-factor sign-in settings of the signed-in account (ACCOUNT-SECURITY.md): its state, the TOTP
// setup (a secret, then a code that proves the app has it, which turns two-factor on and answers the
// recovery codes), turning it off, and new recovery codes. Every change needs a password entered
// within 10 minutes, counts as a signed-in write, is audited and mailed about. Setting up an app
// on an account whose sign-in already asks for a second factor (a staff passkey) also needs a token
// that shows one, and its confirmation adds no factor to the token's amr there (decision 046).
import { OpenAPIHono } from "@hono/zod-openapi";
import { DETAIL } from "../../../contract/messages.ts";
import {
  mfaCodeBodySchema,
  mfaStatusSchema,
  recoveryCodesSchema,
  totpConfirmedSchema,
  totpSetupSchema,
} from "../../../contract/two-factor.ts";
import { WRONG_CODE_EVENT } from "../../accounts/two-factor.ts";
import { countedCodeCheck } from "../../auth/code-guessing.ts";
import type { AppEnv } from "../../http/app-env.ts";
import {
  addingFactor,
  limitWrites,
  reauthRefusal,
  requireRecentAuth,
  requireUser,
} from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  detailAnswer,
  errorResponses,
  jsonContent,
  SIGNED_IN,
  schemaRef,
} from "../../http/openapi.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { tokenAnswer } from "../auth/token-answer.ts";

const PATH = "/users/me/mfa";

export function twoFactorRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const security = SIGNED_IN;
  const sensitive = [requireUser(deps), requireRecentAuth(deps), limitWrites(deps.limiter)] as const;
  const adding = addingFactor(deps, registry);
  const codeBody = {
    body: { content: jsonContent(schemaRef(registry, "MfaCodeRequest", mfaCodeBodySchema, "input")) },
  };
  const refused = (
    reason: "incorrect" | "not_on" | "not_started" | "already_on" | "staff_last_factor" | "app_code_needed",
  ) => {
    if (reason === "incorrect") return new ApiError(400, DETAIL.incorrectCode);
    if (reason === "app_code_needed") return new ApiError(400, DETAIL.appCodeNeeded);
    if (reason === "staff_last_factor") return new ApiError(409, DETAIL.staffKeepSecondFactor);
    if (reason === "not_on") return new ApiError(409, DETAIL.mfaNotOn);
    if (reason === "not_started") return new ApiError(409, DETAIL.mfaNotStarted);
    return new ApiError(409, DETAIL.mfaAlreadyOn);
  };

  addRoute(
    app,
    {
      method: "get",
      path: PATH,
      operationId: "getTwoFactor",
      tags: ["two-factor"],
      summary: "Whether two-factor sign-in is on, and how many recovery codes are left",
      security,
      responses: {
        200: {
          description: "The account's two-factor state",
          content: jsonContent(schemaRef(registry, "MfaStatus", mfaStatusSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    requireUser(deps),
    async (c) => {
      const status = await deps.twoFactor.status(c.var.user.id);
      return c.json({ totp: status.totp, recovery_codes_left: status.recoveryCodesLeft }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: `${PATH}/totp`,
      operationId: "startTotpSetup",
      tags: ["two-factor"],
      summary: "Start setting up an authenticator app: a new secret and its otpauth:// URL",
      description:
        "Two-factor sign-in is not on until POST /v1/users/me/mfa/totp/confirm gets a code made from this secret. Calling this again replaces a setup that was not confirmed.",
      security,
      // Ordinary JSON clients send `{}` with a POST: the document allows it, and says it is ignored.
      request: {
        body: {
          required: false,
          content: {
            "application/json": {
              schema: {
                type: "object",
                description: "Ignored: no field is read. `{}` and no body at all are the same.",
              },
            },
          },
        },
      },
      responses: {
        201: {
          description: "The secret (Base32) and the URL its QR code holds",
          content: jsonContent(schemaRef(registry, "TotpSetup", totpSetupSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: adding.refusal,
          409: `"${DETAIL.mfaAlreadyOn}"`,
          429: "Too many signed-in writes",
        }),
      },
    },
    ...adding.guards,
    async (c) => {
      const started = await deps.twoFactor.begin(c.var.user);
      if (!started.ok) throw refused("already_on");
      return c.json({ secret: started.secret, otpauth_url: started.otpauthUrl }, 201);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: `${PATH}/totp/confirm`,
      operationId: "confirmTotpSetup",
      tags: ["two-factor"],
      summary: "Turn two-factor sign-in on with a code from the new authenticator app",
      description:
        'Answers the 10 recovery codes (shown this once) and a new access token; the token this is called with stops working. Where signing in asked for no second factor before (a customer, with or without a passkey; staff without one), the new token counts the code as one (`amr` `["pwd", "otp", "mfa"]`, what staff need for /v1/admin); on a staff account that had a passkey, it keeps the `amr` of the token this is called with.',
      security,
      request: codeBody,
      responses: {
        200: {
          description: "Two-factor sign-in is on",
          content: jsonContent(schemaRef(registry, "TotpConfirmed", totpConfirmedSchema)),
        },
        ...errorResponses(registry, {
          400: `"${DETAIL.incorrectCode}"`,
          401: "No valid access token",
          403: adding.refusal,
          409: `"${DETAIL.mfaNotStarted}" or "${DETAIL.mfaAlreadyOn}"`,
          422: "No code",
          429: "Too many signed-in writes",
        }),
      },
    },
    ...adding.guards,
    async (c) => {
      const { user, claims } = c.var;
      const body = await parseJsonBody(c, mfaCodeBodySchema);
      const origin = originOf(c, deps.trustProxy);
      const result = await deps.twoFactor.confirm(user, body.code, origin);
      if (!result.ok) throw refused(result.reason);
      const now = deps.clock.now();
      deps.securityMails.twoFactorChanged(user, true, now, origin.ip);
      // The code just given proves a second factor only where signing in asked for none before: on
      // a staff account with a passkey, whoever holds the token enrolled that app themselves
      // (decision 046). A customer's passkey is not asked for: their code counts, as ever.
      const issued = await deps.accessTokens.issue(user, {
        authTime: new Date(claims.auth_time * 1000),
        // What the token showed, with the code added: a sign-in by passkey claims no password.
        amr: result.signInAskedFactor ? claims.amr : [...new Set([...claims.amr, "otp", "mfa"] as const)],
      });
      await deps.db.transaction((tx) =>
        deps.revocations.revoke(tx, { jti: claims.jti, userId: user.id, exp: claims.exp }),
      );
      return tokenAnswer(c, issued, { recovery_codes: result.recoveryCodes });
    },
  );

  addRoute(
    app,
    {
      method: "delete",
      path: `${PATH}/totp`,
      operationId: "turnOffTwoFactor",
      tags: ["two-factor"],
      summary: "Turn two-factor sign-in off, with a code from the authenticator app or a recovery code",
      security,
      request: codeBody,
      responses: {
        200: detailAnswer(
          registry,
          `"${DETAIL.mfaTurnedOff}": the authenticator and the recovery codes are forgotten`,
        ),
        ...errorResponses(registry, {
          400: `"${DETAIL.incorrectCode}" (listed in the account's security events as \`${WRONG_CODE_EVENT.disable}\`)`,
          401: "No valid access token",
          403: reauthRefusal(registry),
          409: `"${DETAIL.mfaNotOn}", or "${DETAIL.staffKeepSecondFactor}" (a staff account's only second factor)`,
          422: "No code",
          429: `Too many signed-in writes, or "${DETAIL.tooManyWrongCodes}" (wrong codes count per account, as at sign-in)`,
        }),
      },
    },
    ...sensitive,
    async (c) => {
      const user = c.var.user;
      const body = await parseJsonBody(c, mfaCodeBodySchema);
      const origin = originOf(c, deps.trustProxy);
      const now = deps.clock.now();
      const result = await countedCodeCheck(
        deps.limiter,
        deps.codeGuessingAlert,
        { userId: user.id, at: now, ip: origin.ip },
        () => deps.twoFactor.disable(user, body.code, origin),
      );
      if (!result.ok) throw refused(result.reason);
      deps.securityMails.twoFactorChanged(user, false, now, origin.ip);
      return c.json({ detail: DETAIL.mfaTurnedOff }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: `${PATH}/recovery-codes`,
      operationId: "renewRecoveryCodes",
      tags: ["two-factor"],
      summary: "Ten new recovery codes for a code from the authenticator app; the old ones stop working",
      security,
      request: codeBody,
      responses: {
        200: {
          description: "The new codes, shown this once",
          content: jsonContent(schemaRef(registry, "RecoveryCodes", recoveryCodesSchema)),
        },
        ...errorResponses(registry, {
          400: `"${DETAIL.incorrectCode}" (listed in the account's security events as \`${WRONG_CODE_EVENT.renewRecoveryCodes}\`), or "${DETAIL.appCodeNeeded}" (a recovery code is not used up)`,
          401: "No valid access token",
          403: reauthRefusal(registry),
          409: `"${DETAIL.mfaNotOn}"`,
          422: "No code",
          429: `Too many signed-in writes, or "${DETAIL.tooManyWrongCodes}" (wrong codes count per account, as at sign-in)`,
        }),
      },
    },
    ...sensitive,
    async (c) => {
      const body = await parseJsonBody(c, mfaCodeBodySchema);
      const origin = originOf(c, deps.trustProxy);
      const user = c.var.user;
      const now = deps.clock.now();
      const result = await countedCodeCheck(
        deps.limiter,
        deps.codeGuessingAlert,
        { userId: user.id, at: now, ip: origin.ip },
        () => deps.twoFactor.renewRecoveryCodes(user, body.code, origin),
      );
      if (!result.ok) throw refused(result.reason);
      deps.securityMails.recoveryCodesRenewed(user, now, origin.ip);
      return c.json({ recovery_codes: result.recoveryCodes }, 200);
    },
  );
  return app;
}
