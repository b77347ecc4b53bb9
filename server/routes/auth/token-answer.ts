// The answer of every call that hands out an access token (login, its code step, re-authentication,
// two-factor setup): RFC 6749 5.1's shape, never cached.
import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env.ts";

export function tokenAnswer<E extends object>(
  c: Context<AppEnv>,
  issued: { token: string; expiresIn: number },
  extra?: E,
) {
  return c.json(
    { ...extra, access_token: issued.token, token_type: "bearer" as const, expires_in: issued.expiresIn },
    200,
    { "Cache-Control": "no-store", Pragma: "no-cache" },
  );
}
