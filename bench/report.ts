// The markdown report (docs/benchmarks.md): plain rendering of the measured figures, no I/O.
import {
  type ApiSettings,
  type DatabaseApi,
  type LoadFigures,
  membershipCheckMs,
  SERVICE_CONNECTIONS,
} from "./api.ts";
import { CONSUME_THRESHOLD } from "./auto-top-up.ts";
import {
  autoTopUpConsumeShares,
  type BudgetCheck,
  FLOOR_CALLS,
  floorShare,
  LIMITS,
  PUBLIC_PAGES,
  shareText,
  summariseBudgets,
} from "./budgets.ts";
import type { PageLighthouse } from "./lighthouse.ts";
import type { Machine } from "./machine.ts";
import type { PageWeight } from "./page-weight.ts";
import { kb, type Sizes } from "./sizes.ts";

export interface BenchReport {
  machine: Machine;
  /** Lighthouse runs per page. */
  runs: number;
  api: ApiSettings;
  /** The benchmarked server's settings (besides port, data folder and secrets). */
  serverSettings: Readonly<Record<string, string>>;
  pageWeight?: PageWeight[] | undefined;
  lighthouse?: PageLighthouse[] | undefined;
  databases?: DatabaseApi[] | undefined;
  checks: BudgetCheck[];
  /** Why a failing budget fails and what it would take, by budget id; shown for failing ids only. */
  explanations?: Readonly<Record<string, string>>;
  /** What was done to meet the budgets, shown as a list after the budget table. */
  measures?: readonly string[];
}

/** For comparison (the issue's figures: same kind of machine, same Lighthouse settings). */
export const REFERENCES = {
  starterSignIn: { performance: 97, accessibility: 88, lcpMs: 2360, tbtMs: 112, jsKb: 144.5 },
  starterPricing: { performance: 98, accessibility: 94, lcpMs: 2060, tbtMs: 93, jsKb: 227.6 },
  floor: { performance: 100, lcpMs: 900, jsKb: 67.6 },
} as const;

export const COMMANDS = {
  all: "npm run bench",
  weight: "npm run build && npm run bench -- --only=weight",
  lighthouse: "npm run bench -- --only=lighthouse --runs=3",
  api: "npm run bench -- --only=api",
} as const;

/** Columns as wide as a terminal shows them: an emoji takes two cells (as Biome's Markdown formatter counts). */
function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += /\p{Emoji_Presentation}/u.test(ch) ? 2 : 1;
  return width;
}

/** A Markdown table with its columns padded to one width, as Biome formats it. */
function table(headings: string[], rows: string[][]): string {
  const widths = headings.map((h, i) =>
    Math.max(3, ...[h, ...rows.map((r) => r[i] ?? "")].map(displayWidth)),
  );
  const pad = (cell: string, i: number) => cell + " ".repeat((widths[i] ?? 0) - displayWidth(cell));
  const line = (cells: string[]) => `| ${cells.map(pad).join(" | ")} |`;
  return [line(headings), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...rows.map(line)].join(
    "\n",
  );
}

const bytes = (n: number) => n.toLocaleString("en-US");
const sizes = (s: Sizes) => `${kb(s.raw)} / ${kb(s.gzip)} / ${kb(s.brotli)}`;
const ms = (value: number) => `${Math.round(value)} ms`;
const seconds = (value: number) => `${(value / 1000).toFixed(2)} s`;
const mark = (check: BudgetCheck | undefined) =>
  check === undefined ? "" : check.verdict === "pass" ? " ✅" : check.verdict === "fail" ? " ❌" : "";

function machineSection(m: Machine): string {
  return [
    "## Machine",
    "",
    table(
      ["", ""],
      [
        ["Date", m.date],
        ["CPU", `${m.cpu}, ${m.cores} cores (os.cpus())`],
        ["Memory", `${m.memoryGiB} GiB`],
        ["OS", m.os],
        ["Node", m.node],
        ["Chromium", m.chromium],
        ["Lighthouse", m.lighthouse],
        ["autocannon", m.autocannon],
        [
          "Load average (1 minute) at start and end",
          `${m.loadAverage} and ${m.loadAverageAtEnd ?? "–"} (${m.cores} cores; the benchmark itself keeps 1 to 2 busy)`,
        ],
      ],
    ),
  ].join("\n");
}

