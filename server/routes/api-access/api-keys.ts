// The customer's API keys: create (the key is in this answer only), list, revoke. Only an access
// token from login manages keys: a program holding a key cannot make itself more keys.
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, eq, inArray } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import {
  type ApiKey,
  apiKeyListSchema,
  type CreatedApiKey,
  createApiKeyRequestSchema,
  createdApiKeySchema,
  revokedKeysSchema,
} from "../../../contract/api-keys.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { can, type OrgRole } from "../../../contract/org-roles.ts";
import type { KeyScope } from "../../api-access/api-keys.ts";
import { createApiKey, listApiKeys, revokeAllApiKeys, revokeApiKey } from "../../api-access/api-keys.ts";
import { appendSecurityEvent } from "../../audit/security-events.ts";
import { endLeases } from "../../billing/credit-leases.ts";
import { type ApiKeyRow, organizationMembers, organizations, users } from "../../db/schema/index.ts";
import { fromMillicredits, toMillicredits } from "../../domain/ledger.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, reauthRefusal, requireRecentAuth, requireUser } from "../../http/auth-guard.ts";
import { clientIp } from "../../http/client-ip.ts";
import { ApiError, RequestValidationError } from "../../http/errors.ts";
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
import { type ActingOrg, actingOrg, requireOrgAbility } from "../../orgs/membership.ts";
import type { ApiDeps } from "../api-deps.ts";

/**
 * Which keys of the organisation a member sees and revokes (ORGANISATIONS.md's role table): owners
 * every key, managers every key but the shared ones, developers the keys they made; billing
 * members none (403 before this is asked).
 */
export function keyScopeOf(role: OrgRole, userId: string): KeyScope {
  if (can(role, "allKeys")) return can(role, "makeSharedKeys") ? { kind: "all" } : { kind: "not_shared" };
  return { kind: "own", userId };
}

/** The limit message of a refused creation: a personal account's words as before organisations. */
const limitMessage = (org: ActingOrg, reason: "limit" | "org_limit") =>
  reason === "org_limit"
    ? ORG_DETAIL.orgKeyLimit
    : org.personal
      ? DETAIL.apiKeyLimit
      : ORG_DETAIL.memberKeyLimit;

const iso = (date: Date | null) => date?.toISOString() ?? null;

