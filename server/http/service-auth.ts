// Authentication of the generation service by its service key (`Authorization: Bearer gsk_…`).
// Failed attempts are counted per client IP; once the count is spent, every wrong key from that
// address is a 429, so guessing keys gives no answer at all. A valid key is never refused for
// others' failures (ACCOUNT-SECURITY.md): behind a proxy without TRUST_PROXY, or a NAT, the
// generation service shares its address with whoever is guessing.
import type { Context, MiddlewareHandler } from "hono";
import { DETAIL } from "../../contract/messages.ts";
import type { LastUsed } from "../api-access/last-used.ts";
import type { ServiceKeyCheck, ServiceScope } from "../api-access/service-keys.ts";
import type { Clock } from "../clock.ts";
import type { AppEnv } from "./app-env.ts";
import { bearerToken } from "./auth-guard.ts";
import { clientIp } from "./client-ip.ts";
import { ApiError } from "./errors.ts";
import { type RateLimiter, tooManyRequests } from "./rate-limit.ts";

export interface ServiceAuthDeps {
  /** Checks a service key (cached for a second: api-access/service-keys.ts). */
  serviceKeys: ServiceKeyCheck;
  clock: Clock;
  limiter: RateLimiter;
  lastUsed: LastUsed;
  trustProxy: boolean;
}

/** Authenticates the service key of the request and puts it on `c.var.service`; 401, 403 or 429 otherwise. */
export async function authenticateService(
  deps: ServiceAuthDeps,
  c: Context<AppEnv>,
  scope: ServiceScope,
): Promise<void> {
  const token = bearerToken(c.req.header("authorization"));
  const key = token ? await deps.serviceKeys(token) : undefined;
  if (!key) {
    const ip = clientIp(c, deps.trustProxy);
    const blocked = await deps.limiter.check("serviceAuthFailureIp", ip);
    if (!blocked.allowed) throw tooManyRequests(blocked);
    await deps.limiter.consume("serviceAuthFailureIp", ip);
    throw new ApiError(401, DETAIL.invalidServiceKey, { "WWW-Authenticate": "Bearer" });
  }
  if (!key.scopes.includes(scope)) throw new ApiError(403, DETAIL.notEnoughPermissions);
  deps.lastUsed.touch("service", key.id, deps.clock.now());
  c.set("service", key);
}

export function requireService(deps: ServiceAuthDeps, scope: ServiceScope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await authenticateService(deps, c, scope);
    await next();
  };
}
