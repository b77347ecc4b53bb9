// API throughput and latency with autocannon against the running server, and the event loop's
// responsiveness (GET /v1/users/me) while logins hash passwords.
import autocannon, { type Result } from "autocannon";
import { ORG_HEADER } from "../server/orgs/membership.ts";
import type { TopUpLatencyFigures } from "./auto-top-up.ts";
import type { SeededApiAccess, SeededOrgs, SeededUsage, SeededUser } from "./server.ts";
import { max, median } from "./stats.ts";

export interface LoadFigures {
  /** Mean completed requests per second over the run. */
  requestsPerSecond: number;
  /** Latency percentiles, milliseconds. */
  p50: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Answers per HTTP status. */
  statuses: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections (open model); unset: as fast as answers come. */
  overallRate?: number;
  /** A new body for every request (e.g. a fresh idempotency key); overrides `body`. */
  nextBody?: () => string;
}

export function figures(result: Result): LoadFigures {
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)]),
    ),
  };
}

/** "3 answers 429, 2 connection errors": what went wrong in a run, for the log and the report. */
export function failures(f: LoadFigures): string {
  const statuses = Object.entries(f.statuses)
    .filter(([code]) => !code.startsWith("2"))
    .map(([code, count]) => `${count} answers ${code}`);
  return (
    [...statuses, ...(f.errors > 0 ? [`${f.errors} connection errors or timeouts`] : [])].join(", ") || "none"
  );
}

export async function load(options: LoadOptions): Promise<LoadFigures> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "GET",
    connections: options.connections,
    duration: options.durationSeconds,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    ...(options.nextBody
      ? {
          requests: [
            {
              setupRequest: (req: Record<string, unknown>) => ({ ...req, body: options.nextBody?.() }),
            },
          ],
        }
      : {}),
  });
  return figures(result);
}

export interface RouteSpec {
  id:
    | "baseline"
    | "products"
    | "me"
    | "me-org"
    | "token"
    | "introspect"
    | "consume"
    | "consume-org"
    | "consume-auto-top-up"
    | "usage"
    | FloorId;
  label: string;
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  nextBody?: () => string;
  /** Concurrent connections for this route; default: the settings' connections. */
  connections?: number;
  /** Another server's origin (the floor app's); default: the benchmarked server's. */
  origin?: string;
}

/** The floor's calls (bench/floor/app.ts), each measured beside the project's call it is the floor of. */
export const FLOOR_OF = {
  introspect: "floor-introspect",
  consume: "floor-consume",
  "consume-org": "floor-consume-org",
} as const;
type FloorId = (typeof FLOOR_OF)[keyof typeof FLOOR_OF];

/** The same request as `route`, sent to the floor app: measured right before it (reversed in even rounds). */
function floorOf(route: RouteSpec & { id: keyof typeof FLOOR_OF }, origin: string): RouteSpec {
  return { ...route, id: FLOOR_OF[route.id], label: `floor: ${route.label}`, origin };
}

/**
 * The generation service's calls are budgeted at 20 concurrent requests (issue 12). Its charges come
 * from many customers at once; one user's charges take turns on their row lock (the balance must
 * never go below zero), so the consume benchmark charges the keys of this many users in turn.
 */
export const SERVICE_CONNECTIONS = 20;
export const CHARGED_CUSTOMERS = 20;

let chargeCounter = 0;

/** A charge of the next key in turn, with an idempotency key no other charge of the process uses. */
function chargeBody(keys: SeededApiAccess["keys"]): string {
  chargeCounter += 1;
  return JSON.stringify({
    api_key_id: keys[chargeCounter % keys.length]?.id,
    feature: "background-remover",
    people: "one",
    idempotency_key: `bench-${process.pid}-${chargeCounter}`,
  });
}

let introspectCounter = 0;

/**
 * An introspection of the next key in turn: the generation service asks about the keys of the
 * customers whose programs are running, each many times a second (every request they make).
 */
function introspectBody(keys: SeededApiAccess["keys"]): string {
  introspectCounter += 1;
  return new URLSearchParams({ token: keys[introspectCounter % keys.length]?.key ?? "" }).toString();
}