function budgetSection(
  checks: readonly BudgetCheck[],
  explanations: Readonly<Record<string, string>>,
): string {
  const budgets = summariseBudgets(checks);
  const count = (v: BudgetCheck["verdict"]) => budgets.filter((b) => b.verdict === v).length;
  const rows = budgets.map((b) => [
    b.area,
    b.budget,
    b.verdict === "pass"
      ? "✅ pass"
      : b.verdict === "fail"
        ? `❌ fail (${b.failed.length} of ${b.subjects})`
        : "– not measured",
    b.worst ? `${b.worst.subject}: ${b.worst.measured}` : (checks.find((c) => c.id === b.id)?.measured ?? ""),
    b.failed.map((c) => `${c.subject}: ${c.measured}`).join("; "),
  ]);
  const notes = budgets
    .filter((b) => b.verdict === "fail" && explanations[b.id])
    .map((b) => `- **${b.budget}**: ${explanations[b.id]}`);
  return [
    "## Budgets",
    "",
    `${count("pass")} pass, ${count("fail")} fail, ${count("not measured")} not measured (each over every page, ` +
      "route or database it applies to; the sections below mark each figure).",
    "",
    table(["Area", "Budget", "Verdict", "Worst", "Failing"], rows),
    ...(notes.length > 0 ? ["", "### What holds the failing budgets back", "", ...notes] : []),
  ].join("\n");
}

function comparisonSection(report: BenchReport): string {
  const lh = (route: string) => report.lighthouse?.find((p) => p.route === route);
  const js = (route: string) => report.pageWeight?.find((p) => p.route === route)?.js.gzip;
  const login = lh("/login");
  const plans = lh("/plans");
  const { starterSignIn: s, starterPricing: p, floor: f } = REFERENCES;
  const or = (value: string | undefined) => value ?? "–";
  const score = (page: PageLighthouse | undefined, pick: (m: PageLighthouse["median"]) => number) =>
    page ? String(pick(page.median)) : undefined;
  const time = (
    page: PageLighthouse | undefined,
    pick: (m: PageLighthouse["median"]) => number,
    unit: "s" | "ms",
  ) => (page ? (unit === "s" ? seconds(pick(page.median)) : ms(pick(page.median))) : undefined);
  const jsKb = (route: string) => {
    const bytes = js(route);
    return bytes === undefined ? undefined : `${kb(bytes)} KB`;
  };
  return [
    "## Compared with the Next.js starter and the floor",
    "",
    "The starter's figures and the floor (a minimal Astro page with one React 19 island) are the issue's, " +
      "measured on the same kind of machine with the same Lighthouse settings. The portal's are this run's " +
      "medians; its JavaScript counts inline scripts too.",
    "",
    table(
      ["", "starter sign-in", "portal /login", "starter pricing", "portal /plans", "floor"],
      [
        [
          "Performance",
          String(s.performance),
          or(score(login, (m) => m.performance)),
          String(p.performance),
          or(score(plans, (m) => m.performance)),
          String(f.performance),
        ],
        [
          "Accessibility",
          String(s.accessibility),
          or(score(login, (m) => m.accessibility)),
          String(p.accessibility),
          or(score(plans, (m) => m.accessibility)),
          "–",
        ],
        [
          "LCP",
          seconds(s.lcpMs),
          or(time(login, (m) => m.lcp, "s")),
          seconds(p.lcpMs),
          or(time(plans, (m) => m.lcp, "s")),
          seconds(f.lcpMs),
        ],
        [
          "TBT",
          ms(s.tbtMs),
          or(time(login, (m) => m.tbt, "ms")),
          ms(p.tbtMs),
          or(time(plans, (m) => m.tbt, "ms")),
          "–",
        ],
        [
          "JavaScript (gzip)",
          `${s.jsKb} KB`,
          or(jsKb("/login")),
          `${p.jsKb} KB`,
          or(jsKb("/plans")),
          `${f.jsKb} KB`,
        ],
      ],
    ),
  ].join("\n");
}

