// Bearer authentication and role checks. The token is only the key: the user, their role and their
// token version are read from the database on every request, so a password reset (version bump),
// a role change or a deleted account takes effect at once, whatever old tokens still say.
import type { MiddlewareHandler } from "hono";
import { DETAIL } from "../../contract/messages.ts";
import { findUserById } from "../accounts/users.ts";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Role } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import type { AppEnv } from "./app-env.ts";
import { ApiError } from "./errors.ts";

const UNAUTHORIZED = () =>
  new ApiError(401, DETAIL.couldNotValidateCredentials, { "WWW-Authenticate": "Bearer" });

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i);
  return match?.[1];
}

export function requireUser(deps: { db: Db; accessTokens: AccessTokens }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (!token) throw UNAUTHORIZED();
    const claims = await deps.accessTokens.verify(token);
    if (!claims) throw UNAUTHORIZED();
    const user = await findUserById(deps.db, claims.sub);
    if (!user || user.tokenVersion !== claims.ver) throw UNAUTHORIZED();
    c.set("user", user);
    await next();
  };
}

/** After requireUser: only the listed roles pass. */
export function requireRole(...roles: Role[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!roles.includes(c.var.user.role)) throw new ApiError(403, DETAIL.notEnoughPermissions);
    await next();
  };
}