/**
 * The routes measured, the trivial JSON route first: the others are reported as a ratio of it. With
 * `orgs` (PostgreSQL only: their credits are written into its database), users/me with
 * X-Organization follows users/me, and consume through organisation keys follows consume. With
 * `autoTopUp` (the keys of customers whose auto top-up is on), consume through those comes next.
 */
export function apiRoutes(
  user: SeededUser,
  access?: SeededApiAccess,
  usage?: SeededUsage,
  orgs?: SeededOrgs,
  autoTopUp?: SeededApiAccess["keys"],
  floorOrigin?: string,
): RouteSpec[] {
  const history = usage
    ? ([
        {
          id: "usage",
          label: `GET /v1/usage (${usage.days} days by day, ${usage.charges.toLocaleString("en-US")} charges of the user)`,
          method: "GET",
          path: `/v1/usage?from=${usage.from}&to=${usage.to}&group_by=day`,
          headers: { Authorization: `Bearer ${usage.accessToken}` },
        },
      ] satisfies RouteSpec[])
    : [];
  const service = access
    ? ([
        {
          id: "introspect",
          label: `POST /v1/introspect (${access.keys.length} customers' keys in turn)`,
          method: "POST",
          path: "/v1/introspect",
          connections: SERVICE_CONNECTIONS,
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Authorization: `Bearer ${access.serviceKey}`,
          },
          nextBody: () => introspectBody(access.keys),
        },
        {
          id: "consume",
          label: `POST /v1/credits/consume (by feature, a new idempotency key each, ${access.keys.length} customers' keys in turn)`,
          method: "POST",
          path: "/v1/credits/consume",
          connections: SERVICE_CONNECTIONS,
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${access.serviceKey}` },
          nextBody: () => chargeBody(access.keys),
        },
        // Compared with consume in the same run (AUTO-TOP-UP.md "Budgets": unchanged, ±10 %), right
        // after it: apart, one of the two ran after a floor's writes and the other after reads in
        // every even round, and came out 30 % apart with the same code on a quiet machine.
        ...(autoTopUp
          ? ([
              {
                id: "consume-auto-top-up",
                label: `POST /v1/credits/consume with auto top-up on (threshold far below the balance: never charged; ${autoTopUp.length} customers' keys in turn)`,
                method: "POST",
                path: "/v1/credits/consume",
                connections: SERVICE_CONNECTIONS,
                headers: { "Content-Type": "application/json", Authorization: `Bearer ${access.serviceKey}` },
                nextBody: () => chargeBody(autoTopUp),
              },
            ] satisfies RouteSpec[])
          : []),
        // In consume's group too, so each round compares the two side by side.
        ...(orgs
          ? ([
              {
                id: "consume-org",
                label: `POST /v1/credits/consume through an organisation key with a member cap (${orgs.keys.length} team organisations' keys in turn)`,
                method: "POST",
                path: "/v1/credits/consume",
                connections: SERVICE_CONNECTIONS,
                headers: { "Content-Type": "application/json", Authorization: `Bearer ${access.serviceKey}` },
                nextBody: () => chargeBody(orgs.keys),
              },
            ] satisfies RouteSpec[])
          : []),
      ] satisfies RouteSpec[])
    : [];
  // The floor's call right before each project call it is the floor of (PostgreSQL only).
  const withFloors = floorOrigin
    ? service.flatMap((r): RouteSpec[] =>
        r.id === "introspect" || r.id === "consume" || r.id === "consume-org"
          ? [floorOf({ ...r, id: r.id }, floorOrigin), r]
          : [r],
      )
    : service;
  return [
    { id: "baseline", label: "GET /healthz (baseline: trivial JSON)", method: "GET", path: "/healthz" },
    {
      id: "products",
      label: "GET /v1/subscription/products",
      method: "GET",
      path: "/v1/subscription/products",
    },
    {
      id: "me",
      label: "GET /v1/users/me",
      method: "GET",
      path: "/v1/users/me",
      headers: { Authorization: `Bearer ${user.accessToken}` },
    },
    ...(orgs
      ? ([
          {
            id: "me-org",
            label: "GET /v1/users/me with X-Organization (a team organisation the user is a member of)",
            method: "GET",
            path: "/v1/users/me",
            headers: { Authorization: `Bearer ${user.accessToken}`, [ORG_HEADER]: orgs.orgId },
          },
        ] satisfies RouteSpec[])
      : []),
    {
      id: "token",
      label: "POST /v1/token (argon2id login)",
      method: "POST",
      path: "/v1/token",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "password",
        username: user.username,
        password: user.password,
      }).toString(),
    },
    ...withFloors,
    ...history,
  ];
}

