import { describe, expect, it } from "vitest";
import { DEFAULT_API_SETTINGS } from "./api.ts";
import { apiChecks, lighthouseChecks, pageWeightChecks } from "./budgets.ts";
import { type BenchReport, renderReport } from "./report.ts";
import { database, MACHINE, page, run, weight, withFloors } from "./test-fixtures.ts";

function report(overrides: Partial<BenchReport> = {}): BenchReport {
  const pageWeight = [weight("/", 76_600), weight("/login", 78_500), weight("/plans", 83_000)];
  const lighthouse = [
    page("/login", [run(), run({ tbt: 60 }), run({ tbt: 70 })]),
    page("/plans", [run(), run(), run()]),
  ];
  const databases = [
    database("PGlite", 0.7, 0.05, 30),
    { database: "PostgreSQL" as const, skipped: "--no-postgres" },
  ];
  return {
    machine: MACHINE,
    runs: 3,
    api: DEFAULT_API_SETTINGS,
    serverSettings: { NODE_ENV: "development", LOG_LEVEL: "info" },
    pageWeight,
    lighthouse,
    databases,
    checks: [...pageWeightChecks(pageWeight), ...lighthouseChecks(lighthouse), ...apiChecks(databases)],
    explanations: { "js-gzip": "React's client is 65 KB of it." },
    measures: ["One shell chunk."],
    ...overrides,
  };
}

