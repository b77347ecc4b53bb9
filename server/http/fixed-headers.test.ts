// The fixed headers reach Node's response before the route runs when the app is served, and the
// web Response after it under app.request() (every API test): both must send the same headers,
// for every kind of answer (docs/decisions/035).

import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server as HttpServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { API_CSP } from "../../contract/site/security-headers.ts";
import { openTestDatabase, TEST_DATABASES, type TestDatabase } from "../../tests/fixtures/test-db.ts";
import { createApp } from "../app.ts";
import { API_PREFIX } from "../routes/v1.ts";
import { sitePage } from "../site/site.ts";
import { createTestApp, TEST_PORTAL_URL } from "../testing/test-app.ts";
import { MAX_BODY_BYTES } from "./api-middleware.ts";
import {
  type FixedHeaderRequest,
  FixedHeadersResponse,
  fixedHeaders,
  fixedHeadersFor,
  KEEP_ALIVE_TIMEOUT_MS,
  serveApp,
} from "./fixed-headers.ts";

const HSTS = "max-age=63072000; includeSubDomains";
const OPTIONS = { trustProxy: false, apiPrefix: API_PREFIX };

describe("fixedHeadersFor", () => {
  const request: FixedHeaderRequest = {
    url: "http://api.test/healthz",
    path: "/healthz",
    forwardedProto: undefined,
    origin: undefined,
  };
  const names = (trustProxy: boolean, over: Partial<FixedHeaderRequest>) =>
    fixedHeadersFor({ ...request, ...over }, { trustProxy, apiPrefix: API_PREFIX }).defaults.map(([n]) => n);

  it.each([
    { what: "plain http", trustProxy: false, over: {}, hsts: false },
    { what: "an https URL", trustProxy: false, over: { url: "https://api.test/healthz" }, hsts: true },
    { what: "a trusted proxy's https", trustProxy: true, over: { forwardedProto: "https" }, hsts: true },
    {
      what: "a trusted proxy chain, https first",
      trustProxy: true,
      over: { forwardedProto: "https, http" },
      hsts: true,
    },
    {
      what: "a proxy's https not trusted",
      trustProxy: false,
      over: { forwardedProto: "https" },
      hsts: false,
    },
    {
      what: "a trusted proxy's http over an https URL",
      trustProxy: true,
      over: { url: "https://api.test/healthz", forwardedProto: "http" },
      hsts: false,
    },
  ])("sends HSTS only on https: $what", ({ trustProxy, over, hsts }) => {
    expect(names(trustProxy, over).includes("Strict-Transport-Security")).toBe(hsts);
  });

  // The API's middleware is mounted on /v1/*: whatever Hono runs it for is an API answer here.
  const underApi = new Hono();
  underApi.use(`${API_PREFIX}/*`, async (c) => c.text("api"));
  underApi.all("*", (c) => c.text("other"));
  it.each([
    "/v1",
    "/v1/",
    "/v1/introspect",
    "/v1//introspect",
    "/v1x",
    "/v10/users",
    "/V1/users",
    "/",
    "/healthz",
    "/x/v1/users",
  ])("calls %s an API path exactly when Hono's /v1/* matches it", async (path) => {
    const hono = (await (await underApi.request(path)).text()) === "api";
    const fixed = fixedHeadersFor({ ...request, path }, OPTIONS);
    expect(fixed.vary === "Origin").toBe(hono);
    expect(fixed.defaults.some(([name]) => name === "Cache-Control")).toBe(hono);
  });

  it("leaves the Vary of a cross-origin API request to CORS", () => {
    const fixed = fixedHeadersFor({ ...request, path: "/v1/users/me", origin: TEST_PORTAL_URL }, OPTIONS);
    expect(fixed.vary).toBeUndefined();
    expect(fixed.defaults).toContainEqual(["Cache-Control", "no-store"]);
  });
});

// ---- the served answer against app.request()'s ----

/** Headers Node adds itself, or that differ with how the body travels. */
const TRANSPORT = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);

function comparable(headers: Iterable<[string, string | string[] | undefined]>): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (TRANSPORT.has(name) || value === undefined) continue;
    record[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return record;
}

interface Call {
  what: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Asked for on 127.0.0.1 rather than on PORTAL_URL's localhost: a page is redirected. */
  elsewhere?: true;
  status: number;
  /** Headers this answer must carry (beyond being the same on both paths); null: none. */
  expect: Record<string, string | null>;
}

interface Exchange {
  status: number;
  headers: Record<string, string>;
}

/** An app served the way server/main.ts serves one, built once its port is known. */
interface Served {
  port: number;
  app: Hono;
  close(): Promise<void>;
}

