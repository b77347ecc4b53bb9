import { describe, expect, it } from "vitest";
import { apiChecks, consoleChecks, lighthouseChecks, pageWeightChecks, summariseBudgets } from "./budgets.ts";
import { database, page, run, weight } from "./test-fixtures.ts";

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
      "api-me-under-logins PGlite": "pass",
      "api-products PostgreSQL": "fail",
      "api-introspect PostgreSQL": "pass",
      "api-introspect-p99 PostgreSQL": "fail",
      "api-consume PostgreSQL": "pass",
      "api-consume-p99 PostgreSQL": "fail",
      "api-usage-p99 PostgreSQL": "fail",
      "api-me PostgreSQL": "pass",
      "api-me-under-logins PostgreSQL": "fail",
    });
  });

  it("marks a database that could not be measured, with the reason", () => {
    const checks = apiChecks([{ database: "PostgreSQL", skipped: "no PostgreSQL at 127.0.0.1:5432" }]);
    expect(checks.map((c) => [c.id, c.verdict, c.measured])).toEqual([
      ["api-products", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-introspect", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-introspect-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-consume", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-consume-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-usage-p99", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-me", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
      ["api-me-under-logins", "not measured", "no PostgreSQL at 127.0.0.1:5432"],
    ]);
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