function pageWeightSection(pages: readonly PageWeight[], checks: readonly BudgetCheck[]): string {
  const check = (id: string, route: string) => checks.find((c) => c.id === id && c.subject === route);
  const rows = pages.map((p) => [
    p.route,
    sizes(p.html),
    `${sizes(p.css)}${mark(check("css-gzip", p.route))}`,
    `${sizes(p.js)}${mark(check("js-gzip", p.route))}`,
    `${kb(p.inlineJs.gzip)}`,
    String(p.jsFiles.length),
    p.islands.map((i) => `${i.component} (${i.client})${i.count > 1 ? ` ×${i.count}` : ""}`).join(", ") ||
      "none",
  ]);
  const parts = pages.flatMap((p) =>
    p.staticParts.map((part) => [
      p.route,
      `${part.part}${part.count > 1 ? ` (${part.count})` : ""}`,
      part.shipsJavaScript ? "❌ ships JavaScript" : "✅ none",
    ]),
  );
  const biggest = [...pages].sort((a, b) => b.js.gzip - a.js.gzip)[0];
  const files = biggest
    ? biggest.jsFiles.map((f) => [f.path, bytes(f.sizes.raw), bytes(f.sizes.gzip), bytes(f.sizes.brotli)])
    : [];
  return [
    "## Page weight",
    "",
    `Reproduce: \`${COMMANDS.weight}\`. Every HTML page in \`dist/\`; sizes in KB = 1,000 bytes, as raw / gzip (level 9) / ` +
      "brotli (quality 11), each file compressed on its own, as it travels. CSS: the stylesheets the page links and " +
      "its inline styles. JavaScript: what runs before any user action: the inline scripts (Astro's island runtime " +
      "and directive loaders, counted as what they add to the compressed HTML), the islands' component and " +
      "renderer chunks, and every chunk those import statically. Chunks imported dynamically (the API client's " +
      "schemas and fetch library, the toast view, a paid plan's dialogs) load on demand and are not counted.",
    "",
    table(
      ["Page", "HTML", "CSS", "JavaScript", "of which inline (gzip)", "JS files", "Islands (directive)"],
      rows,
    ),
    ...(biggest
      ? [
          "",
          `The heaviest page's JavaScript, file by file (${biggest.route}; bytes):`,
          "",
          table(["File", "raw", "gzip", "brotli"], files),
        ]
      : []),
    ...(parts.length > 0
      ? [
          "",
          "Parts of the pages that must ship no JavaScript of their own (no script, island or inline handler inside them):",
          "",
          table(["Page", "Part", "JavaScript"], parts),
        ]
      : []),
  ].join("\n");
}

function lighthouseSection(
  pages: readonly PageLighthouse[],
  runs: number,
  checks: readonly BudgetCheck[],
): string {
  const subjectOf = (p: PageLighthouse) => (p.loggedIn ? `${p.route} (logged in)` : p.route);
  const check = (id: string, p: PageLighthouse) =>
    checks.find((c) => c.id === id && c.subject === subjectOf(p));
  const rows = pages.map((p) => [
    subjectOf(p),
    `${p.median.performance} (min ${p.minPerformance})${mark(check("lh-performance", p))}`,
    `${p.minAccessibility}${mark(check("lh-accessibility", p))}`,
    `${p.minBestPractices}${mark(check("lh-best-practices", p))}`,
    `${p.minSeo}${mark(check("lh-seo", p))}`,
    seconds(p.median.fcp),
    `${seconds(p.median.lcp)}${mark(check("lh-lcp", p))}`,
    `${ms(p.median.tbt)}${mark(check("lh-tbt", p))}`,
    `${p.maxCls.toFixed(3)}${mark(check("lh-cls", p))}`,
    seconds(p.median.speedIndex),
    kb(p.median.scriptTransfer),
  ]);
  const runRows = pages.flatMap((p) =>
    p.runs.map((r, i) => [
      subjectOf(p),
      String(i + 1),
      `${r.performance} / ${r.accessibility} / ${r.bestPractices} / ${r.seo}`,
      seconds(r.fcp),
      seconds(r.lcp),
      ms(r.tbt),
      r.cls.toFixed(3),
      seconds(r.speedIndex),
    ]),
  );
  const findings = pages
    .filter((p) => p.failedAudits.length > 0 || p.runWarnings.length > 0)
    .map(
      (p) =>
        `- ${subjectOf(p)}: ${[...p.failedAudits, ...p.runWarnings.map((w) => `warning: ${w}`)].join("; ")}`,
    );
  return [
    "## Lighthouse",
    "",
    `Reproduce: \`${COMMANDS.lighthouse}\`. Lighthouse's Node API with its default configuration (mobile form ` +
      "factor and screen, simulated throttling: 150 ms RTT, 1.6 Mbit/s, 4× CPU slowdown) in Debian's Chromium " +
      "(`--headless=new --no-sandbox --disable-gpu --disable-background-networking`), a freshly launched browser with " +
      `an empty profile for each run, against the production start of the server (below). ${runs} runs per page: ` +
      "each figure is that metric's median over the runs; the category scores are the lowest run's (a lost point " +
      "in any run is a finding); CLS is the worst run's. /profile is audited logged in as the seeded user: the " +
      "token is put in localStorage from a same-origin tab first (`/robots.txt`, so no page asset is cached) and " +
      "Lighthouse runs with `disableStorageReset`. It is `noindex` by design, so SEO and the public pages' " +
      "performance score do not apply to it.",
    "",
    table(
      [
        "Page",
        "Performance",
        "Accessibility",
        "Best practices",
        "SEO",
        "FCP",
        "LCP",
        "TBT",
        "CLS",
        "Speed Index",
        "JS transferred (KB, with headers)",
      ],
      rows,
    ),
    "",
    "Every run (scores: performance / accessibility / best practices / SEO):",
    "",
    table(["Page", "Run", "Scores", "FCP", "LCP", "TBT", "CLS", "Speed Index"], runRows),
    ...(findings.length > 0 ? ["", "Audits that cost points, and run warnings:", "", ...findings] : []),
  ].join("\n");
}