async function serveForTest(build: (port: number) => Hono | Promise<Hono>): Promise<Served> {
  let app: Hono | undefined;
  const server = serveApp({
    fetch: (request, env) => (app ? app.fetch(request, env) : new Response(null, { status: 503 })),
    port: 0,
    hostname: "127.0.0.1",
  });
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  app = await build(port);
  return { port, app, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function overHttp(port: number, host: string, call: Call): Promise<Exchange> {
  const options = { method: call.method, headers: { ...call.headers, Host: `${host}:${port}` } };
  return new Promise((resolve, reject) => {
    const req = httpRequest(`http://127.0.0.1:${port}${call.path}`, options, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: comparable(Object.entries(res.headers)) }),
      );
    });
    req.on("error", reject);
    req.end(call.body);
  });
}

const fix = vi.spyOn(FixedHeadersResponse.prototype, "fix");
// Server test files share their modules (vitest.config.ts): the next file's answers are not ours to count.
afterAll(() => fix.mockRestore());

/** `call` over HTTP and through app.request(): the same status and headers. Returns the served headers. */
async function expectSameAnswer(served: Served, call: Call): Promise<Record<string, string>> {
  const host = call.elsewhere ? "127.0.0.1" : "localhost";
  const before = fix.mock.calls.length;
  const overNode = await overHttp(served.port, host, call);
  // The fixed headers went on Node's response, not on the answer after the route.
  expect(fix.mock.calls.length).toBe(before + 1);
  const res = await served.app.request(`http://${host}:${served.port}${call.path}`, {
    method: call.method,
    headers: call.headers ?? {},
    body: call.body ?? null,
  });
  await res.arrayBuffer();
  expect(overNode.status).toBe(call.status);
  expect(overNode).toEqual({ status: res.status, headers: comparable(res.headers) });
  for (const [name, value] of Object.entries(call.expect)) expect(overNode.headers[name] ?? null).toBe(value);
  return overNode.headers;
}

const TOO_LARGE = JSON.stringify({ token: "x".repeat(MAX_BODY_BYTES) });
const HOME = "<!doctype html><title>Home</title>";
const PAGE_ETAG = sitePage(HOME).etag;

const NO_DOCUMENT = { "content-security-policy": API_CSP, "x-frame-options": "DENY" };
const API = { ...NO_DOCUMENT, "cache-control": "no-store", vary: "Origin" };