export interface RouteFigures {
  route: RouteSpec;
  figures: LoadFigures;
  /** requestsPerSecond / the baseline's, from the same run. */
  ratio: number;
  /** Each round's figures, in order: two routes compare round by round (the organisation's consume with the personal one). */
  rounds: LoadFigures[];
}

export interface LoginLoadFigures {
  /** Concurrent login connections. */
  logins: number;
  /** The probe's rate, requests per second. */
  probeRate: number;
  /** GET /v1/users/me at the probe rate with nothing else running. */
  idle: LoadFigures;
  /** The same probe while the logins run. */
  underLoad: LoadFigures;
  /** The logins themselves. */
  login: LoadFigures;
}

export interface ApiSettings {
  connections: number;
  /** Seconds of each measurement of a route. */
  durationSeconds: number;
  /**
   * Rounds over the routes (baseline, products, users/me, token, introspect, consume, usage in turn):
   * drift hits all alike. Even (`roundsProblem`): each compared pair runs in both orders equally often.
   */
  rounds: number;
  warmupSeconds: number;
  logins: number;
  /** Seconds of the login load. */
  loginLoadSeconds: number;
  probeRate: number;
  /** Charges of the usage benchmark's user (issue 13's budget: 100,000 over 90 days). */
  usageCharges: number;
  /** Pairs of GET /v1/users/me, with and without X-Organization, timed one at a time (issue 33). */
  membershipPairs: number;
  /** Spends that cross an auto top-up threshold, each timed to the pack's credits (AUTO-TOP-UP.md: ≥ 20). */
  autoTopUpCrossings: number;
  /** CREDIT_LEASES as the server runs with it (decision 051; on by default, as in production). */
  creditLeases: boolean;
}

export const DEFAULT_API_SETTINGS: ApiSettings = {
  connections: 10,
  durationSeconds: 5,
  rounds: 4,
  warmupSeconds: 2,
  logins: 20,
  loginLoadSeconds: 10,
  probeRate: 50,
  usageCharges: 100_000,
  membershipPairs: 2_000,
  autoTopUpCrossings: 24,
  creditLeases: true,
};

const request = (origin: string, route: RouteSpec) => ({
  url: `${route.origin ?? origin}${route.path}`,
  method: route.method,
  ...(route.headers ? { headers: route.headers } : {}),
  ...(route.body !== undefined ? { body: route.body } : {}),
  ...(route.nextBody ? { nextBody: route.nextBody } : {}),
});

/**
 * The routes compared with another, round by round (their budgets are shares of it): each group is
 * the route named and those that name it. A floor joins its call's group right before the call, so
 * the two run back to back in every round, in the other order in even rounds.
 */
const COMPARED_WITH: Partial<Record<RouteSpec["id"], RouteSpec["id"]>> = {
  "me-org": "me",
  "consume-org": "consume",
  "consume-auto-top-up": "consume",
  "floor-introspect": "introspect",
  "floor-consume": "consume",
  "floor-consume-org": "consume",
};

/**
 * The routes in the order round `round` (from 1) runs them: each compared group (a route and those
 * compared with it, which follow it) side by side, the group's order reversed in every even round.
 * Whichever goes second inherits what the first left in the database (dead rows, a vacuum under
 * way): always the same one second made the organisation keys' consume look 10 to 16 % slower in
 * some runs and 3 % faster in others. In a group of three, each pair's order still flips.
 */