describe("renderReport", () => {
  // Tables are padded to aligned columns; the assertions read them with single spaces.
  const markdown = renderReport(report()).replace(/ {2,}/g, " ");

  it("says when, on what, and how to reproduce each section", () => {
    expect(markdown).toContain("| Date | 2026-11-23T12:00:00.000Z |");
    expect(markdown).toContain("| CPU | AMD EPYC, 2 cores (os.cpus()) |");
    expect(markdown).toContain("| Memory | 23.5 GiB |");
    expect(markdown).toContain("| Node | v24.21.0 |");
    expect(markdown).toContain("| Chromium | Chromium 156 |");
    for (const command of [
      "npm run build && npm run bench -- --only=weight",
      "npm run bench -- --only=lighthouse --runs=3",
      "npm run bench -- --only=api",
    ]) {
      expect(markdown).toContain(`Reproduce: \`${command}\``);
    }
  });

  it("marks each budget pass or fail, and explains the failing ones", () => {
    expect(markdown).toMatch(
      /\| Page weight \| JavaScript ≤ 82\.0 KB gzip \| ❌ fail \(1 of 3\) \| \/plans: 83\.0 KB \|/,
    );
    expect(markdown).toMatch(
      /\| Lighthouse \| TBT < 50 ms \(median\) \| ❌ fail \(1 of 2\) \| \/login: 60 ms \|/,
    );
    expect(markdown).toContain(
      "| API | GET /v1/users/me ≥ 25% of the baseline's requests/s on PostgreSQL | – not measured |",
    );
    expect(markdown).toContain("- **JavaScript ≤ 82.0 KB gzip**: React's client is 65 KB of it.");
    expect(markdown).toContain("### How the budgets are met\n\n- One shell chunk.");
  });

  it("tables page weight with raw, gzip and brotli, and the islands each page hydrates", () => {
    expect(markdown).toContain(
      "| /login | 16.8 / 5.6 / 4.8 | 55.5 / 18.5 / 15.9 ✅ | 235.5 / 78.5 / 67.5 ✅ | 1.9 | 1 | AccountMenu (idle) ×2 |",
    );
  });

  it("tables the API figures per database and says why one was not measured", () => {
    expect(markdown).toContain("| products | 7000 | 70.0% ✅ | 1 ms | 5 ms | 0 |");
    expect(markdown).toContain("| me | 500 | 5.0% | 1 ms | 5 ms | 0 |");
    expect(markdown).toContain("Not measured: --no-postgres");
    expect(markdown).toContain("| PGlite | 1 ms / 3 ms / 4 ms | 1 ms / 30 ms / 31 ms ✅ |");
  });

  it("tables the organisations' routes on PostgreSQL and says what the membership check adds", () => {
    const orgs = {
      personalRates: [1000, 1000, 1000],
      orgRates: [950, 950, 950],
      consumeP99: 12,
      meP99: 9,
      membership: { pairs: 2000, withoutMs: 1.234, withMs: 1.5 },
    };
    const databases = [database("PostgreSQL", 0.7, 0.3, 30, undefined, 30, orgs)];
    const text = renderReport(report({ databases, checks: apiChecks(databases) })).replace(/ {2,}/g, " ");
    expect(text).toContain("| me-org | 3000 | 30.0% | 1 ms | 9 ms | 0 |");
    expect(text).toContain("| consume-org | 950 | 9.5% | 1 ms | 12 ms | 0 |");
    expect(text).toContain(
      "The membership check, one request at a time (2,000 pairs of GET /v1/users/me with and without " +
        "X-Organization, alternating which goes first): median 1.23 ms without the header, 1.50 ms with it, " +
        "so it adds 0.27 ms ✅.",
    );
    expect(text).toMatch(
      /\| API \| X-Organization's membership check adds < 1 ms to GET \/v1\/users\/me [^|]+\| ✅ pass \| PostgreSQL: 0\.27 ms \|/,
    );
    // PGlite has no organisations' routes, so no such sentence.
    expect(markdown).not.toContain("The membership check");
  });

  it("tables consume with auto top-up on beside consume, and says its time to credits", () => {
    const autoTopUp = {
      rates: [1050, 980, 1000],
      p99s: [11, 10, 10],
      personal: { rates: [1000, 1000, 1000], p99s: [10, 10, 10] },
      crossingsMs: [...Array.from({ length: 22 }, () => 180), 640, 2400],
    };
    const databases = [database("PostgreSQL", 0.7, 0.3, 30, undefined, 30, undefined, autoTopUp)];
    const text = renderReport(report({ databases, checks: apiChecks(databases) })).replace(/ {2,}/g, " ");
    expect(text).toContain("| consume-auto-top-up | 1000 | 10.0% | 1 ms | 10 ms | 0 |");
    expect(text).toContain(
      "Consume with auto top-up on, against consume without it in the same rounds (each round's ratio, " +
        "median over the rounds): requests/s +0.0% ✅, p99 +0.0% ✅.",
    );
    expect(text).toContain(
      "Auto top-up's time to credits on the local checkout, 24 crossings one at a time (3 team " +
        "organisations in turn, each on tier A with a threshold of 400;",
    );
    expect(text).toContain("p50 180 ms, p95 640 ms ✅, max 2400 ms.");
    expect(text).toMatch(
      /\| API \| Auto top-up on the local checkout: a spend crossing the threshold to the pack's credits ≤ 5\.00 s [^|]+\| ✅ pass \| PostgreSQL: 0\.64 s \|/,
    );
    // Without those figures (the PGlite fixture of the other tests), no such sentences.
    expect(markdown).not.toContain("Consume with auto top-up on");
    expect(markdown).not.toContain("time to credits");
  });

  it("tables introspect and consume against their floor, with p99, the share, each round's, and /healthz as context", () => {
    const databases = [
      withFloors(database("PostgreSQL", 0.6, 0.3, 20), {
        introspect: { project: [900, 500, 1290], floor: [1000, 1000, 1500], p99: 7 },
        consume: { project: [640, 600, 700], floor: [1000, 1000, 1000], p99: 21 },
      }),
    ];
    const text = renderReport(report({ databases, checks: apiChecks(databases) })).replace(/ {2,}/g, " ");
    expect(text).toContain(
      "| Call | Project req/s | Project p99 | Floor req/s | Floor p99 | Share of floor | Each round |",
    );
    expect(text).toContain(
      "| POST /v1/introspect (personal API keys in turn, kept up to 1 s) | 900 | 7 ms ✅ | 1000 | 4 ms | 86.0% ❌ | 90.0%, 50.0%, 86.0% |",
    );
    expect(text).toContain(
      "| POST /v1/credits/consume (personal keys) | 640 | 21 ms ❌ | 1000 | 4 ms | 64.0% ❌ | 64.0%, 60.0%, 70.0% |",
    );
    // No organisation keys measured: no row for them, and introspection through one is named as missing.
    expect(text).not.toContain("organisation keys with a member cap) |");
    expect(text).toContain(
      "Context, not a budget: as a share of GET /healthz (10000 req/s in this run), introspect",
    );
    expect(text).toContain("Introspection through an organisation's key is not measured");
    expect(text).toMatch(
      /\| API \| POST \/v1\/credits\/consume \(personal keys\) ≥ 85% of its floor's requests\/s .* \| ❌ fail/,
    );
    // Without the floor (PGlite, or the default fixture) the table is left out.
    expect(markdown).not.toContain("Share of floor");
  });

  it("compares the login and plans pages with the starter and the floor", () => {
    expect(markdown).toContain("| JavaScript (gzip) | 144.5 KB | 78.5 KB | 227.6 KB | 83.0 KB | 67.6 KB |");
  });

  it("pads every table's columns to one width, emoji counted as two cells (Biome's Markdown format)", () => {
    const width = (line: string) =>
      [...line].reduce((w, ch) => w + (/\p{Emoji_Presentation}/u.test(ch) ? 2 : 1), 0);
    const tables = renderReport(report())
      .split("\n\n")
      .filter((block) => block.startsWith("|"));
    expect(tables.length).toBeGreaterThan(5);
    for (const block of tables) {
      const lines = block.trimEnd().split("\n");
      expect(new Set(lines.map(width)).size).toBe(1);
      expect(lines[1]).toMatch(/^\| -+( \| -+)* \|$/);
    }
  });

  it("says a section was not measured rather than leaving it out", () => {
    const partial = renderReport(report({ lighthouse: undefined, databases: undefined }));
    expect(partial).toContain("## Lighthouse\n\nNot measured in this run.");
    expect(partial).toContain("## API throughput and latency\n\nNot measured in this run.");
  });
});
