// A stand-in for Stripe's API for tests: real Stripe cannot be reached from here (no network, no
// account), so the real `stripe` SDK is pointed (host/port/protocol) at a local node:http server
// that records every request and answers canned Stripe-shaped JSON (404 resource_missing for
// anything no route answers).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: URLSearchParams;
  /** Lower-case names, as Node gives them (Idempotency-Key is "idempotency-key"). */
  headers: Record<string, string | string[] | undefined>;
}

export type Answer = { status?: number; body: unknown };
export type Route = (req: RecordedRequest) => Answer | undefined;

export interface StripeStandIn {
  stripe: Stripe;
  requests: RecordedRequest[];
  /** Replaces the routes (and forgets the recorded requests). */
  reset(routes?: Route[]): void;
  setRoutes(routes: Route[]): void;
  close(): Promise<void>;
}

/** Answers `body` to `method path` (a RegExp matches the path). */
export const on =
  (method: string, path: string | RegExp, body: unknown): Route =>
  (req) =>
    req.method === method && (typeof path === "string" ? req.path === path : path.test(req.path))
      ? { body }
      : undefined;

/** `currentRoutes`: where the routes are read from on each request (default: what setRoutes set). */
export async function startStripeStandIn(currentRoutes?: () => Route[]): Promise<StripeStandIn> {
  const requests: RecordedRequest[] = [];
  let routes: Route[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => {
      raw += chunk.toString("utf8");
    });
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stand-in");
      const recorded = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        body: new URLSearchParams(raw),
        headers: req.headers,
      };
      requests.push(recorded);
      const answer = (currentRoutes ? currentRoutes() : routes).map((r) => r(recorded)).find(Boolean) ?? {
        status: 404,
        body: {
          error: { type: "invalid_request_error", code: "resource_missing", message: "No such thing" },
        },
      };
      res.writeHead(answer.status ?? 200, { "Content-Type": "application/json", "Request-Id": "req_test" });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const stripe = new Stripe("sk_test_standin", {
    host: "127.0.0.1",
    port,
    protocol: "http",
    maxNetworkRetries: 0,
    telemetry: false,
  });
  return {
    stripe,
    requests,
    reset(next = []) {
      requests.length = 0;
      routes = next;
    },
    setRoutes(next) {
      routes = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