export function roundOrder(routes: readonly RouteSpec[], round: number): RouteSpec[] {
  const ordered = [...routes];
  if (round % 2 === 1) return ordered;
  for (const first of new Set(Object.values(COMPARED_WITH))) {
    const positions = ordered
      .map((r, i) => (r.id === first || COMPARED_WITH[r.id] === first ? i : -1))
      .filter((i) => i >= 0);
    if (positions.length < 2) continue;
    const group = positions.map((i) => ordered[i] as RouteSpec).reverse();
    positions.forEach((at, k) => {
      ordered[at] = group[k] as RouteSpec;
    });
  }
  return ordered;
}

/**
 * Why `rounds` cannot be used, or undefined. A compared pair (a call and its floor, consume and the
 * calls compared with it) swaps its order in every even round, because the second of the two runs
 * measures lower (decision 043). An odd number of rounds counts one order once more than the other,
 * and the median of three rounds then lands on that order's side: the floor's shares came out 5 to
 * 15 points under what the same code measured with the orders balanced.
 */
export function roundsProblem(rounds: number): string | undefined {
  if (!Number.isInteger(rounds) || rounds < 2) return "--rounds must be a whole number ≥ 2";
  if (rounds % 2 !== 0)
    return "--rounds must be even: each compared pair runs in both orders equally often (decision 043)";
  return undefined;
}

/** One route's rounds as one figure: medians of the rates and percentiles, totals of the counts. */
export function combineRounds(rounds: readonly LoadFigures[]): LoadFigures {
  const statuses: Record<string, number> = {};
  for (const r of rounds)
    for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  return {
    requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    max: max(rounds.map((r) => r.max)),
    requests: rounds.reduce((n, r) => n + r.requests, 0),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    statuses,
  };
}

/** The median over rounds of the route's requests/s divided by the baseline's in the same round. */
export function ratioOverRounds(route: readonly LoadFigures[], baseline: readonly LoadFigures[]): number {
  return median(route.map((r, i) => r.requestsPerSecond / (baseline[i]?.requestsPerSecond ?? Number.NaN)));
}

export async function measureRoutes(
  origin: string,
  user: SeededUser,
  settings: ApiSettings,
  log: (line: string) => void = () => {},
  access?: SeededApiAccess,
  usage?: SeededUsage,
  orgs?: SeededOrgs,
  autoTopUp?: SeededApiAccess["keys"],
  floorOrigin?: string,
): Promise<RouteFigures[]> {
  const routes = apiRoutes(user, access, usage, orgs, autoTopUp, floorOrigin);
  const options = (route: RouteSpec, durationSeconds: number) => ({
    ...request(origin, route),
    connections: route.connections ?? settings.connections,
    durationSeconds,
  });
  for (const route of routes) await load(options(route, settings.warmupSeconds));
  const rounds = new Map<RouteSpec["id"], LoadFigures[]>();
  for (let round = 1; round <= settings.rounds; round++) {
    for (const route of roundOrder(routes, round)) {
      const result = await load(options(route, settings.durationSeconds));
      rounds.set(route.id, [...(rounds.get(route.id) ?? []), result]);
      log(
        `  round ${round} ${route.label}: ${result.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${result.p50} ms, p99 ${result.p99} ms`,
      );
      if (result.non2xx > 0 || result.errors > 0) log(`    failed: ${failures(result)}`);
    }
  }
  const baseline = rounds.get("baseline") ?? [];
  return routes.map((route) => {
    const measured = rounds.get(route.id) ?? [];
    return {
      route,
      figures: combineRounds(measured),
      ratio: ratioOverRounds(measured, baseline),
      rounds: measured,
    };
  });
}

