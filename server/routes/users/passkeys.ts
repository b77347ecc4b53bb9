// The account's passkeys (ACCOUNT-SECURITY.md, /profile/security): list them, add one (options for
// navigator.credentials.create, then the browser's answer with a name), remove one. Adding and
// removing need a password entered within 10 minutes, count as signed-in writes and are audited.
// Adding one to an account whose sign-in asks for a second factor also needs a token that shows
// one (decision 046).
import { OpenAPIHono } from "@hono/zod-openapi";
import { DETAIL } from "../../../contract/messages.ts";
import {
  addPasskeySchema,
  type Passkey,
  passkeyListSchema,
  passkeySchema,
  webauthnOptionsSchema,
} from "../../../contract/passkeys.ts";
import type { PasskeyRow } from "../../db/schema/index.ts";
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
  errorResponses,
  jsonContent,
  PATH_IDS,
  pathParameter,
  SIGNED_IN,
  schemaRef,
} from "../../http/openapi.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";

const PATH = "/users/me/passkeys";

const present = (row: PasskeyRow): Passkey => ({
  id: row.id,
  name: row.name,
  created_at: row.createdAt.toISOString(),
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
  backed_up: row.backedUp,
});

export function passkeyRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const security = SIGNED_IN;
  const sensitive = [requireUser(deps), requireRecentAuth(deps), limitWrites(deps.limiter)] as const;
  const adding = addingFactor(deps, registry);

  addRoute(
    app,
    {
      method: "get",
      path: PATH,
      operationId: "listPasskeys",
      tags: ["two-factor"],
      summary: "The account's passkeys, newest first",
      security,
      responses: {
        200: {
          description: "The passkeys (their public parts; the private keys never leave the authenticators)",
          content: jsonContent(schemaRef(registry, "PasskeyList", passkeyListSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    requireUser(deps),
    async (c) => c.json({ data: (await deps.passkeys.list(c.var.user.id)).map(present) }, 200),
  );

  addRoute(
    app,
    {
      method: "post",
      path: `${PATH}/options`,
      operationId: "passkeyRegistrationOptions",
      tags: ["two-factor"],
      summary: "Start adding a passkey: the options for navigator.credentials.create",
      security,
      responses: {
        200: {
          description:
            "WebAuthn's PublicKeyCredentialCreationOptionsJSON (the challenge works once, for 5 minutes)",
          content: jsonContent(schemaRef(registry, "WebAuthnOptions", webauthnOptionsSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: adding.refusal,
          429: "Too many signed-in writes",
        }),
      },
    },
    ...adding.guards,
    async (c) => c.json(await deps.passkeys.registrationOptions(c.var.user), 200),
  );

  addRoute(
    app,
    {
      method: "post",
      path: PATH,
      operationId: "addPasskey",
      tags: ["two-factor"],
      summary: "Add a passkey: the browser's answer to the options, and a name for it",
      security,
      request: {
        body: { content: jsonContent(schemaRef(registry, "AddPasskeyRequest", addPasskeySchema, "input")) },
      },
      responses: {
        201: {
          description: "The new passkey",
          content: jsonContent(schemaRef(registry, "Passkey", passkeySchema)),
        },
        ...errorResponses(registry, {
          400: `"${DETAIL.passkeyNotAccepted}": a used or expired challenge, or an answer that does not verify`,
          401: "No valid access token",
          403: adding.refusal,
          409: `"${DETAIL.passkeyExists}" or "${DETAIL.passkeyLimit}"`,
          422: "No name, or a malformed answer",
          429: "Too many signed-in writes",
        }),
      },
    },
    ...adding.guards,
    async (c) => {
      const body = await parseJsonBody(c, addPasskeySchema);
      const origin = originOf(c, deps.trustProxy);
      const result = await deps.passkeys.add(c.var.user, body.name, body.response, origin);
      if (!result.ok) {
        if (result.reason === "duplicate") throw new ApiError(409, DETAIL.passkeyExists);
        if (result.reason === "limit") throw new ApiError(409, DETAIL.passkeyLimit);
        throw new ApiError(400, DETAIL.passkeyNotAccepted);
      }
      const { name, createdAt } = result.passkey;
      deps.securityMails.passkeyChanged(c.var.user, { name, added: true }, createdAt, origin.ip);
      return c.json(present(result.passkey), 201);
    },
  );

  addRoute(
    app,
    {
      method: "delete",
      path: `${PATH}/{id}`,
      operationId: "removePasskey",
      tags: ["two-factor"],
      summary: "Remove a passkey: it no longer signs in",
      security,
      parameters: [pathParameter("id", "The passkey's id (the `id` of the list)", PATH_IDS.passkey)],
      responses: {
        204: { description: "Removed" },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: reauthRefusal(registry),
          404: `"${DETAIL.passkeyNotFound}" (also another account's)`,
          409: `"${DETAIL.staffKeepSecondFactor}" (a staff account's only second factor)`,
          429: "Too many signed-in writes",
        }),
      },
    },
    ...sensitive,
    async (c) => {
      const origin = originOf(c, deps.trustProxy);
      const removed = await deps.passkeys.remove(c.var.user, c.req.param("id") ?? "", origin);
      if (!removed) throw new ApiError(404, DETAIL.passkeyNotFound);
      if (removed === "staff_last_factor") throw new ApiError(409, DETAIL.staffKeepSecondFactor);
      const change = { name: removed.name, added: false };
      deps.securityMails.passkeyChanged(c.var.user, change, deps.clock.now(), origin.ip);
      return c.body(null, 204);
    },
  );
  return app;
}
