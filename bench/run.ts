// `npm run bench`: measures the built portal and the running server on this machine and writes
// docs/benchmarks.md (page weight, Lighthouse, API throughput and latency, the event loop under
// login load, each budget's verdict). Not part of `npm test`: it takes minutes and its figures
// depend on the machine.
//
//   npm run bench                          everything, written to docs/benchmarks.md
//   npm run bench -- --only=weight         one or more sections (weight, lighthouse, api), printed
//   npm run bench -- --runs=5 --duration=20 --out=/tmp/bench.md
//   npm run bench -- --only=lighthouse --pages=/plans,/profile
//
// Options (`npm run bench -- --help` prints them): --only=<sections> --runs=<Lighthouse runs per page, 10> --pages=<routes Lighthouse audits>
// --duration=<seconds per API run, 5>
// --dist=<another build to measure, e.g. an older commit's, for a side-by-side comparison>
// --rounds=<API rounds over the routes, even, 4> --usage-charges=<the usage benchmark user's charges, 100000>
// --out=<file> --postgres=<admin URL, postgres://postgres@127.0.0.1:5432/postgres> --no-postgres --no-pglite
// --lhr-dir=<folder for every Lighthouse run's full JSON result, to see which element or task>
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { buildIfStale } from "../scripts/build-if-stale.ts";
import {
  type ApiSettings,
  CHARGED_CUSTOMERS,
  type DatabaseApi,
  type DatabaseKind,
  DEFAULT_API_SETTINGS,
  measureLoginLoad,
  measureMembershipCheck,
  measureRoutes,
  roundsProblem,
} from "./api.ts";
import {
  CONSUME_THRESHOLD,
  crossingOrgsFor,
  measureTopUpLatency,
  seedCrossingOrgs,
  setUpAutoTopUp,
} from "./auto-top-up.ts";
import {
  apiChecks,
  type BudgetCheck,
  consoleChecks,
  lighthouseChecks,
  pageWeightChecks,
  summariseBudgets,
  USAGE_PAGE,
} from "./budgets.ts";
import { type ConsoleFigures, consoleMarkdown, measureConsole } from "./console.ts";
import { EXPLANATIONS, MEASURES } from "./explanations.ts";
import { aggregateRuns, audit, type LighthouseRun, type PageLighthouse } from "./lighthouse.ts";
import { describeMachine, loadAverageNow } from "./machine.ts";
import { measureDist, type PageWeight } from "./page-weight.ts";
import { createTempDatabase, DEFAULT_ADMIN_URL, grantCredits } from "./postgres.ts";
import { renderReport } from "./report.ts";
import {
  createApiKeys,
  createServiceKey,
  type RunningServer,
  SERVER_SETTINGS,
  type SeededUser,
  seedApiAccess,
  seedOrgs,
  seedUsageHistory,
  seedUser,
  startFloor,
  startServer,
} from "./server.ts";
import { kb } from "./sizes.ts";

const SECTIONS = ["weight", "lighthouse", "api", "console"] as const;
type Section = (typeof SECTIONS)[number];

/** The pages Lighthouse audits; /profile logged in as the seeded user. */
export const LIGHTHOUSE_PAGES: readonly { route: string; loggedIn: boolean }[] = [
  { route: "/", loggedIn: false },
  { route: "/plans", loggedIn: false },
  { route: "/login", loggedIn: false },
  { route: "/register", loggedIn: false },
  { route: "/profile", loggedIn: true },
  { route: USAGE_PAGE, loggedIn: true },
  { route: "/profile/billing", loggedIn: true },
];

/** The logged-in user's history for the Lighthouse runs: 30 days of a busy account's generations. */
const LIGHTHOUSE_USAGE = { charges: 1200, days: 30 };

const log = (line: string) => console.log(line);

/** The usage benchmark's history (issue 13): its charges (ApiSettings.usageCharges) span 90 days. */
const USAGE_DAYS = 90;

