// Figures shaped like a run's, for the budget and report tests.
import type { DatabaseApi, LoadFigures, MembershipCheckFigures, RouteFigures, RouteSpec } from "./api.ts";
import { latencyFigures } from "./auto-top-up.ts";
import { aggregateRuns, type LighthouseRun, type PageLighthouse } from "./lighthouse.ts";
import type { Machine } from "./machine.ts";
import type { PageWeight } from "./page-weight.ts";

export const MACHINE: Machine = {
  date: "2026-11-23T12:00:00.000Z",
  cpu: "AMD EPYC",
  cores: 2,
  memoryGiB: 23.5,
  os: "Linux 6",
  node: "v24.21.0",
  chromium: "Chromium 156",
  lighthouse: "13.5.0",
  autocannon: "9.0.0",
  loadAverage: 0.4,
};

const sizes = (gzip: number) => ({ raw: gzip * 3, gzip, brotli: Math.round(gzip * 0.86) });

export function weight(route: string, jsGzip: number, cssGzip = 18_500, ships = false): PageWeight {
  return {
    route,
    html: sizes(5_600),
    css: sizes(cssGzip),
    js: sizes(jsGzip),
    inlineJs: sizes(1_900),
    cssFiles: [{ path: "/_astro/site.css", sizes: sizes(cssGzip) }],
    jsFiles: [{ path: "/_astro/shell.js", sizes: sizes(jsGzip - 1_900) }],
    islands: [{ component: "AccountMenu", client: "idle", count: 2 }],
    staticParts: [{ part: "footer", count: 1, shipsJavaScript: ships }],
  };
}

export function run(overrides: Partial<LighthouseRun> = {}): LighthouseRun {
  return {
    performance: 100,
    accessibility: 100,
    bestPractices: 100,
    seo: 100,
    fcp: 800,
    lcp: 900,
    tbt: 10,
    speedIndex: 800,
    cls: 0,
    scriptTransfer: 70_000,
    stylesheetTransfer: 16_000,
    scriptPaths: ["/_astro/shell.js"],
    failedAudits: [],
    runWarnings: [],
    ...overrides,
  };
}

export const page = (route: string, runs: LighthouseRun[], loggedIn = false): PageLighthouse =>
  aggregateRuns(route, loggedIn, runs);

export function load(requestsPerSecond: number, p99 = 5): LoadFigures {
  return {
    requestsPerSecond,
    p50: 1,
    p99,
    max: p99 + 1,
    requests: requestsPerSecond * 10,
    non2xx: 0,
    errors: 0,
    statuses: { 200: requestsPerSecond * 10 },
  };
}

const route = (id: RouteSpec["id"]): RouteSpec => ({ id, label: id, method: "GET", path: `/${id}` });

/** A route measured in one round (the baseline's 10,000 requests/s being its ratio's reference). */
const measured = (id: RouteSpec["id"], figures: LoadFigures, ratio: number): RouteFigures => ({
  route: route(id),
  figures,
  ratio,
  rounds: [figures],
});

/** The organisations' routes (PostgreSQL): each round's consume rates, personal and organisation. */
export interface OrgFigures {
  personalRates: number[];
  orgRates: number[];
  consumeP99: number;
  meP99: number;
  membership: MembershipCheckFigures;
}

/** Auto top-up's figures: consume with it on, round by round, and the crossings' times. */
export interface AutoTopUpFigures {
  /** Each round's requests/s and p99 of consume with auto top-up on (consume's own: `personal`). */
  rates: number[];
  p99s: number[];
  personal: { rates: number[]; p99s: number[] };
  crossingsMs?: number[];
}

/** Round by round figures of one route: `rates` per round, the same p99 in each (or `p99s`). */
function inRounds(
  id: RouteSpec["id"],
  rates: readonly number[],
  p99: number,
  p99s?: readonly number[],
): RouteFigures {
  const rounds = rates.map((r, i) => load(r, p99s?.[i] ?? p99));
  const sorted = [...rates].sort((a, b) => a - b);
  const middle = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const p99Middle = p99s ? ([...p99s].sort((a, b) => a - b)[Math.floor(p99s.length / 2)] ?? p99) : p99;
  return { route: route(id), figures: load(middle, p99Middle), ratio: middle / 10_000, rounds };
}

export function database(
  kind: "PGlite" | "PostgreSQL",
  productsRatio: number,
  meRatio: number,
  meP99: number,
  service: { ratio: number; p99: number } = { ratio: 0.4, p99: 8 },
  usageP99 = 30,
  orgs?: OrgFigures,
  autoTopUp?: AutoTopUpFigures,
): DatabaseApi {
  const consume = autoTopUp
    ? inRounds("consume", autoTopUp.personal.rates, service.p99, autoTopUp.personal.p99s)
    : orgs
      ? inRounds("consume", orgs.personalRates, service.p99)
      : measured("consume", load(10_000 * service.ratio, service.p99), service.ratio);
  return {
    database: kind,
    routes: [
      measured("baseline", load(10_000), 1),
      measured("products", load(10_000 * productsRatio), productsRatio),
      measured("me", load(10_000 * meRatio), meRatio),
      ...(orgs ? [measured("me-org", load(10_000 * meRatio, orgs.meP99), meRatio)] : []),
      measured("token", load(60), 0.006),
      measured("introspect", load(10_000 * service.ratio, service.p99), service.ratio),
      consume,
      ...(orgs ? [inRounds("consume-org", orgs.orgRates, orgs.consumeP99)] : []),
      ...(autoTopUp ? [inRounds("consume-auto-top-up", autoTopUp.rates, 0, autoTopUp.p99s)] : []),
      measured("usage", load(500, usageP99), 0.05),
    ],
    ...(orgs ? { membership: orgs.membership } : {}),
    ...(autoTopUp?.crossingsMs ? { autoTopUp: latencyFigures(autoTopUp.crossingsMs, 3) } : {}),
    loginLoad: {
      logins: 20,
      probeRate: 50,
      idle: load(50, 3),
      underLoad: load(50, meP99),
      login: load(60, 300),
    },
  };
}

/** Each round's requests/s of a call and of its floor, and the call's p99 (the floor's: 4 ms). */
export interface FloorRounds {
  project: number[];
  floor: number[];
  p99?: number;
}

/**
 * `db` with floor routes (issue 35): each call given is measured in rounds beside its floor. The
 * call's route is replaced (or added), the floor's added after it.
 */
export function withFloors(
  db: DatabaseApi,
  calls: Partial<Record<"introspect" | "consume" | "consume-org", FloorRounds>>,
): DatabaseApi {
  if (!("routes" in db)) return db;
  const routes = [...db.routes];
  for (const [call, rounds] of Object.entries(calls) as [
    "introspect" | "consume" | "consume-org",
    FloorRounds,
  ][]) {
    const project = inRounds(call, rounds.project, rounds.p99 ?? 8);
    const at = routes.findIndex((r) => r.route.id === call);
    if (at >= 0) routes[at] = project;
    else routes.push(project);
    routes.push(inRounds(`floor-${call}`, rounds.floor, 4));
  }
  return { ...db, routes };
}