const CALLS: Call[] = [
  { what: "/healthz", method: "GET", path: "/healthz", status: 200, expect: { ...NO_DOCUMENT, vary: null } },
  {
    what: "/healthz behind an https proxy",
    method: "GET",
    path: "/healthz",
    headers: { "X-Forwarded-Proto": "https" },
    status: 200,
    expect: { "strict-transport-security": HSTS },
  },
  { what: "an API answer", method: "GET", path: "/v1/users/me", status: 401, expect: API },
  {
    what: "an API answer behind an https proxy",
    method: "GET",
    path: "/v1/users/me",
    headers: { "X-Forwarded-Proto": "https" },
    status: 401,
    expect: { ...API, "strict-transport-security": HSTS },
  },
  {
    what: "an API answer with its own Cache-Control",
    method: "GET",
    path: "/v1/subscription/products",
    status: 200,
    expect: { "cache-control": "public, max-age=300", vary: "Origin" },
  },
  {
    what: "an introspection",
    method: "POST",
    path: "/v1/introspect",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: "not-a-key" }),
    status: 401,
    expect: API,
  },
  {
    what: "a body too large (413)",
    method: "POST",
    path: "/v1/introspect",
    headers: { "Content-Type": "application/json" },
    body: TOO_LARGE,
    status: 413,
    expect: API,
  },
  {
    what: "the API's prefix itself",
    method: "GET",
    path: "/v1",
    status: 404,
    expect: API,
  },
  {
    what: "an unknown API route",
    method: "GET",
    path: "/v1/no-such-route",
    status: 404,
    expect: API,
  },
  {
    what: "an unknown API route for another method",
    method: "DELETE",
    path: "/v1/no-such-route",
    status: 404,
    expect: API,
  },
  { what: "the API documentation", method: "GET", path: "/v1/docs", status: 200, expect: { vary: "Origin" } },
  {
    what: "a CORS preflight from the portal",
    method: "OPTIONS",
    path: "/v1/users/me",
    headers: {
      Origin: TEST_PORTAL_URL,
      "Access-Control-Request-Method": "GET",
      "Access-Control-Request-Headers": "authorization",
    },
    status: 204,
    expect: {
      "access-control-allow-origin": TEST_PORTAL_URL,
      "cache-control": "no-store",
      vary: "Origin, Access-Control-Request-Headers",
    },
  },
  {
    what: "a CORS preflight from another origin",
    method: "OPTIONS",
    path: "/v1/users/me",
    headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
    status: 204,
    expect: { "access-control-allow-origin": null },
  },
  {
    what: "a cross-origin API call",
    method: "GET",
    path: "/v1/users/me",
    headers: { Origin: TEST_PORTAL_URL },
    status: 401,
    expect: { ...API, "access-control-allow-origin": TEST_PORTAL_URL },
  },
  { what: "OPTIONS without Origin", method: "OPTIONS", path: "/v1/users/me", status: 404, expect: API },
  {
    what: "a 500 in the API",
    method: "GET",
    path: "/v1/users/me",
    headers: { Authorization: "Bearer boom" },
    status: 500,
    expect: API,
  },
  {
    what: "a 500 elsewhere",
    method: "POST",
    path: "/boom",
    status: 500,
    expect: { ...NO_DOCUMENT, vary: null },
  },
  {
    what: "a page",
    method: "GET",
    path: "/",
    status: 200,
    expect: { "cache-control": "no-cache", vary: "Accept-Encoding" },
  },
  {
    what: "a page's HEAD",
    method: "HEAD",
    path: "/login",
    status: 200,
    expect: { "x-frame-options": "DENY" },
  },
  {
    what: "a page not modified",
    method: "GET",
    path: "/",
    headers: { "If-None-Match": PAGE_ETAG },
    status: 304,
    expect: { etag: PAGE_ETAG },
  },
  {
    what: "the 404 page",
    method: "GET",
    path: "/no-such-page",
    status: 404,
    expect: { "x-frame-options": "DENY" },
  },
  {
    what: "the 404 page for an encoded //host",
    method: "GET",
    path: "/%2F%2Fevil.example",
    status: 404,
    expect: { "x-content-type-options": "nosniff" },
  },
  {
    what: "a hashed asset",
    method: "GET",
    path: "/_astro/app.Ab12Cd34.js",
    status: 200,
    expect: { ...NO_DOCUMENT, "cache-control": "public, max-age=31536000, immutable" },
  },
  { what: "an asset", method: "GET", path: "/favicon.svg", status: 200, expect: NO_DOCUMENT },
  {
    what: "a page asked for on another loopback name (redirect)",
    method: "GET",
    path: "/login?next=%2Fprofile",
    elsewhere: true,
    status: 307,
    expect: { "x-frame-options": "DENY", "content-security-policy": API_CSP },
  },
  {
    what: "the development outbox",
    method: "GET",
    path: "/_dev/mail",
    status: 200,
    expect: { "cache-control": "no-store" },
  },
  {
    what: "the hosted checkout",
    method: "GET",
    path: "/_checkout/not-a-session",
    status: 404,
    expect: { "x-frame-options": "DENY" },
  },
  { what: "the JWKS", method: "GET", path: "/.well-known/jwks.json", status: 200, expect: NO_DOCUMENT },
];

