// Middleware every /v1 answer goes through: CORS for the portal's origins and a body size limit.
// No caching and `Vary: Origin` are fixed headers (fixed-headers.ts).
import type { Context, MiddlewareHandler } from "hono";
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
  const crossOrigin = cors({
    origin: (origin) => (origins.includes(origin) ? origin : null),
    allowMethods: ["GET", "POST", "OPTIONS"],
    // X-Organization chooses the organisation a call acts on (ORGANISATIONS.md).
    allowHeaders: ["Authorization", "Content-Type", "X-Organization"],
    exposeHeaders: ["Retry-After", "WWW-Authenticate"],
    maxAge: 600,
  });
  // A request without Origin is not a cross-origin one (browsers send Origin with every CORS
  // request): the programs and the generation service calling the API. Hono's cors sets
  // Access-Control-Expose-Headers on every answer before the route runs, and a header set that
  // early makes the Node adapter turn the route's light answer into a full web Response with a
  // stream for a body: 8 % of an introspection's server time (decision 012). Such requests get
  // only the Vary that any cached answer needs, a fixed header (fixed-headers.ts, decision 035).
  return (c, next) => (c.req.header("origin") === undefined ? next() : crossOrigin(c, next));
}

const tooLarge = (c: Context) => c.json({ detail: DETAIL.bodyTooLarge }, 413);

const limitBody: MiddlewareHandler = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });

/**
 * The body size limit, for the methods that carry a body. Merely asking for the body makes the Node
 * adapter build a full web Request around the socket's stream (a tenth of what GET /v1/users/me
 * costs, docs/decisions/009), and a Request once built takes the body away from the adapter's
 * direct read, which `c.req.json()` and `parseBody` otherwise use. So: a GET or HEAD is passed
 * straight on; a body with a Content-Length (and no Transfer-Encoding) is judged by that header
 * alone, as Hono's bodyLimit does too, since Node's HTTP parser delivers exactly that many bytes;
 * only a chunked body is counted as it streams.
 */
export const apiBodyLimit: MiddlewareHandler = async (c, next) => {
  if (c.req.method === "GET" || c.req.method === "HEAD") return next();
  const length = c.req.header("content-length");
  if (length === undefined || c.req.header("transfer-encoding") !== undefined) return limitBody(c, next);
  return Number(length) > MAX_BODY_BYTES ? tooLarge(c) : next();
};
