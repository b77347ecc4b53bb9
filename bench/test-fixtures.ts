// Figures shaped like a run's, for the budget and report tests.
import type { DatabaseApi, LoadFigures, RouteSpec } from "./api.ts";
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

export function database(
  kind: "PGlite" | "PostgreSQL",
  productsRatio: number,
  meRatio: number,
  meP99: number,
  service: { ratio: number; p99: number } = { ratio: 0.4, p99: 8 },
  usageP99 = 30,
): DatabaseApi {
  return {
    database: kind,
    routes: [
      { route: route("baseline"), figures: load(10_000), ratio: 1 },
      { route: route("products"), figures: load(10_000 * productsRatio), ratio: productsRatio },
      { route: route("me"), figures: load(10_000 * meRatio), ratio: meRatio },
      { route: route("token"), figures: load(60), ratio: 0.006 },
      {
        route: route("introspect"),
        figures: load(10_000 * service.ratio, service.p99),
        ratio: service.ratio,
      },
      { route: route("consume"), figures: load(10_000 * service.ratio, service.p99), ratio: service.ratio },
      { route: route("usage"), figures: load(500, usageP99), ratio: 0.05 },
    ],
    loginLoad: {
      logins: 20,
      probeRate: 50,
      idle: load(50, 3),
      underLoad: load(50, meP99),
      login: load(60, 300),
    },
  };
}
