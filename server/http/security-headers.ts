// Headers every answer carries. Pages get their own CSP from the build (server/site); everything
// else (JSON, assets) gets a policy that allows nothing, so a response rendered by mistake as a
// document cannot run or frame anything.
import type { MiddlewareHandler } from "hono";
import { API_CSP, BASE_SECURITY_HEADERS } from "../../contract/site/security-headers.ts";

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
    for (const [name, value] of Object.entries(BASE_SECURITY_HEADERS)) h.set(name, value);
    if (!h.has("Content-Security-Policy")) h.set("Content-Security-Policy", API_CSP);
    if (isHttps(c.req.url, c.req.header("x-forwarded-proto"), options.trustProxy)) {
      h.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
    }
  };
}