/** A route's share of the baseline's requests per second: "70.0%", "0.6%". */
const ratioText = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const rps = (f: LoadFigures) => f.requestsPerSecond.toFixed(f.requestsPerSecond < 100 ? 1 : 0);
const errors = (f: LoadFigures) =>
  f.non2xx + f.errors === 0 ? "0" : `${f.non2xx} non-2xx, ${f.errors} errors`;

/** Each round's share, in order: "61.2%, 64.0%, 66.1%". */
const roundShares = (project: readonly LoadFigures[], floor: readonly LoadFigures[]) =>
  project
    .map((r, i) => ratioText(r.requestsPerSecond / (floor[i]?.requestsPerSecond ?? Number.NaN)))
    .join(", ");

/**
 * The generation service's calls against their floor (issue 35): a table of the project's and the
 * floor's requests/s and p99 and the share, then the share of /healthz as context. Nothing when the
 * floor was not measured (PGlite, or a run without it).
 */
export function floorSection(db: DatabaseApi, checks: readonly BudgetCheck[]): string[] {
  if (!("routes" in db)) return [];
  const find = (id: string) => db.routes.find((r) => r.route.id === id);
  const checkMark = (id: string) => mark(checks.find((c) => c.subject === db.database && c.id === id));
  const rows = FLOOR_CALLS.flatMap(({ call, floor: floorId, label }) => {
    const project = find(call);
    const floor = find(floorId);
    const share = floorShare(db, call);
    if (!project || !floor || share === undefined) return [];
    return [
      [
        label,
        rps(project.figures),
        `${ms(project.figures.p99)}${checkMark(`api-${call === "consume-org" ? "org-consume" : call}-p99`)}`,
        rps(floor.figures),
        ms(floor.figures.p99),
        `${shareText(share)}${checkMark(`api-${call}-floor`)}`,
        roundShares(project.rounds, floor.rounds),
      ],
    ];
  });
  if (rows.length === 0) return [];
  const baseline = find("baseline");
  const context = (["introspect", "consume"] as const).flatMap((id) => {
    const route = find(id);
    return route ? [`${id} ${ratioText(route.ratio)}`] : [];
  });
  return [
    "The generation service's calls against their floor: a bare Hono app (bench/floor/app.ts, its own process, " +
      "no middleware, no request log) with the same driver (postgres.js), the same database, seed and keys, and " +
      "the minimal SQL of each call (consume: the project's batched transaction, a lock, the reads and one " +
      "write, one round trip a batch; introspect: one prepared read). Each call and its floor run back to back " +
      `in every round, in the other order in every even round, ${SERVICE_CONNECTIONS} connections; the share is ` +
      "the median over the rounds of each round's project requests/s over the floor's. The rounds are even in " +
      "number, so that each order counts as often: the second of the two measures lower (decision 043).",
    "",
    table(
      ["Call", "Project req/s", "Project p99", "Floor req/s", "Floor p99", "Share of floor", "Each round"],
      rows,
    ),
    "",
    ...(baseline && context.length > 0
      ? [
          `Context, not a budget: as a share of GET /healthz (${rps(baseline.figures)} req/s in this run), ` +
            `${context.join(", ")}. Introspection through an organisation's key is not measured (the ` +
            "benchmark introspects personal keys), so it has no floor share yet.",
          "",
        ]
      : []),
  ];
}

