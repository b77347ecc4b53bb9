// Headers every answer carries. Pages get their own CSP from the build (server/site); everything
// else (JSON, assets) gets a policy that allows nothing, so a response rendered by mistake as a
// document cannot run or frame anything.
import type { MiddlewareHandler } from "hono";

export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export interface SecurityHeaderOptions {
  /** Trust `X-Forwarded-Proto` from a proxy in front of us when deciding whether we are on https. */
  trustProxy: boolean;
}

export function isHttps(url: string, forwardedProto: string | undefined, trustProxy: boolean): boolean {
  if (trustProxy && forwardedProto) return forwardedProto.split(",")[0]?.trim() === "https";
  return url.startsWith("https:");
}

export function securityHeaders(options: SecurityHeaderOptions): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "strict-origin-when-cross-origin");
    h.set("X-Frame-Options", "DENY");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    h.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
    if (!h.has("Content-Security-Policy")) h.set("Content-Security-Policy", API_CSP);
    if (isHttps(c.req.url, c.req.header("x-forwarded-proto"), options.trustProxy)) {
      h.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
    }
  };
}
