// Middleware every /v1 answer goes through: CORS for the portal's origins, a body size limit and
// no caching of account data.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { DETAIL } from "../../contract/messages.ts";

/** Bigger than any account call needs; small enough that nobody can make us parse megabytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The portal may be served from a CDN on another origin. Only the configured origins may read
 * answers; no cookies are involved (the token travels in Authorization), so no credentials mode.
 */
export function apiCors(origins: string[]): MiddlewareHandler {
  return cors({
    origin: (origin) => (origins.includes(origin) ? origin : null),
    allowMethods: ["GET", "POST", "OPTIONS"],
    allowHeaders: ["Authorization", "Content-Type"],
    exposeHeaders: ["Retry-After", "WWW-Authenticate"],
    maxAge: 600,
  });
}

const limitBody: MiddlewareHandler = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => c.json({ detail: DETAIL.bodyTooLarge }, 413),
});

/**
 * The body size limit, for the methods that carry a body. A GET or HEAD is passed straight on:
 * merely asking for its (absent) body makes the Node adapter build a full Request, a tenth of what
 * GET /v1/users/me costs (docs/decisions/009).
 */
export const apiBodyLimit: MiddlewareHandler = (c, next) =>
  c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next);

export const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
};
