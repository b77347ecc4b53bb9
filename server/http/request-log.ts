// One log line per request: method, path, status, duration, client address (API calls at info,
// portal pages and assets at debug). Paths that carry a mailed token (the reset check call, the
// portal's link pages, the e-mail change and revert link /confirm-email/, an organisation's
// invitation) are logged without it, here and in the 500 handler's line (errors.ts).
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { clientIp } from "./client-ip.ts";

const TOKEN_PATHS = [
  "/v1/user/password-reset-check/",
  "/verify-email/",
  "/reset-password/",
  // The change link and the revert link share this path; either token takes over or keeps an account.
  "/confirm-email/",
  // An organisation's invitation: the call that reads or accepts it, and the portal's link page.
  "/v1/invitations/",
  "/invitations/",
];

export function redactPath(path: string): string {
  for (const prefix of TOKEN_PATHS) {
    if (path.startsWith(prefix) && path.length > prefix.length) return `${prefix}[redacted]`;
  }
  return path;
}

function isApiPath(path: string): boolean {
  return path.startsWith("/v1/") || path === "/v1" || path.startsWith("/_dev/") || path === "/healthz";
}

export function requestLog(logger: Logger, trustProxy: boolean): MiddlewareHandler {
  // The line below has a fixed shape that holds no secret (a mailed token in the path is cut by
  // redactPath), so it skips the logger's redaction: with its wildcard paths ("*.*.token") the
  // redaction walked every line's object, 50 µs a line against 4 µs without, a quarter of what
  // GET /healthz costs. Everything else logged keeps the redaction (server/logger.ts).
  const lines = logger.child({}, { redact: [] });
  return async (c, next) => {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const entry = {
      method: c.req.method,
      path: redactPath(c.req.path),
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      ip: clientIp(c, trustProxy),
    };
    if (status >= 500) lines.error(entry, "request");
    else if (isApiPath(c.req.path)) lines.info(entry, "request");
    // Portal pages and assets are many and uninteresting: visible at LOG_LEVEL=debug.
    else lines.debug(entry, "request");
  };
}
