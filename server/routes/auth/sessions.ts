// POST /v1/logout and POST /v1/logout/all (ACCOUNT-SECURITY.md): signing out ends the token for
// real, not only in the browser that held it. One token: its id is revoked until it expires, on
// every instance at once (auth/token-revocations.ts). Everywhere: the account's token version goes
// up, which every request reads with the user, and a pending change of address ends.
import { OpenAPIHono } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { DETAIL } from "../../../contract/messages.ts";
import { endPendingEmailChanges } from "../../accounts/email-change.ts";
import { appendSecurityEvent } from "../../audit/security-events.ts";
import { users } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { addRoute, detailAnswer, errorResponses, SIGNED_IN } from "../../http/openapi.ts";
import { originOf } from "../../http/request-origin.ts";
import type { ApiDeps } from "../api-deps.ts";

export function sessionRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const security = SIGNED_IN;
  const done = (description: string) => detailAnswer(registry, description);

  addRoute(
    app,
    {
      method: "post",
      path: "/logout",
      operationId: "logout",
      tags: ["auth"],
      summary: "Sign out: the access token this call is made with stops working, on every instance",
      description:
        "The token is refused from then on (401) and introspects `{active: false}`. Other tokens of the account keep working; `/logout/all` ends them all.",
      security,
      responses: {
        200: done(`"${DETAIL.signedOut}"`),
        ...errorResponses(registry, { 401: "No valid access token (already signed out, expired, or none)" }),
      },
    },
    requireUser(deps),
    async (c) => {
      const { user, claims } = c.var;
      const now = deps.clock.now();
      await deps.db.transaction(async (tx) => {
        await deps.revocations.revoke(tx, { jti: claims.jti, userId: user.id, exp: claims.exp });
        await appendSecurityEvent(
          tx,
          {
            action: "session.logout",
            userId: user.id,
            actorLabel: user.username,
            origin: originOf(c, deps.trustProxy),
          },
          now,
        );
      });
      return c.json({ detail: DETAIL.signedOut }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/logout/all",
      operationId: "logoutEverywhere",
      tags: ["auth"],
      summary: "Sign out everywhere: every access token of the account stops working",
      description:
        "A pending change of the e-mail address ends too (its link answers 400); the old address's way back stays. API keys keep working: they are revoked one by one (or all at once) on the API keys page.",
      security,
      responses: {
        200: done(`"${DETAIL.signedOutEverywhere}"`),
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    requireUser(deps),
    async (c) => {
      const { user } = c.var;
      const now = deps.clock.now();
      await deps.db.transaction(async (tx) => {
        await tx
          .update(users)
          .set({ tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: now })
          .where(eq(users.id, user.id));
        // A change of address asked from one of those sessions may be an intruder's: it ends too.
        await endPendingEmailChanges(tx, user.id);
        await appendSecurityEvent(
          tx,
          {
            action: "session.logout_all",
            userId: user.id,
            actorLabel: user.username,
            origin: originOf(c, deps.trustProxy),
          },
          now,
        );
      });
      return c.json({ detail: DETAIL.signedOutEverywhere }, 200);
    },
  );
  return app;
}