/** `npm run bench -- --help`: every option, and what the PostgreSQL sections need (also in the README). */
const BENCH_HELP = `npm run bench [-- options]   measure this machine; writes docs/benchmarks.md

Sections (all by default): weight, lighthouse, api, console
  --only=<a,b>          only these sections; the report is printed, not written (unless --out)
  --pages=<routes>      the pages Lighthouse audits (${LIGHTHOUSE_PAGES.map((p) => p.route).join(", ")})
  --runs=<n>            Lighthouse runs per page (10: a page is judged by every run, not one median)
  --lhr-dir=<folder>    keep every Lighthouse run's full JSON result
  --duration=<s>        seconds per API measurement (${DEFAULT_API_SETTINGS.durationSeconds})
  --rounds=<n>          API rounds over the routes, even (${DEFAULT_API_SETTINGS.rounds})
  --usage-charges=<n>   charges of the usage benchmark's user (${DEFAULT_API_SETTINGS.usageCharges})
  --dist=<folder>       measure another build (e.g. an older commit's) for a comparison
  --no-credit-leases    start the server with CREDIT_LEASES off (decision 051; on by default)
  --out=<file>          where the report goes (docs/benchmarks.md for a full run)

PostgreSQL (the api section measures it beside PGlite; the console section needs it):
  --postgres=<url>      an admin connection, default $BENCH_POSTGRES_URL or ${DEFAULT_ADMIN_URL}
  --no-postgres         PGlite only (the console section then refuses to run)
  --no-pglite           the api section on PostgreSQL only (the organisations' routes are measured
                        there only: their credits are written into its database)
  The role in that URL must be allowed to CREATE DATABASE: each run creates bench_<random>, fills
  it, and drops it at the end (DROP ... WITH (FORCE): its owner or a superuser). When no server
  answers there, the api section says so and measures PGlite only.
`;