function keyFields(row: ApiKeyRow) {
  return {
    shared: row.shared,
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
  org: ActingOrg,
) {
  return {
    action,
    userId: user.id,
    actorLabel: user.username,
    origin: originOf(c, trustProxy),
    // A team organisation's key names it (its activity log shows the event).
    ...(org.personal ? {} : { orgId: org.id }),
    details: {
      key_id: key.id,
      prefix: key.prefix,
      name: key.name,
      ...(org.personal ? {} : { org_id: org.id }),
    },
  };
}

/**
 * Each team organisation's owners are mailed the keys a member's "Revoke all" took from it
 * (ORGANISATIONS.md); a personal organisation's owner is the member, who knows.
 */
async function mailOwnersOfRevokedKeys(
  deps: ApiDeps,
  member: { id: string; username: string },
  keys: readonly Pick<ApiKeyRow, "name" | "prefix" | "userId">[],
): Promise<void> {
  const byOrg = Map.groupBy(
    keys.filter((k) => k.userId !== member.id),
    (k) => k.userId,
  );
  if (byOrg.size === 0) return;
  const owners = await deps.db
    .select({
      orgId: organizationMembers.orgId,
      email: users.email,
      username: users.username,
      orgName: organizations.name,
    })
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
    .where(and(inArray(organizationMembers.orgId, [...byOrg.keys()]), eq(organizationMembers.role, "owner")));
  for (const owner of owners) {
    if (owner.username === member.username) continue;
    deps.orgMails.keysRevokedByMember({
      to: owner.email,
      owner: owner.username,
      orgName: owner.orgName ?? "",
      member: member.username,
      keys: byOrg.get(owner.orgId) ?? [],
    });
  }
}

/**
 * 403 for a body asking a shared key where the caller may not make one (not an owner, or the
 * personal organisation). A middleware, so it answers before recent authentication is asked; the
 * body is read again (Hono keeps it) and checked in full by the route.
 */
const refusesSharedKeys = (org: AppEnv["Variables"]["org"]) =>
  org.personal || !can(org.role, "makeSharedKeys");

const refuseSharedKeyByRole: MiddlewareHandler<AppEnv> = async (c, next) => {
  const body: unknown = await c.req.json().catch(() => null);
  const asksShared = typeof body === "object" && body !== null && "shared" in body && body.shared === true;
  const { org } = c.var;
  if (asksShared && refusesSharedKeys(org)) {
    throw new ApiError(403, ORG_DETAIL.notAllowed);
  }
  await next();
};

export function apiKeyRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  // Every key call but revoke-all acts on the organisation of X-Organization.
  const inOrg = [auth, actingOrg(deps.db)] as const;
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
          403: reauthRefusal(
            registry,
            `"Email not verified", "${ORG_DETAIL.notAllowed}" (a billing member, or a shared key asked by a non-owner), or `,
          ),
          409: "20 keys of the member already, or 200 of the organisation: revoke one first",
          422: "Invalid body",
          429: "Too many signed-in writes",
        }),
      },
    },
    ...inOrg,
    requireOrgAbility("ownKeys"),
    // A shared key asked by a non-owner is refused before the password is: nobody is asked for
    // it for what their role can never do.
    refuseSharedKeyByRole,
    requireRecentAuth(deps),
    limitWrites(deps.limiter),
    async (c) => {
      const { user, org } = c.var;
      if (!user.emailVerified) throw new ApiError(403, DETAIL.emailNotVerified);
      const body = await parseJsonBody(c, createApiKeyRequestSchema);
      const shared = body.shared === true;
      // refuseSharedKeyByRole answered this before; said again on the parsed body, so that the
      // rule does not rest on one reading of it.
      if (shared && refusesSharedKeys(org)) throw new ApiError(403, ORG_DETAIL.notAllowed);
      if (shared && (body.monthly_credit_limit === undefined || body.monthly_credit_limit === null)) {
        throw new RequestValidationError([
          { loc: ["body", "monthly_credit_limit"], msg: ORG_DETAIL.sharedKeyNeedsLimit, type: "value_error" },
        ]);
      }
      const now = deps.clock.now();
      // The key and its security event commit together: no key the log does not know of.
      const result = await deps.db.transaction(async (tx) => {
        const created = await createApiKey(
          tx,
          { orgId: org.id, createdBy: user.id, shared },
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
            keyEvent(c, "api_key.create", user, created.row, deps.trustProxy, org),
            now,
          );
        }
        return created;
      });
      if (!result.ok) {
        if (result.reason === "no_user") throw new ApiError(404, ORG_DETAIL.notFound);
        if (result.reason === "not_allowed") throw new ApiError(403, ORG_DETAIL.notAllowed);
        throw new ApiError(409, limitMessage(org, result.reason));
      }
      deps.securityMails.apiKeyCreated(
        user,
        result.row,
        clientIp(c, deps.trustProxy),
        org.personal ? null : org.name,
      );
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
      summary:
        "The organisation's API keys the caller may see, newest first (never the keys themselves): an owner every key, a manager every key but the shared ones, a developer the keys they made",
      security,
      responses: {
        200: {
          description: "Keys",
          content: jsonContent(schemaRef(registry, "ApiKeyList", apiKeyListSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: `"${ORG_DETAIL.notAllowed}": a billing member has no keys`,
        }),
      },
    },
    ...inOrg,
    requireOrgAbility("ownKeys"),
    async (c) => {
      const { org, user } = c.var;
      const now = deps.clock.now();
      const keys = await listApiKeys(deps.db, org.id, now, { scope: keyScopeOf(org.role, user.id) });
      const data: ApiKey[] = keys.map(({ row, usedThisMonth, creator }) => ({
        ...keyFields(row),
        credits_used_this_month: fromMillicredits(usedThisMonth),
        created_by: { user_id: row.createdBy ?? row.userId, username: creator },
      }));
      return c.json({ data, as_of: now.toISOString() }, 200);
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
          403: `"${ORG_DETAIL.notAllowed}": a billing member has no keys`,
          404: `"${DETAIL.apiKeyNotFound}": no such key the caller may revoke in the organisation (another organisation's key too), or "${ORG_DETAIL.notFound}"`,
        }),
      },
    },
    ...inOrg,
    requireOrgAbility("ownKeys"),
    async (c) => {
      const id = pathId(c, "id", "apiKey");
      const { user, org } = c.var;
      const now = deps.clock.now();
      const revoked = await deps.db.transaction(async (tx) => {
        const key = await revokeApiKey(tx, org.id, id, now, keyScopeOf(org.role, user.id));
        if (key) {
          // In the revocation's transaction: no lease charges through the key once this answered.
          await endLeases(tx, { apiKeyId: key.id }, "key_changed");
          await appendSecurityEvent(tx, keyEvent(c, "api_key.revoke", user, key, deps.trustProxy, org), now);
        }
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
      summary:
        "Revoke every API key the account made, in every organisation, at once (after a password reset, or a leak); X-Organization is ignored",
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
      const { count, keys } = await deps.db.transaction(async (tx) => {
        const keys = await revokeAllApiKeys(tx, user.id, now);
        const count = keys.length;
        for (const id of keys.map((k) => k.id).sort()) await endLeases(tx, { apiKeyId: id }, "key_changed");
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
        return { count, keys };
      });
      await mailOwnersOfRevokedKeys(deps, user, keys);
      return c.json({ revoked: count }, 200);
    },
  );

  return app;
}
