// The customer's API keys: create (the key is in this answer only), list, revoke. Only an access
// token from login manages keys: a program holding a key cannot make itself more keys.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  type ApiKey,
  apiKeyListSchema,
  type CreatedApiKey,
  createApiKeyRequestSchema,
  createdApiKeySchema,
  revokedKeysSchema,
} from "../../../contract/api-keys.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { createApiKey, listApiKeys, revokeAllApiKeys, revokeApiKey } from "../../api-access/api-keys.ts";
import { appendSecurityEvent } from "../../audit/security-events.ts";
import type { ApiKeyRow } from "../../db/schema/index.ts";
import { fromMillicredits, toMillicredits } from "../../domain/ledger.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, reauthRefusal, requireRecentAuth, requireUser } from "../../http/auth-guard.ts";
import { clientIp } from "../../http/client-ip.ts";
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
import { pathId } from "../../http/path-id.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";

const iso = (date: Date | null) => date?.toISOString() ?? null;

function keyFields(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    expires_at: iso(row.expiresAt),
    last_used_at: iso(row.lastUsedAt),
    monthly_credit_limit: row.monthlyCreditLimit === null ? null : fromMillicredits(row.monthlyCreditLimit),
    features: row.features,
  };
}

/** The security event of one key created or revoked by its owner: which key, never its secret. */
function keyEvent(
  c: Context<AppEnv>,
  action: "api_key.create" | "api_key.revoke",
  user: { id: string; username: string },
  key: Pick<ApiKeyRow, "id" | "prefix" | "name">,
  trustProxy: boolean,
) {
  return {
    action,
    userId: user.id,
    actorLabel: user.username,
    origin: originOf(c, trustProxy),
    details: { key_id: key.id, prefix: key.prefix, name: key.name },
  };
}

export function apiKeyRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  const security = SIGNED_IN;

  addRoute(
    app,
    {
      method: "post",
      path: "/api-keys",
      operationId: "createApiKey",
      tags: ["api keys"],
      summary: "Create an API key for a program (the key is shown in this answer only)",
      security,
      request: {
        body: {
          content: jsonContent(
            schemaRef(registry, "CreateApiKeyRequest", createApiKeyRequestSchema, "input"),
          ),
        },
      },
      responses: {
        201: {
          description: "The new key, with the key itself: store it now, it is never shown again",
          content: jsonContent(schemaRef(registry, "CreatedApiKey", createdApiKeySchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: reauthRefusal(registry, '"Email not verified", or '),
          409: "20 keys already: revoke one first",
          422: "Invalid body",
          429: "Too many signed-in writes",
        }),
      },
    },
    auth,
    requireRecentAuth(deps),
    limitWrites(deps.limiter),
    async (c) => {
      const user = c.var.user;
      if (!user.emailVerified) throw new ApiError(403, DETAIL.emailNotVerified);
      const body = await parseJsonBody(c, createApiKeyRequestSchema);
      const now = deps.clock.now();
      // The key and its security event commit together: no key the log does not know of.
      const result = await deps.db.transaction(async (tx) => {
        const created = await createApiKey(
          tx,
          user.id,
          {
            name: body.name,
            expiresInDays: body.expires_in_days ?? null,
            monthlyCreditLimit:
              body.monthly_credit_limit === undefined || body.monthly_credit_limit === null
                ? null
                : toMillicredits(body.monthly_credit_limit),
            features: body.features ?? null,
          },
          now,
        );
        if (created.ok) {
          await appendSecurityEvent(
            tx,
            keyEvent(c, "api_key.create", user, created.row, deps.trustProxy),
            now,
          );
        }
        return created;
      });
      if (!result.ok) {
        if (result.reason === "limit") throw new ApiError(409, DETAIL.apiKeyLimit);
        throw new ApiError(401, DETAIL.couldNotValidateCredentials);
      }
      deps.securityMails.apiKeyCreated(user, result.row, clientIp(c, deps.trustProxy));
      const answer: CreatedApiKey = { ...keyFields(result.row), key: result.key, last_used_at: null };
      return c.json(answer, 201);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/api-keys",
      operationId: "listApiKeys",
      tags: ["api keys"],
      summary: "The user's API keys, newest first (never the keys themselves)",
      security,
      responses: {
        200: {
          description: "Keys",
          content: jsonContent(schemaRef(registry, "ApiKeyList", apiKeyListSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    auth,
    async (c) => {
      const keys = await listApiKeys(deps.db, c.var.user.id, deps.clock.now());
      const data: ApiKey[] = keys.map(({ row, usedThisMonth }) => ({
        ...keyFields(row),
        credits_used_this_month: fromMillicredits(usedThisMonth),
      }));
      return c.json({ data }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "delete",
      path: "/api-keys/{id}",
      operationId: "revokeApiKey",
      tags: ["api keys"],
      summary: "Revoke an API key: it stops working on every instance at once",
      security,
      parameters: [pathParameter("id", "The key id (the `id` of the list)", PATH_IDS.apiKey)],
      responses: {
        204: { description: "Revoked" },
        ...errorResponses(registry, {
          401: "No valid access token",
          404: "No such key (also another user's key)",
        }),
      },
    },
    auth,
    async (c) => {
      const id = pathId(c, "id", "apiKey");
      const { user } = c.var;
      const now = deps.clock.now();
      const revoked = await deps.db.transaction(async (tx) => {
        const key = await revokeApiKey(tx, user.id, id, now);
        if (key)
          await appendSecurityEvent(tx, keyEvent(c, "api_key.revoke", user, key, deps.trustProxy), now);
        return key;
      });
      if (!revoked) throw new ApiError(404, DETAIL.apiKeyNotFound);
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/api-keys/revoke-all",
      operationId: "revokeAllApiKeys",
      tags: ["api keys"],
      summary: "Revoke every API key of the account at once (after a password reset, or a leak)",
      security,
      responses: {
        200: {
          description: "How many keys were revoked",
          content: jsonContent(schemaRef(registry, "RevokedKeys", revokedKeysSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    auth,
    async (c) => {
      const { user } = c.var;
      const now = deps.clock.now();
      const revoked = await deps.db.transaction(async (tx) => {
        const count = await revokeAllApiKeys(tx, user.id, now);
        await appendSecurityEvent(
          tx,
          {
            action: "api_keys.revoke_all",
            userId: user.id,
            actorLabel: user.username,
            origin: originOf(c, deps.trustProxy),
            details: { revoked: count },
          },
          now,
        );
        return count;
      });
      return c.json({ revoked }, 200);
    },
  );

  return app;
}