function options() {
  const { values } = parseArgs({
    options: {
      help: { type: "boolean", short: "h", default: false },
      only: { type: "string" },
      // Lighthouse on two cores is noisy: a page is judged by the spread of ten runs, not one median.
      runs: { type: "string", default: "10" },
      pages: { type: "string" },
      duration: { type: "string", default: String(DEFAULT_API_SETTINGS.durationSeconds) },
      rounds: { type: "string", default: String(DEFAULT_API_SETTINGS.rounds) },
      "usage-charges": { type: "string", default: String(DEFAULT_API_SETTINGS.usageCharges) },
      out: { type: "string" },
      postgres: { type: "string", default: process.env.BENCH_POSTGRES_URL || DEFAULT_ADMIN_URL },
      "no-postgres": { type: "boolean", default: false },
      "no-pglite": { type: "boolean", default: false },
      "lhr-dir": { type: "string" },
      dist: { type: "string" },
      "no-credit-leases": { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(BENCH_HELP);
    process.exit(0);
  }
  const only = values.only?.split(",").map((s) => s.trim()) ?? [...SECTIONS];
  const unknown = only.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw new Error(`--only: unknown section ${unknown.join(", ")} (${SECTIONS.join(", ")})`);
  const runs = Number(values.runs);
  const duration = Number(values.duration);
  const rounds = Number(values.rounds);
  const usageCharges = Number(values["usage-charges"]);
  if (!Number.isInteger(usageCharges) || usageCharges < 1)
    throw new Error("--usage-charges must be a whole number ≥ 1");
  const roundsRefused = roundsProblem(rounds);
  if (roundsRefused) throw new Error(roundsRefused);
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a whole number ≥ 1");
  if (!Number.isFinite(duration) || duration < 1) throw new Error("--duration must be ≥ 1 (seconds)");
  const routes = values.pages?.split(",").map((s) => s.trim());
  const pages = routes ? LIGHTHOUSE_PAGES.filter((p) => routes.includes(p.route)) : LIGHTHOUSE_PAGES;
  if (routes && pages.length !== routes.length)
    throw new Error(`--pages: choose from ${LIGHTHOUSE_PAGES.map((p) => p.route).join(", ")}`);
  const partial =
    values.only !== undefined || routes !== undefined || values.dist !== undefined || values["no-pglite"];
  return {
    sections: new Set(only as Section[]),
    runs,
    pages,
    api: {
      ...DEFAULT_API_SETTINGS,
      durationSeconds: duration,
      rounds,
      usageCharges,
      creditLeases: !values["no-credit-leases"],
    } satisfies ApiSettings,
    // A partial run must not overwrite the full report unless asked to.
    out: values.out ?? (partial ? undefined : "docs/benchmarks.md"),
    postgres: values["no-postgres"] ? undefined : values.postgres,
    pglite: !values["no-pglite"],
    lhrDir: values["lhr-dir"],
    dist: values.dist,
  };
}

async function lighthouseSection(
  distDir: string,
  pages: typeof LIGHTHOUSE_PAGES,
  runs: number,
  lhrDir?: string,
): Promise<PageLighthouse[]> {
  if (lhrDir) mkdirSync(lhrDir, { recursive: true });
  const server = await startServer({ distDir });
  try {
    // The logged-in pages are seen by an account with a month of usage (/profile/usage's budget).
    const user = await seedUsageHistory(
      server,
      await createServiceKey(server),
      LIGHTHOUSE_USAGE.charges,
      LIGHTHOUSE_USAGE.days,
    );
    const storage = { "x-access-token": user.accessToken, isAuthenticated: "true" };
    // Warm the server (its first answers compile code paths), not the browser: each run starts cold.
    for (const { route } of pages) {
      for (let i = 0; i < 3; i++) await (await fetch(`${server.origin}${route}`)).arrayBuffer();
    }
    const results = new Map<string, LighthouseRun[]>();
    // Run by run across the pages, so a noisy minute spreads over pages instead of sinking one.
    for (let run = 1; run <= runs; run++) {
      for (const page of pages) {
        const saveTo = lhrDir
          ? join(lhrDir, `${page.route.slice(1).replaceAll("/", "-") || "home"}-${run}.json`)
          : undefined;
        const options = { ...(page.loggedIn ? { localStorage: storage } : {}), saveTo };
        const result = await audit(`${server.origin}${page.route}`, options, log);
        log(
          `  run ${run} ${page.route}: performance ${result.performance}, LCP ${(result.lcp / 1000).toFixed(2)} s, ` +
            `TBT ${Math.round(result.tbt)} ms, CLS ${result.cls.toFixed(3)}`,
        );
        results.set(page.route, [...(results.get(page.route) ?? []), result]);
      }
    }
    // The JavaScript each page loaded, by its gzip size in the build (Lighthouse sees brotli).
    const gzipOf = (path: string) => {
      try {
        return gzipSync(readFileSync(join(distDir, path)), { level: 9 }).length;
      } catch {
        return 0; // not a file of the build (a data: or blob: script)
      }
    };
    return pages.map((p) => {
      const page = aggregateRuns(p.route, p.loggedIn, results.get(p.route) ?? []);
      return { ...page, scriptGzip: page.scriptPaths.reduce((sum, path) => sum + gzipOf(path), 0) };
    });
  } finally {
    await server.stop();
  }
}

async function apiForDatabase(
  database: DatabaseKind,
  distDir: string,
  settings: ApiSettings,
  databaseUrl?: string,
): Promise<DatabaseApi> {
  log(`API on ${database}:`);
  const server = await startServer({
    distDir,
    databaseUrl,
    ...(settings.creditLeases ? {} : { env: { CREDIT_LEASES: "false" } }),
  });
  let floor: RunningServer | undefined;
  try {
    const user = await seedUser(server.origin);
    const customers = [user];
    while (customers.length < CHARGED_CUSTOMERS) customers.push(await seedUser(server.origin));
    const access = await seedApiAccess(server, customers);
    // The organisations' routes need credits written into the database: PostgreSQL's, not the
    // server's own PGlite.
    const orgs = databaseUrl
      ? await seedOrgs(server.origin, customers, (ids, credits) => grantCredits(databaseUrl, ids, credits))
      : undefined;
    if (orgs)
      log(`  seeded ${orgs.keys.length} team organisations, each with credits, an owner's cap and a key`);
    // Auto top-up (AUTO-TOP-UP.md "Budgets"), seeded over HTTP while the tokens are fresh (saving a
    // card needs a recent sign-in): as many customers as consume charges, each with a plan, a card
    // and auto top-up on far below their balance; and organisations whose balance will cross.
    const autoTopUpUsers: SeededUser[] = [];
    while (autoTopUpUsers.length < CHARGED_CUSTOMERS) {
      const customer = await seedUser(server.origin);
      await setUpAutoTopUp(server.origin, customer, CONSUME_THRESHOLD);
      autoTopUpUsers.push(customer);
    }
    const autoTopUpKeys = await createApiKeys(server.origin, autoTopUpUsers);
    const crossingOrgs = await seedCrossingOrgs(
      server.origin,
      await seedUser(server.origin),
      crossingOrgsFor(settings.autoTopUpCrossings),
    );
    log(
      `  seeded ${autoTopUpUsers.length} customers with auto top-up on and ${crossingOrgs.length} organisations to cross its threshold`,
    );
    const seeding = performance.now();
    const usage = await seedUsageHistory(server, access.serviceKey, settings.usageCharges, USAGE_DAYS);
    log(
      `  seeded ${settings.usageCharges} charges over ${USAGE_DAYS} days in ${((performance.now() - seeding) / 1000).toFixed(0)} s`,
    );
    // The floor (issue 35): a bare app on the same database, its calls measured beside the project's.
    floor = databaseUrl ? await startFloor(databaseUrl) : undefined;
    if (floor) log(`  the floor app (bench/floor/app.ts) answers on ${floor.origin}`);
    const routes = await measureRoutes(
      server.origin,
      user,
      settings,
      log,
      access,
      usage,
      orgs,
      autoTopUpKeys,
      floor?.origin,
    );
    await floor?.stop();
    floor = undefined;
    const membership = orgs
      ? await measureMembershipCheck(server.origin, user, orgs, settings.membershipPairs, log)
      : undefined;
    const autoTopUp = await measureTopUpLatency(
      server.origin,
      access.serviceKey,
      crossingOrgs,
      settings.autoTopUpCrossings,
      log,
    );
    const loginLoad = await measureLoginLoad(server.origin, user, settings, log);
    return { database, routes, loginLoad, autoTopUp, ...(membership ? { membership } : {}) };
  } finally {
    await floor?.stop();
    await server.stop();
  }
}

async function apiSection(
  distDir: string,
  settings: ApiSettings,
  postgresAdmin?: string,
  pglite = true,
): Promise<DatabaseApi[]> {
  const databases: DatabaseApi[] = [
    pglite
      ? await apiForDatabase("PGlite", distDir, settings)
      : { database: "PGlite", skipped: "--no-pglite" },
  ];
  if (!postgresAdmin) {
    databases.push({ database: "PostgreSQL", skipped: "--no-postgres" });
    return databases;
  }
  let temp: Awaited<ReturnType<typeof createTempDatabase>> | undefined;
  try {
    temp = await createTempDatabase(postgresAdmin);
  } catch (error) {
    const where = new URL(postgresAdmin).host;
    databases.push({
      database: "PostgreSQL",
      skipped: `no PostgreSQL at ${where} (${error instanceof Error ? error.message : String(error)})`,
    });
    return databases;
  }
  try {
    databases.push(await apiForDatabase("PostgreSQL", distDir, settings, temp.url));
  } finally {
    await temp.drop();
  }
  return databases;
}

function summary(checks: readonly BudgetCheck[]): string[] {
  const lines = ["Budgets:"];
  for (const b of summariseBudgets(checks)) {
    const verdict = b.verdict === "pass" ? "pass" : b.verdict === "fail" ? "FAIL" : "not measured";
    const worst = b.worst ? ` (worst ${b.worst.subject}: ${b.worst.measured})` : "";
    lines.push(`  ${verdict.padEnd(12)} ${b.budget}${worst}`);
  }
  return lines;
}

/** The usage chart's chunk, gzip (the console's chart pages load it on demand). */
function chartChunkGzip(distDir: string): number {
  const dir = join(distDir, "_astro");
  const file = readdirSync(dir).find((f) => f.startsWith("UsageChart.") && f.endsWith(".js"));
  return file ? gzipSync(readFileSync(join(dir, file))).length : 0;
}

async function main(): Promise<void> {
  const opts = options();
  if (!opts.dist) buildIfStale();
  // Measure a copy: another build (npm test rebuilds a stale dist/) must not change the files
  // under a running benchmark.
  const snapshot = mkdtempSync(join(tmpdir(), "portal-bench-dist-"));
  cpSync(resolve(opts.dist ?? "dist"), snapshot, { recursive: true });
  try {
    const machine = describeMachine(process.env.CHROME_PATH || "/usr/bin/chromium");
    log(`Benchmarks on ${machine.cpu} (${machine.cores} cores), load average ${machine.loadAverage}`);

    let pageWeight: PageWeight[] | undefined;
    if (opts.sections.has("weight")) {
      log("Page weight:");
      pageWeight = measureDist(snapshot);
      for (const p of pageWeight) {
        log(
          `  ${p.route}: JS ${kb(p.js.gzip)} KB gzip, CSS ${kb(p.css.gzip)} KB gzip, HTML ${kb(p.html.gzip)} KB gzip`,
        );
      }
    }
    let lighthouse: PageLighthouse[] | undefined;
    if (opts.sections.has("lighthouse")) {
      log(`Lighthouse (${opts.runs} runs per page):`);
      lighthouse = await lighthouseSection(snapshot, opts.pages, opts.runs, opts.lhrDir);
    }
    let databases: DatabaseApi[] | undefined;
    if (opts.sections.has("api"))
      databases = await apiSection(snapshot, opts.api, opts.postgres, opts.pglite);
    let console_: ConsoleFigures | undefined;
    if (opts.sections.has("console")) {
      if (!opts.postgres)
        throw new Error("The console's budgets are measured on PostgreSQL: leave out --no-postgres");
      log("Operator console (PostgreSQL):");
      console_ = await measureConsole({ adminUrl: opts.postgres, distDir: snapshot, log });
    }

    machine.loadAverageAtEnd = loadAverageNow();
    const checks = [
      ...(pageWeight ? pageWeightChecks(pageWeight, chartChunkGzip(snapshot)) : []),
      ...(lighthouse ? lighthouseChecks(lighthouse) : []),
      ...(databases ? apiChecks(databases) : []),
      ...(console_ ? consoleChecks(console_) : []),
    ];
    const markdown = `${renderReport({
      machine,
      runs: opts.runs,
      api: opts.api,
      serverSettings: SERVER_SETTINGS,
      pageWeight,
      lighthouse,
      databases,
      checks,
      explanations: EXPLANATIONS,
      measures: MEASURES,
    })}${console_ ? consoleMarkdown(console_) : ""}`;
    for (const line of summary(checks)) log(line);
    if (opts.out) {
      writeFileSync(opts.out, markdown);
      log(`Report: ${opts.out}`);
    } else {
      log("");
      log(markdown);
    }
  } finally {
    rmSync(snapshot, { recursive: true, force: true });
  }
}

await main();