function apiSection(
  databases: readonly DatabaseApi[],
  settings: ApiSettings,
  server: Readonly<Record<string, string>>,
  checks: readonly BudgetCheck[],
): string {
  const ratioMark = (db: DatabaseApi, id: string) =>
    mark(checks.find((c) => c.subject === db.database && c.id === `api-${id}`));
  const serverLine = Object.entries(server)
    .map(([k, v]) => `\`${k}=${v}\``)
    .join(", ");
  const perDatabase = databases.flatMap((db) => {
    if ("skipped" in db) return [`### ${db.database}`, "", `Not measured: ${db.skipped}`, ""];
    const membership = db.membership
      ? [
          `The membership check, one request at a time (${db.membership.pairs.toLocaleString("en-US")} pairs of ` +
            "GET /v1/users/me with and without X-Organization, alternating which goes first): median " +
            `${db.membership.withoutMs.toFixed(2)} ms without the header, ${db.membership.withMs.toFixed(2)} ms with it, ` +
            `so it adds ${membershipCheckMs(db.membership).toFixed(2)} ms${mark(
              checks.find((c) => c.subject === db.database && c.id === "api-membership-check"),
            )}.`,
          "",
        ]
      : [];
    const shares = autoTopUpConsumeShares(db);
    const checkMark = (id: string) => mark(checks.find((c) => c.subject === db.database && c.id === id));
    const change = (ratio: number) => `${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(1)}%`;
    const autoTopUp = [
      ...(shares
        ? [
            "Consume with auto top-up on, against consume without it in the same rounds (each round's " +
              `ratio, median over the rounds): requests/s ${change(shares.rate)}` +
              `${checkMark("api-auto-top-up-consume-rate")}, p99 ${change(shares.p99)}` +
              `${checkMark("api-auto-top-up-consume-p99")}. Its customers have what turning it on needs ` +
              "(tier A paid and the card 4242 saved on the local checkout) besides the free credits, and a " +
              `threshold of ${CONSUME_THRESHOLD} credits their balance never comes near: every charge reads ` +
              "the settings, none queues a top-up.",
          ]
        : []),
      ...(db.autoTopUp
        ? [
            `Auto top-up's time to credits on the local checkout, ${db.autoTopUp.crossings} crossings one ` +
              `at a time (${db.autoTopUp.organisations} team organisations in turn, each on tier A with a threshold of ` +
              `${db.autoTopUp.threshold}; a spend taking the balance just below it, then GET /v1/users/me every 10 ms ` +
              `until the 500 credits are there): p50 ${ms(db.autoTopUp.p50Ms)}, p95 ${ms(db.autoTopUp.p95Ms)}` +
              `${checkMark("api-auto-top-up-latency")}, max ${ms(db.autoTopUp.maxMs)}` +
              (db.autoTopUp.missed > 0 ? `, ${db.autoTopUp.missed} not within 30 s` : "") +
              ". The charge runs after the spend's answer and its own answer grants the pack; the " +
              "invoice.paid event, delivered later by the billing job, then changes nothing.",
          ]
        : []),
    ];
    return [
      `### ${db.database}`,
      "",
      ...floorSection(db, checks),
      table(
        ["Route", "Requests/s", "Ratio to baseline", "p50", "p99", "Failed"],
        db.routes.map((r) => [
          r.route.label,
          rps(r.figures),
          `${ratioText(r.ratio)}${ratioMark(db, r.route.id)}`,
          ms(r.figures.p50),
          ms(r.figures.p99),
          errors(r.figures),
        ]),
      ),
      "",
      ...membership,
      ...autoTopUp.flatMap((paragraph) => [paragraph, ""]),
    ];
  });
  const loop = databases.flatMap((db) => {
    if (!("loginLoad" in db)) return [];
    const l = db.loginLoad;
    return [
      [
        db.database,
        `${ms(l.idle.p50)} / ${ms(l.idle.p99)} / ${ms(l.idle.max)}`,
        `${ms(l.underLoad.p50)} / ${ms(l.underLoad.p99)} / ${ms(l.underLoad.max)}${
          l.underLoad.p99 < LIMITS.meP99UnderLoginsMs ? " ✅" : " ❌"
        }`,
        `${rps(l.login)} (p99 ${ms(l.login.p99)})`,
        errors(l.underLoad),
      ],
    ];
  });
  return [
    "## API throughput and latency",
    "",
    `Reproduce: \`${COMMANDS.api}\` (this section and the next). autocannon, ${settings.connections} connections ` +
      `(${SERVICE_CONNECTIONS} for the generation service's introspect and consume, as their budgets say), ` +
      `against one route at a time: ${settings.warmupSeconds} s of warm-up for each, then ${settings.rounds} rounds ` +
      `of ${settings.durationSeconds} s per route (baseline, products, users/me, token, introspect, consume, usage in turn, ` +
      "on PostgreSQL users/me with X-Organization beside users/me and consume through organisation keys " +
      "beside consume, consume with auto top-up on beside those, on PostgreSQL each floor call (below) right before " +
      "its call, each group's order reversed in every even round, " +
      "so drift and what the first leaves in the " +
      "database hit them alike). Requests/s and latency (milliseconds) are the medians over the rounds; the ratio is the median of " +
      "each round's requests/s over the baseline's in that round, which cancels out most of the machine's speed; the " +
      "organisation keys' consume is compared with the personal keys' the same way, round by round. " +
      "autocannon runs on the same machine as the server, so the two share its cores." +
      (settings.creditLeases
        ? ""
        : " **The server ran with CREDIT_LEASES off (`--no-credit-leases`; on is the default, decision 051).**"),
    "",
    "The server is the production start (`npm run build`, then `node server/main.ts`) on a free port and a fresh " +
      `temporary DATA_DIR, with ${serverLine}. Why not NODE_ENV=production: it refuses to start without a real SMTP ` +
      "server and Stripe keys (server/env.ts), and with them the seeded user could not verify its address from the " +
      "outbox nor the products be listed without calling Stripe; development differs from production only in those " +
      "stand-ins (outbox, local checkout, the /_dev pages), none of them on the measured routes. LOG_LEVEL=info is " +
      "production's default: every API request writes its log line (to a file). The per-IP and per-account rate " +
      "limits are raised so that the login benchmarks measure the server, not the limiter. PostgreSQL: a fresh " +
      "database created for the run and dropped after it.",
    "",
    ...perDatabase,
    "## Event loop under login load",
    "",
    `GET /v1/users/me at a steady ${settings.probeRate} requests/s (2 connections) for ${settings.loginLoadSeconds} s, ` +
      "first alone, then while " +
      `${settings.logins} connections log in as fast as they can (POST /v1/token: argon2id, m=19 MiB, t=2, on ` +
      "libuv's thread pool). Latency p50 / p99 / max:",
    "",
    table(
      ["Database", "users/me alone", "users/me during the logins", "Logins/s", "Failed (users/me)"],
      loop,
    ),
  ].join("\n");
}

