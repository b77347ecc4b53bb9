import { describe, expect, it } from "vitest";
import type { DatabaseApi } from "./api.ts";
import {
  apiChecks,
  autoTopUpConsumeShares,
  consoleChecks,
  floorShare,
  LIMITS,
  lighthouseChecks,
  orgConsumeShare,
  pageWeightChecks,
  shareText,
  summariseBudgets,
} from "./budgets.ts";
import {
  type AutoTopUpFigures,
  database,
  type OrgFigures,
  page,
  run,
  weight,
  withFloors,
} from "./test-fixtures.ts";

const verdicts = (checks: { id: string; subject: string; verdict: string }[]) =>
  Object.fromEntries(checks.map((c) => [`${c.id} ${c.subject}`, c.verdict]));

describe("pageWeightChecks", () => {
  it("holds JavaScript to 82,000 bytes gzip (KB = 1,000 bytes) and CSS to 25,000", () => {
    const checks = pageWeightChecks([weight("/a", 82_000), weight("/b", 82_001, 25_001, true)]);
    expect(verdicts(checks)).toEqual({
      "js-gzip /a": "pass",
      "css-gzip /a": "pass",
      "static-parts /a footer": "pass",
      "js-gzip /b": "fail",
      "css-gzip /b": "fail",
      "static-parts /b footer": "fail",
    });
    expect(checks.find((c) => c.id === "js-gzip" && c.subject === "/b")?.measured).toBe("82.0 KB");
  });

  it("holds pages behind the sign-in to 100,000 bytes, public pages to 82,000 (issue 31)", () => {
    const checks = pageWeightChecks([
      weight("/login", 82_001),
      weight("/profile", 100_000),
      weight("/profile/security", 100_001),
      weight("/profiles", 82_001),
      weight("/org/members", 100_000),
      weight("/invitations", 82_001),
    ]);
    expect(
      checks.filter((c) => c.id.endsWith("js-gzip")).map((c) => [c.id, c.subject, c.budget, c.verdict]),
    ).toEqual([
      ["js-gzip", "/login", "JavaScript ≤ 82.0 KB gzip", "fail"],
      ["signed-in-js-gzip", "/profile", "JavaScript ≤ 100.0 KB gzip", "pass"],
      ["signed-in-js-gzip", "/profile/security", "JavaScript ≤ 100.0 KB gzip", "fail"],
      ["js-gzip", "/profiles", "JavaScript ≤ 82.0 KB gzip", "fail"],
      ["signed-in-js-gzip", "/org/members", "JavaScript ≤ 100.0 KB gzip", "pass"],
      ["js-gzip", "/invitations", "JavaScript ≤ 82.0 KB gzip", "fail"],
    ]);
  });

  it("holds /profile/usage to its own 150,000 bytes, its chart included", () => {
    const checks = pageWeightChecks([weight("/profile/usage", 149_000), weight("/profile/usage", 150_001)]);
    expect(checks.filter((c) => c.id === "js-gzip").map((c) => [c.budget, c.verdict])).toEqual([
      ["JavaScript ≤ 150.0 KB gzip", "pass"],
      ["JavaScript ≤ 150.0 KB gzip", "fail"],
    ]);
  });
});

describe("the operator console's budgets", () => {
  it("holds /admin pages to 150,000 bytes with the chart the chart pages load", () => {
    const checks = pageWeightChecks(
      [weight("/admin", 100_000), weight("/admin/customer", 100_001), weight("/admin/audit", 100_001)],
      50_000,
    );
    expect(checks.map((c) => [c.id, c.subject, c.measured, c.verdict])).toEqual([
      ["admin-js-gzip", "/admin", "150.0 KB", "pass"],
      ["signed-in-js-gzip", "/admin", "100.0 KB", "pass"],
      ["admin-js-gzip", "/admin/customer", "150.0 KB", "fail"],
      ["signed-in-js-gzip", "/admin/customer", "100.0 KB", "fail"],
      ["admin-js-gzip", "/admin/audit", "100.0 KB", "pass"],
      ["signed-in-js-gzip", "/admin/audit", "100.0 KB", "fail"],
    ]);
  });

  it("checks search, the customer page, the metrics and the audit append against OPERATIONS.md", () => {
    const latency = (label: string, p99: number) => ({ label, samples: 100, p50: p99 / 2, p99 });
    const checks = consoleChecks({
      users: 100_000,
      spends: 1_000_000,
      search: [latency("search: e-mail prefix", 49.9), latency("search: all", 50)],
      customerPage: latency("customer page", 99),
      metrics90: latency("metrics", 300),
      auditAppendMs: 0.99,
    });
    expect(checks.map((c) => [c.id, c.subject, c.verdict])).toEqual([
      ["console-search", "search: e-mail prefix", "pass"],
      ["console-search", "search: all", "fail"],
      ["console-customer", "customer page", "pass"],
      ["console-metrics", "metrics", "fail"],
      ["console-audit", "an audit entry in the action's transaction", "pass"],
    ]);
  });
});

