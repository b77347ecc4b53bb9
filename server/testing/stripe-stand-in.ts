// A stand-in for Stripe's API for tests: real Stripe cannot be reached from here (no network, no
// account), so the real `stripe` SDK is pointed (host/port/protocol) at a local node:http server
// that records every request and answers canned Stripe-shaped JSON (404 resource_missing for
// anything no route answers).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../tests/fixtures/test-db.ts";
import type { PaymentProvider } from "../billing/ports/payment-provider.ts";
import { customerStore } from "../billing/subscription-store.ts";
import { ManualClock } from "../clock.ts";
import { createStripeProvider } from "../payments/stripe/provider.ts";
import { TEST_WEBHOOK_SECRET } from "./test-app.ts";

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

export interface StripeAdapterContext {
  /** A new one after `unreachable`, as are `stripe` and `requests`. */
  readonly standIn: StripeStandIn;
  readonly stripe: Stripe;
  readonly requests: RecordedRequest[];
  database: TestDatabase;
  /** What the stand-in answers from; emptied before each test. */
  routes: Route[];
  clock: ManualClock;
  /** The Stripe adapter over the stand-in's SDK (the current one) and the customers' store. */
  provider(): PaymentProvider;
  /** Runs `during` with Stripe unreachable (the stand-in closed), then starts a new stand-in. */
  unreachable(during: () => Promise<void>): Promise<void>;
}

/**
 * Per-suite wiring for the Stripe adapter's tests: one stand-in and one PGlite database for the
 * suite, both emptied before each test (the suite's own beforeEach runs after, on empty tables).
 */
export function useStripeStandIn(): StripeAdapterContext {
  let standIn: StripeStandIn;
  const ctx = {
    get standIn() {
      return standIn;
    },
    get stripe() {
      return standIn.stripe;
    },
    get requests() {
      return standIn.requests;
    },
    routes: [] as Route[],
    clock: new ManualClock("2030-01-15T10:00:00.000Z"),
    provider: () =>
      createStripeProvider({
        stripe: standIn.stripe,
        clock: ctx.clock,
        webhookSecret: TEST_WEBHOOK_SECRET,
        customers: customerStore,
      }),
    async unreachable(during: () => Promise<void>) {
      await standIn.close();
      try {
        await during();
      } finally {
        standIn = await startStripeStandIn(() => ctx.routes);
      }
    },
  } as StripeAdapterContext;
  beforeAll(async () => {
    standIn = await startStripeStandIn(() => ctx.routes);
    ctx.database = await openTestDatabase("pglite");
  }, 60_000);
  afterAll(async () => {
    await standIn?.close();
    await ctx.database?.close();
  });
  beforeEach(async () => {
    standIn.reset();
    ctx.routes = [];
    await ctx.database.reset();
  });
  return ctx;
}
