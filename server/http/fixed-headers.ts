// The headers every answer carries: the security headers, a CSP that allows nothing unless the
// route sends its own (pages get theirs from the build, server/site), HSTS on https, and for the
// /v1 API no caching and `Vary: Origin`. One function decides them for a request; they reach the
// answer in one of two ways, Node's response or the web Response (docs/decisions/035).
import {
  Server as HttpServer,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  ServerResponse,
} from "node:http";
import { serve } from "@hono/node-server";
import type { MiddlewareHandler } from "hono";
import { API_CSP, BASE_SECURITY_HEADERS } from "../../contract/site/security-headers.ts";

export interface FixedHeaderOptions {
  /** Trust `X-Forwarded-Proto` from a proxy in front of us when deciding whether we are on https. */
  trustProxy: boolean;
  /** The API's path prefix ("/v1"): its answers are not cached and vary by Origin. */
  apiPrefix: string;
}

export interface FixedHeaderRequest {
  url: string;
  /** The path Hono routes by. */
  path: string;
  forwardedProto: string | undefined;
  origin: string | undefined;
}

export interface FixedHeaders {
  /** Each set unless the route's answer has its own (a page's CSP, a route's Cache-Control). */
  defaults: readonly (readonly [string, string])[];
  /** Appended to the answer's own Vary, or its only value. */
  vary: string | undefined;
}

function isHttps(url: string, forwardedProto: string | undefined, trustProxy: boolean): boolean {
  if (trustProxy && forwardedProto) return forwardedProto.split(",")[0]?.trim() === "https";
  return url.startsWith("https:");
}

const HSTS = ["Strict-Transport-Security", "max-age=63072000; includeSubDomains"] as const;
const NO_STORE = ["Cache-Control", "no-store"] as const;
const EVERY_ANSWER = [
  ...Object.entries(BASE_SECURITY_HEADERS),
  ["Content-Security-Policy", API_CSP],
] as const;
// The four lists, built once: [https][api].
const DEFAULTS = [
  [EVERY_ANSWER, [...EVERY_ANSWER, NO_STORE]],
  [
    [...EVERY_ANSWER, HSTS],
    [...EVERY_ANSWER, HSTS, NO_STORE],
  ],
] as const;

/**
 * The fixed headers of the answer to `request`. An API request with an Origin is a cross-origin
 * one: Hono's cors (apiCors) sets its Vary itself. Matches the API's paths as Hono's `/v1/*`
 * does: the prefix itself and everything below it.
 */
export function fixedHeadersFor(request: FixedHeaderRequest, options: FixedHeaderOptions): FixedHeaders {
  const { path } = request;
  const prefix = options.apiPrefix;
  const api = path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === "/");
  const https = isHttps(request.url, request.forwardedProto, options.trustProxy);
  return {
    defaults: DEFAULTS[https ? 1 : 0][api ? 1 : 0],
    vary: api && request.origin === undefined ? "Origin" : undefined,
  };
}

/**
 * Node's response of a server started by `serveApp`. The fixed headers are set on it
 * before the route runs; the headers the route's answer carries reach `writeHead`, where Node lets
 * them win over those set before. Only Vary is merged, so that the route's own Vary is kept and
 * ours appended, as `Headers.append` does on the web path.
 */
export class FixedHeadersResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  #vary: string | undefined;

  fix(headers: FixedHeaders): void {
    for (const [name, value] of headers.defaults) this.setHeader(name, value);
    if (headers.vary !== undefined) this.setHeader("Vary", headers.vary);
    this.#vary = headers.vary;
  }

  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    if (typeof reasonOrHeaders === "string") {
      return super.writeHead(statusCode, reasonOrHeaders, withVary(headers, this.#vary));
    }
    return super.writeHead(statusCode, withVary(reasonOrHeaders, this.#vary));
  }
}

/**
 * A Vary value with `name` added unless it lists it already (names are case-insensitive) or is
 * `*`, which every name is part of: a route that varies by Origin itself says so once.
 */
function withVaryName(own: string, name: string): string {
  const listed = own.split(",").map((n) => n.trim().toLowerCase());
  return listed.includes("*") || listed.includes(name.toLowerCase()) ? own : `${own}, ${name}`;
}

/** `headers` with `vary` appended to their own Vary. A list (raw headers) is left as it is: the
 * Hono adapter always writes an object. */
function withVary<T extends OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined>(
  headers: T,
  vary: string | undefined,
): T {
  if (vary === undefined || headers === undefined || Array.isArray(headers)) return headers;
  for (const name in headers) {
    if (name.length !== 4 || name.toLowerCase() !== "vary") continue;
    const own = headers[name];
    return { ...headers, [name]: withVaryName(Array.isArray(own) ? own.join(", ") : String(own), vary) };
  }
  return headers;
}

/**
 * Sets the fixed headers of every answer. Served by `serveApp`, they go on Node's response before
 * the route runs, and the route's answer stays the adapter's light one: touching its headers after
 * the route makes the adapter build a web Headers and write through it, 6 µs of the 50 µs of CPU
 * a GET /healthz costs (decision 035). Otherwise (`app.request()` in tests) they go on the answer
 * after the route, with the same precedence: the route's own value wins, Vary is appended to.
 */
export function fixedHeaders(options: FixedHeaderOptions): MiddlewareHandler {
  return (c, next) => {
    const headers = fixedHeadersFor(
      {
        url: c.req.url,
        path: c.req.path,
        forwardedProto: c.req.header("x-forwarded-proto"),
        origin: c.req.header("origin"),
      },
      options,
    );
    const outgoing: unknown = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
    if (outgoing instanceof FixedHeadersResponse) {
      outgoing.fix(headers);
      return next();
    }
    return next().then(() => {
      const h = c.res.headers;
      for (const [name, value] of headers.defaults) if (!h.has(name)) h.set(name, value);
      const own = h.get("Vary");
      if (headers.vary !== undefined)
        h.set("Vary", own === null ? headers.vary : withVaryName(own, headers.vary));
    });
  };
}

/**
 * How long an idle kept-alive connection stays open. Node's 5 s default races clients that keep
 * theirs longer (load balancers, HTTP agents): a request sent as the server closes the socket
 * fails with "socket hang up", and a POST is not retried. Longer than the usual 60 s idle of a
 * load balancer, as Node's documentation advises behind one.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Serves the app as `serve()` of @hono/node-server does, with Node's responses made as
 * `FixedHeadersResponse`, which `fixedHeaders` sets its headers on before the route runs.
 */
export function serveApp(
  options: Pick<Parameters<typeof serve>[0], "fetch" | "port" | "hostname">,
  listening?: Parameters<typeof serve>[1],
): ReturnType<typeof serve> {
  const server = serve({ ...options, serverOptions: { ServerResponse: FixedHeadersResponse } }, listening);
  if (server instanceof HttpServer) {
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // Above keepAliveTimeout, as Node requires for the keep-alive timeout to apply.
    server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  }
  return server;
}