describe("the served answer and app.request()'s, for every kind of answer", () => {
  // The headers do not depend on the database: the quickest one there is.
  const kind = TEST_DATABASES.at(-1) ?? "pglite";
  const distDir = mkdtempSync(join(tmpdir(), "fixed-headers-site-"));
  let database: TestDatabase | undefined;
  let served: Served | undefined;

  beforeAll(async () => {
    mkdirSync(join(distDir, "_astro"));
    writeFileSync(join(distDir, "_astro", "app.Ab12Cd34.js"), "console.log(1);\n");
    writeFileSync(join(distDir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>\n");
    const db = await openTestDatabase(kind);
    database = db;
    served = await serveForTest((port) => {
      const { deps } = createTestApp(db.db);
      return createApp({
        ...deps,
        // PORTAL_URL on localhost, so that a page asked for on 127.0.0.1 is redirected (server/site).
        config: { ...deps.config, portalUrl: `http://localhost:${port}` },
        site: {
          distDir,
          pages: new Map([
            ["/", sitePage(HOME)],
            ["/login", sitePage("<!doctype html><title>Log in</title><script>console.log(1)</script>")],
            ["/404", sitePage("<!doctype html><title>Not found</title>")],
          ]),
        },
        // A bug in the API (a 500) for one token.
        accessTokens: {
          ...deps.accessTokens,
          verify: (token) =>
            token === "boom"
              ? Promise.reject(new Error("a bug, on purpose"))
              : deps.accessTokens.verify(token),
        },
      }).post("/boom", () => {
        // POST: GET and HEAD of every path are the portal's.
        throw new Error("a bug, on purpose");
      });
    });
  });

  afterAll(async () => {
    await served?.close();
    await database?.close();
    rmSync(distDir, { recursive: true, force: true });
  });

  it.each(CALLS)("$what: $method $path", async (call) => {
    if (!served) throw new Error("not served");
    const headers = await expectSameAnswer(served, call);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["cross-origin-opener-policy"]).toBe("same-origin");
    expect(headers["permissions-policy"]).toBe("camera=(), microphone=(), geolocation=(), payment=()");
  });
});

describe("a route's own headers, served and under app.request()", () => {
  let served: Served | undefined;
  beforeAll(async () => {
    served = await serveForTest(() =>
      new Hono()
        .use("*", fixedHeaders(OPTIONS))
        .get("/v1/varied", (c) => c.json({}, 200, { Vary: "Accept-Encoding" }))
        .get(
          "/v1/varied-twice",
          () =>
            new Response("x", {
              headers: [
                ["Content-Type", "text/plain"],
                ["Vary", "Accept"],
                ["Vary", "Cookie"],
              ],
            }),
        )
        .get(
          "/v1/streamed",
          () =>
            new Response(new Blob(["x"]).stream(), {
              headers: new Headers({
                "Content-Type": "text/plain",
                vary: "Accept",
                "Cache-Control": "max-age=5",
              }),
            }),
        )
        .get("/v1/by-origin", (c) => c.json({}, 200, { Vary: "Accept, origin" }))
        .get("/v1/anything", (c) => c.json({}, 200, { Vary: "*" }))
        .get("/v1/empty", (c) => c.body(null, 204))
        .get("/own", (c) =>
          c.text("x", 200, {
            "X-Frame-Options": "SAMEORIGIN",
            "Content-Security-Policy": "default-src 'self'",
            "Cache-Control": "max-age=60",
          }),
        ),
    );
  });
  afterAll(() => served?.close());

  it.each<Call>([
    {
      what: "its Vary, Origin appended",
      method: "GET",
      path: "/v1/varied",
      status: 200,
      expect: { vary: "Accept-Encoding, Origin" },
    },
    {
      what: "its two Vary headers",
      method: "GET",
      path: "/v1/varied-twice",
      status: 200,
      expect: { vary: "Accept, Cookie, Origin" },
    },
    {
      what: "a Vary that names Origin already, naming it once",
      method: "GET",
      path: "/v1/by-origin",
      status: 200,
      expect: { vary: "Accept, origin" },
    },
    {
      what: "a Vary of *, which every name is part of",
      method: "GET",
      path: "/v1/anything",
      status: 200,
      expect: { vary: "*" },
    },
    {
      what: "a streamed body's headers",
      method: "GET",
      path: "/v1/streamed",
      status: 200,
      expect: { vary: "Accept, Origin", "cache-control": "max-age=5" },
    },
    {
      what: "no headers at all",
      method: "GET",
      path: "/v1/empty",
      status: 204,
      expect: { vary: "Origin", "cache-control": "no-store" },
    },
    {
      what: "its own values over the fixed ones",
      method: "GET",
      path: "/own",
      status: 200,
      expect: {
        "x-frame-options": "SAMEORIGIN",
        "content-security-policy": "default-src 'self'",
        "cache-control": "max-age=60",
      },
    },
  ])("keeps $what", async (call) => {
    if (!served) throw new Error("not served");
    await expectSameAnswer(served, call);
  });

  it("appends to a Vary written with a status message too", async () => {
    const server = createServer({ ServerResponse: FixedHeadersResponse }, (_req, res) => {
      res.fix(
        fixedHeadersFor(
          { url: "http://x/v1", path: "/v1", forwardedProto: undefined, origin: undefined },
          OPTIONS,
        ),
      );
      res.writeHead(200, "Fine", { Vary: "Accept" }).end();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const port = (server.address() as AddressInfo).port;
    const answer = await new Promise<{ message: string | undefined; vary: string | undefined }>(
      (resolve, reject) =>
        httpRequest(`http://127.0.0.1:${port}/v1`, (res) => {
          res.resume();
          resolve({ message: res.statusMessage, vary: res.headers.vary });
        })
          .on("error", reject)
          .end(),
    );
    server.close();
    expect(answer).toEqual({ message: "Fine", vary: "Accept, Origin" });
  });
});

describe("serveApp", () => {
  it("keeps an idle connection open longer than a load balancer's 60 s, so a request never meets its close", async () => {
    const server = serveApp({
      fetch: () => new Response("ok"),
      port: 0,
      hostname: "127.0.0.1",
    }) as HttpServer;
    await once(server, "listening");
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
    await new Promise((resolve) => server.close(resolve));
  });
});