describe("lighthouseChecks", () => {
  it("passes a page at 100 with LCP 1.0 s, CLS 0 and TBT 49 ms", () => {
    const checks = lighthouseChecks([page("/", [run({ lcp: 1000, tbt: 49 }), run(), run()])]);
    expect(checks.every((c) => c.verdict === "pass")).toBe(true);
    expect(checks.map((c) => c.id)).toEqual([
      "lh-performance",
      "lh-accessibility",
      "lh-best-practices",
      "lh-seo",
      "lh-lcp",
      "lh-cls",
      "lh-tbt",
    ]);
  });

  it("fails performance when one run drops below 98 even if the median is 100", () => {
    const [performance] = lighthouseChecks([page("/plans", [run(), run({ performance: 97 }), run()])]);
    expect(performance).toMatchObject({
      id: "lh-performance",
      verdict: "fail",
      measured: "100 (lowest run 97)",
    });
  });

  it("takes medians for LCP and TBT, the worst run for CLS and the category scores", () => {
    const checks = lighthouseChecks([
      page("/login", [
        run({ lcp: 1200, tbt: 200, cls: 0.002, accessibility: 96 }),
        run({ lcp: 900, tbt: 10 }),
        run({ lcp: 950, tbt: 20 }),
      ]),
    ]);
    expect(verdicts(checks)).toMatchObject({
      "lh-lcp /login": "pass",
      "lh-tbt /login": "pass",
      "lh-cls /login": "fail",
      "lh-accessibility /login": "fail",
    });
    expect(checks.find((c) => c.id === "lh-tbt")?.measured).toBe("20 ms");
  });

  it("spares /profile (logged in, noindex) the SEO and public performance budgets only", () => {
    const checks = lighthouseChecks([page("/profile", [run({ seo: 63, performance: 80, lcp: 2100 })], true)]);
    expect(checks.map((c) => c.id)).toEqual([
      "lh-accessibility",
      "lh-best-practices",
      "lh-lcp",
      "lh-cls",
      "lh-tbt",
    ]);
    expect(verdicts(checks)["lh-lcp /profile (logged in)"]).toBe("fail");
  });
});

