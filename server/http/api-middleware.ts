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

export const apiBodyLimit: MiddlewareHandler = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => c.json({ detail: DETAIL.bodyTooLarge }, 413),
});

export const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
};