/** p99 of GET /v1/users/me at a steady rate, alone and then while `logins` connections log in. */
export async function measureLoginLoad(
  origin: string,
  user: SeededUser,
  settings: ApiSettings,
  log: (line: string) => void = () => {},
): Promise<LoginLoadFigures> {
  const routes = apiRoutes(user);
  const me = routes.find((r) => r.id === "me");
  const token = routes.find((r) => r.id === "token");
  if (!me || !token) throw new Error("apiRoutes() lost users/me or token");
  const probe = {
    ...request(origin, me),
    connections: 2,
    overallRate: settings.probeRate,
    durationSeconds: settings.loginLoadSeconds,
  };
  const idle = await load(probe);
  log(`  users/me at ${settings.probeRate}/s alone: p50 ${idle.p50} ms, p99 ${idle.p99} ms`);
  const logins = load({
    ...request(origin, token),
    connections: settings.logins,
    durationSeconds: settings.loginLoadSeconds + 2,
  });
  // Start the probe once the logins are under way, and stop it before they stop.
  await new Promise((r) => setTimeout(r, 1000));
  const underLoad = await load(probe);
  const login = await logins;
  log(
    `  users/me during ${settings.logins} concurrent logins: p50 ${underLoad.p50} ms, p99 ${underLoad.p99} ms` +
      ` (logins: ${login.requestsPerSecond.toFixed(1)}/s, p99 ${login.p99} ms)`,
  );
  for (const [name, f] of [
    ["users/me", underLoad],
    ["logins", login],
  ] as const) {
    if (f.non2xx > 0 || f.errors > 0) log(`    ${name} failed: ${failures(f)}`);
  }
  return { logins: settings.logins, probeRate: settings.probeRate, idle, underLoad, login };
}

/**
 * What X-Organization costs GET /v1/users/me: the membership check (one indexed read) and the
 * organisation's balance instead of the personal one. Milliseconds, with sub-millisecond resolution
 * (autocannon's percentiles are whole milliseconds, too coarse for a 1 ms budget).
 */
export interface MembershipCheckFigures {
  /** Pairs timed (one request with the header and one without, in alternating order). */
  pairs: number;
  /** Median latency without the header, and with it. */
  withoutMs: number;
  withMs: number;
}

/** The membership check's cost: the median with X-Organization minus the median without, same run. */
export const membershipCheckMs = (f: MembershipCheckFigures): number => f.withMs - f.withoutMs;

/** One request's latency, milliseconds, from sending it to the last byte of the answer. */
async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const start = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  const elapsed = performance.now() - start;
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return elapsed;
}

/**
 * GET /v1/users/me with and without X-Organization, one request at a time (no queueing: each
 * latency is the server's work and one round trip), the two alternating which goes first so that
 * drift and caching hit both alike. A tenth as many pairs first, untimed, to warm up.
 */
export async function measureMembershipCheck(
  origin: string,
  user: SeededUser,
  orgs: SeededOrgs,
  pairs: number,
  log: (line: string) => void = () => {},
): Promise<MembershipCheckFigures> {
  const url = `${origin}/v1/users/me`;
  const without = { Authorization: `Bearer ${user.accessToken}` };
  const withOrg = { ...without, [ORG_HEADER]: orgs.orgId };
  const withoutMs: number[] = [];
  const withMs: number[] = [];
  const warmup = Math.ceil(pairs / 10);
  for (let i = 0; i < warmup + pairs; i++) {
    const first = i % 2 === 0 ? withOrg : without;
    const second = first === withOrg ? without : withOrg;
    const a = await timed(url, first);
    const b = await timed(url, second);
    if (i < warmup) continue;
    (first === withOrg ? withMs : withoutMs).push(a);
    (second === withOrg ? withMs : withoutMs).push(b);
  }
  const figures = { pairs, withoutMs: median(withoutMs), withMs: median(withMs) };
  log(
    `  users/me one at a time, ${pairs} pairs: median ${figures.withoutMs.toFixed(3)} ms without X-Organization, ` +
      `${figures.withMs.toFixed(3)} ms with it (the check adds ${membershipCheckMs(figures).toFixed(3)} ms)`,
  );
  return figures;
}

export type DatabaseKind = "PGlite" | "PostgreSQL";

/** One database's API figures, or why it was not measured. */
export type DatabaseApi =
  | {
      database: DatabaseKind;
      routes: RouteFigures[];
      loginLoad: LoginLoadFigures;
      /** PostgreSQL only, like the organisations' routes. */
      membership?: MembershipCheckFigures;
      /** From a spend that crosses the auto top-up threshold to the pack's credits. */
      autoTopUp?: TopUpLatencyFigures;
    }
  | { database: DatabaseKind; skipped: string };