describe("apiChecks", () => {
  it("checks products on both databases, users/me's ratio, the service calls and usage on PostgreSQL only, and the login-load p99", () => {
    const checks = apiChecks([
      database("PGlite", 0.6, 0.03, 20, { ratio: 0.1, p99: 90 }),
      database("PostgreSQL", 0.49, 0.25, 50, { ratio: 0.25, p99: 20 }, 50),
    ]);
    expect(verdicts(checks)).toEqual({
      "api-products PGlite": "pass",
      "api-auto-top-up-consume-rate PGlite": "not measured",
      "api-auto-top-up-consume-p99 PGlite": "not measured",
      "api-auto-top-up-latency PGlite": "not measured",
      "api-me-under-logins PGlite": "pass",
      "api-products PostgreSQL": "fail",
      "api-introspect-floor PostgreSQL": "not measured",
      "api-consume-floor PostgreSQL": "not measured",
      "api-consume-org-floor PostgreSQL": "not measured",
      "api-introspect-p99 PostgreSQL": "fail",
      "api-consume-p99 PostgreSQL": "fail",
      "api-org-consume-p99 PostgreSQL": "not measured",
      "api-org-consume-rate PostgreSQL": "not measured",
      "api-org-me-p99 PostgreSQL": "not measured",
      "api-membership-check PostgreSQL": "not measured",
      "api-usage-p99 PostgreSQL": "fail",
      "api-me PostgreSQL": "pass",
      "api-auto-top-up-consume-rate PostgreSQL": "not measured",
      "api-auto-top-up-consume-p99 PostgreSQL": "not measured",
      "api-auto-top-up-latency PostgreSQL": "not measured",
      "api-me-under-logins PostgreSQL": "fail",
    });
  });

  it("marks a database that could not be measured, with the reason", () => {
    const checks = apiChecks([{ database: "PostgreSQL", skipped: "no PostgreSQL at 127.0.0.1:5432" }]);
    expect(checks.map((c) => [c.id, c.verdict, c.measured])).toEqual([
      ["api-products", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-introspect-floor", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-consume-floor", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-consume-org-floor", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-introspect-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-consume-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-org-consume-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-org-consume-rate", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-org-me-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-membership-check", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-usage-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-me", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-auto-top-up-consume-rate", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-auto-top-up-consume-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-auto-top-up-latency", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-me-under-logins", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
    ]);
  });
});

describe("the floor's budgets (issue 35)", () => {
  const IDS = ["api-introspect-floor", "api-consume-floor", "api-consume-org-floor"];
  const floorChecks = (db: DatabaseApi) => apiChecks([db]).filter((c) => IDS.includes(c.id));
  const row = (db: DatabaseApi) =>
    Object.fromEntries(floorChecks(db).map((c) => [c.id, [c.measured, c.verdict, c.worse]]));
  const postgres = () => database("PostgreSQL", 0.6, 0.3, 20);

  it("is 85% of the floor for consume, 100% for introspect with its cache, and a share just under never reads as it", () => {
    expect(LIMITS.floorShare).toBe(0.85);
    expect(LIMITS.introspectFloorShare).toBe(1);
    expect([0.8497, 0.85, 0.57, 1.2].map(shareText)).toEqual(["84.9%", "85.0%", "57.0%", "120.0%"]);
  });

  it("judge each call by the median of its rounds' shares of the floor, not by the medians' share", () => {
    // Introspect's rounds: 1.10, 0.50, 0.99 (median 0.99); the medians' share would be 1100 / 1000 = 1.10.
    const db = withFloors(postgres(), {
      introspect: { project: [1100, 500, 1485], floor: [1000, 1000, 1500] },
      consume: { project: [849, 849, 849], floor: [1000, 1000, 1000] },
      "consume-org": { project: [850, 850, 850], floor: [1000, 1000, 1000] },
    });
    expect(floorShare(db, "introspect")).toBeCloseTo(0.99);
    expect(row(db)).toEqual({
      "api-introspect-floor": ["99.0%", "fail", "lower"],
      "api-consume-floor": ["84.9%", "fail", "lower"],
      "api-consume-org-floor": ["85.0%", "pass", "lower"],
    });
  });

  it("say which call, against what, and are not measured without the floor (PGlite, or organisations missing)", () => {
    const db = withFloors(postgres(), { consume: { project: [900], floor: [1000] } });
    const checks = floorChecks(db);
    expect(checks.map((c) => [c.id, c.verdict])).toEqual([
      ["api-introspect-floor", "not measured"],
      ["api-consume-floor", "pass"],
      ["api-consume-org-floor", "not measured"],
    ]);
    expect(checks[1]?.budget).toBe(
      "POST /v1/credits/consume (personal keys) ≥ 85% of its floor's requests/s (bare Hono, same SQL, same rounds) at 20 concurrent on PostgreSQL",
    );
    expect(floorShare(postgres(), "consume")).toBeUndefined();
    expect(floorChecks(database("PGlite", 0.6, 0.3, 20))).toEqual([]);
  });

  it("leave the share of /healthz as context: no budget on it for introspect and consume", () => {
    const ids = apiChecks([postgres()]).map((c) => c.id);
    expect(ids).not.toContain("api-introspect");
    expect(ids).not.toContain("api-consume");
    expect(ids).toContain("api-introspect-p99");
    expect(ids).toContain("api-consume-p99");
  });
});

describe("the organisations' budgets (issue 33)", () => {
  const ORG_IDS = ["api-org-consume-p99", "api-org-consume-rate", "api-org-me-p99", "api-membership-check"];
  const orgs = (overrides: Partial<OrgFigures> = {}): OrgFigures => ({
    personalRates: [1000, 1000, 1000],
    orgRates: [900, 900, 900],
    consumeP99: 19,
    meP99: 19,
    membership: { pairs: 100, withoutMs: 2, withMs: 2.5 },
    ...overrides,
  });
  const orgChecks = (figures: OrgFigures, kind: "PGlite" | "PostgreSQL" = "PostgreSQL") =>
    apiChecks([database(kind, 0.6, 0.3, 20, undefined, 30, figures)]).filter((c) => ORG_IDS.includes(c.id));
  const row = (figures: OrgFigures) =>
    Object.fromEntries(orgChecks(figures).map((c) => [c.id, [c.measured, c.verdict]]));

  it("are the limits ORGANISATIONS.md gives", () => {
    expect([
      LIMITS.orgConsumeP99Ms,
      LIMITS.orgConsumeRateOfPersonal,
      LIMITS.orgMeP99Ms,
      LIMITS.membershipCheckMs,
    ]).toEqual([20, 0.9, 20, 1]);
  });

  it("pass just inside every limit: p99 19 ms, 90.0% of the personal rate, the check 0.99 ms", () => {
    expect(row(orgs({ membership: { pairs: 100, withoutMs: 2, withMs: 2.99 } }))).toEqual({
      "api-org-consume-p99": ["19 ms", "pass"],
      "api-org-consume-rate": ["90.0%", "pass"],
      "api-org-me-p99": ["19 ms", "pass"],
      "api-membership-check": ["0.99 ms", "pass"],
    });
  });

  it("fail at every limit: p99 20 ms, 89.9% of the personal rate, the check 1 ms", () => {
    expect(
      row(
        orgs({
          consumeP99: 20,
          meP99: 20,
          orgRates: [899, 899, 899],
          membership: { pairs: 100, withoutMs: 2, withMs: 3 },
        }),
      ),
    ).toEqual({
      "api-org-consume-p99": ["20 ms", "fail"],
      "api-org-consume-rate": ["89.9%", "fail"],
      "api-org-me-p99": ["20 ms", "fail"],
      "api-membership-check": ["1.00 ms", "fail"],
    });
  });

  it("name the subject and the budget, and which way is worse", () => {
    const checks = orgChecks(orgs());
    expect(checks.map((c) => [c.id, c.subject, c.worse])).toEqual([
      ["api-org-consume-p99", "PostgreSQL", "higher"],
      ["api-org-consume-rate", "PostgreSQL", "lower"],
      ["api-org-me-p99", "PostgreSQL", "higher"],
      ["api-membership-check", "PostgreSQL", "higher"],
    ]);
    expect(checks.map((c) => c.budget)).toEqual([
      "POST /v1/credits/consume through an organisation key with a member cap p99 < 20 ms at 20 concurrent on PostgreSQL",
      "POST /v1/credits/consume through an organisation key ≥ 90% of a personal key's requests/s in the same run on PostgreSQL",
      "GET /v1/users/me with X-Organization p99 < 20 ms on PostgreSQL",
      "X-Organization's membership check adds < 1 ms to GET /v1/users/me (median with it minus median without, same run) on PostgreSQL",
    ]);
  });

  it("compare the organisation's consume with the personal one round by round, not by their medians", () => {
    // Each round's share: 1.40, 0.90, 0.867 (median 0.90); the medians' share would be 1400 / 1500 = 0.933.
    const figures = orgs({ personalRates: [1000, 2000, 1500], orgRates: [1400, 1800, 1300] });
    expect(orgConsumeShare(database("PostgreSQL", 0.6, 0.3, 20, undefined, 30, figures))).toBeCloseTo(0.9);
    expect(row(figures)["api-org-consume-rate"]).toEqual(["90.0%", "pass"]);
  });

  it("a faster organisation consume passes; a membership check that costs nothing passes", () => {
    expect(
      row(orgs({ orgRates: [1200, 1100, 1300], membership: { pairs: 1, withoutMs: 2.2, withMs: 2.1 } })),
    ).toMatchObject({
      "api-org-consume-rate": ["120.0%", "pass"],
      "api-membership-check": ["-0.10 ms", "pass"],
    });
  });

  it("are PostgreSQL's only, and not measured when its run has no organisations", () => {
    expect(orgChecks(orgs(), "PGlite")).toEqual([]);
    expect(orgConsumeShare(database("PostgreSQL", 0.6, 0.3, 20))).toBeUndefined();
    const bare = apiChecks([database("PostgreSQL", 0.6, 0.3, 20)]).filter((c) => ORG_IDS.includes(c.id));
    expect(bare.map((c) => [c.id, c.verdict, c.measured])).toEqual(
      ORG_IDS.map((id) => [id, "not measured", "not measured"]),
    );
  });
});

describe("auto top-up's budgets (AUTO-TOP-UP.md)", () => {
  const IDS = ["api-auto-top-up-consume-rate", "api-auto-top-up-consume-p99", "api-auto-top-up-latency"];
  const twentyAt = (ms: number) => Array.from({ length: 20 }, (_, i) => (i < 18 ? 200 : ms));
  const figures = (overrides: Partial<AutoTopUpFigures> = {}): AutoTopUpFigures => ({
    rates: [1000, 1000, 1000],
    p99s: [10, 10, 10],
    personal: { rates: [1000, 1000, 1000], p99s: [10, 10, 10] },
    crossingsMs: twentyAt(900),
    ...overrides,
  });
  const row = (f: AutoTopUpFigures, kind: "PGlite" | "PostgreSQL" = "PostgreSQL") =>
    Object.fromEntries(
      apiChecks([database(kind, 0.6, 0.3, 20, undefined, 30, undefined, f)])
        .filter((c) => IDS.includes(c.id))
        .map((c) => [c.id, [c.measured, c.verdict]]),
    );

  it("are the contract's: ±10 % of consume without it in the same run, 5 s p95", () => {
    expect([LIMITS.autoTopUpConsumeTolerance, LIMITS.autoTopUpP95Ms]).toEqual([0.1, 5000]);
  });

  it("pass at the limits: 10 % slower or faster, p99 10 % higher or lower, p95 5.00 s", () => {
    const slower = figures({ rates: [900, 900, 900], p99s: [11, 11, 11], crossingsMs: twentyAt(5000) });
    expect(row(slower)).toEqual({
      "api-auto-top-up-consume-rate": ["-10.0%", "pass"],
      "api-auto-top-up-consume-p99": ["+10.0%", "pass"],
      "api-auto-top-up-latency": ["5.00 s", "pass"],
    });
    expect(row(figures({ rates: [1100, 1100, 1100], p99s: [9, 9, 9] }))).toMatchObject({
      "api-auto-top-up-consume-rate": ["+10.0%", "pass"],
      "api-auto-top-up-consume-p99": ["-10.0%", "pass"],
    });
  });

  it("fail past them, either way: the spend path's cost is unchanged or it is not", () => {
    expect(row(figures({ rates: [899, 899, 899], p99s: [12, 12, 12], crossingsMs: twentyAt(5001) }))).toEqual(
      {
        "api-auto-top-up-consume-rate": ["-10.1%", "fail"],
        "api-auto-top-up-consume-p99": ["+20.0%", "fail"],
        "api-auto-top-up-latency": ["5.00 s", "fail"],
      },
    );
    expect(row(figures({ rates: [1200, 1200, 1200] }))["api-auto-top-up-consume-rate"]).toEqual([
      "+20.0%",
      "fail",
    ]);
  });

  it("compare round by round, not by the medians", () => {
    // Each round's rate share: 1.40, 0.90, 0.867 (median 0.90); p99: 2.0, 1.0, 0.5 (median 1.0).
    const f = figures({
      rates: [1400, 1800, 1300],
      p99s: [20, 10, 5],
      personal: { rates: [1000, 2000, 1500], p99s: [10, 10, 10] },
    });
    const shares = autoTopUpConsumeShares(database("PostgreSQL", 0.6, 0.3, 20, undefined, 30, undefined, f));
    expect(shares?.rate).toBeCloseTo(0.9);
    expect(shares?.p99).toBeCloseTo(1);
  });

  it("apply to either database, and want at least 20 crossings for the p95", () => {
    const { crossingsMs: _, ...withoutCrossings } = figures();
    expect(row(figures(), "PGlite")).toEqual({
      "api-auto-top-up-consume-rate": ["+0.0%", "pass"],
      "api-auto-top-up-consume-p99": ["+0.0%", "pass"],
      "api-auto-top-up-latency": ["0.90 s", "pass"],
    });
    expect(row(figures({ crossingsMs: [100, 100] }))["api-auto-top-up-latency"]).toEqual([
      "not measured",
      "not measured",
    ]);
    expect(row(withoutCrossings)["api-auto-top-up-latency"]?.[1]).toBe("not measured");
  });
});

describe("summariseBudgets", () => {
  it("gives one verdict per budget, with its worst subject and every failure", () => {
    const [js, css] = summariseBudgets(
      pageWeightChecks([weight("/a", 81_000), weight("/b", 83_000), weight("/c", 70_000)]),
    );
    expect(js).toMatchObject({ id: "js-gzip", verdict: "fail", subjects: 3 });
    expect(js?.worst?.subject).toBe("/b");
    expect(js?.failed.map((c) => c.subject)).toEqual(["/b"]);
    expect(css).toMatchObject({ id: "css-gzip", verdict: "pass" });
  });

  it("names the lowest score as the worst where lower is worse", () => {
    const [performance] = summariseBudgets(
      lighthouseChecks([page("/", [run({ performance: 99 })]), page("/plans", [run({ performance: 98 })])]),
    );
    expect(performance?.worst?.subject).toBe("/plans");
  });

  it("is not measured when nothing was", () => {
    const summary = summariseBudgets(apiChecks([{ database: "PGlite", skipped: "--only=weight" }]));
    expect(summary.every((b) => b.verdict === "not measured")).toBe(true);
  });
});