export function renderReport(report: BenchReport): string {
  const sections = [
    "# Benchmarks",
    "",
    `Written by \`${COMMANDS.all}\` (bench/run.ts) on ${report.machine.date.slice(0, 10)}. The figures are this ` +
      "machine's at that moment: rerun on a quiet machine before comparing them with anything. Lighthouse's " +
      `public pages: ${PUBLIC_PAGES.join(", ")}. Page weight: every page outside /profile, /org and /admin is public.`,
    "",
    machineSection(report.machine),
    "",
    budgetSection(report.checks, report.explanations ?? {}),
    "",
    ...(report.measures && report.measures.length > 0
      ? ["### How the budgets are met", "", ...report.measures.map((m) => `- ${m}`), ""]
      : []),
    comparisonSection(report),
  ];
  if (report.pageWeight) sections.push("", pageWeightSection(report.pageWeight, report.checks));
  else sections.push("", "## Page weight", "", "Not measured in this run.");
  if (report.lighthouse) sections.push("", lighthouseSection(report.lighthouse, report.runs, report.checks));
  else sections.push("", "## Lighthouse", "", "Not measured in this run.");
  if (report.databases) {
    sections.push("", apiSection(report.databases, report.api, report.serverSettings, report.checks));
  } else sections.push("", "## API throughput and latency", "", "Not measured in this run.");
  return `${sections.join("\n")}\n`;
}
