import { describe, expect, it } from "vitest";
import { aggregateRuns, summarise } from "./lighthouse.ts";
import { run } from "./test-fixtures.ts";

const lhr = {
  categories: {
    performance: { score: 0.99, auditRefs: [{ id: "largest-contentful-paint", weight: 25 }] },
    accessibility: { score: 1, auditRefs: [{ id: "color-contrast", weight: 7 }] },
    "best-practices": { score: 1, auditRefs: [] },
    seo: {
      score: 0.63,
      auditRefs: [
        { id: "is-crawlable", weight: 1 },
        { id: "hreflang", weight: 0 },
      ],
    },
    "agentic-browsing": { score: 0.5, auditRefs: [{ id: "cumulative-layout-shift", weight: 1 }] },
  },
  audits: {
    "first-contentful-paint": { score: 1, numericValue: 812.4 },
    "largest-contentful-paint": { score: 0.98, numericValue: 950 },
    "total-blocking-time": { score: 1, numericValue: 12 },
    "speed-index": { score: 1, numericValue: 900 },
    "cumulative-layout-shift": { score: 1, numericValue: 0 },
    "color-contrast": { score: 1 },
    "is-crawlable": { score: 0 },
    hreflang: { score: 0 },
    "network-requests": {
      score: null,
      details: {
        items: [
          { resourceType: "Document", transferSize: 6000 },
          { resourceType: "Script", transferSize: 60000, url: "http://127.0.0.1:4321/_astro/shell.js" },
          { resourceType: "Script", transferSize: 700, url: "http://127.0.0.1:4321/_astro/island.js?v=1" },
          { resourceType: "Stylesheet", transferSize: 16000 },
        ],
      },
    },
  },
  runWarnings: [],
};

describe("summarise", () => {
  it("reads the four category scores, the five metrics and what was transferred", () => {
    expect(summarise(lhr)).toEqual({
      performance: 99,
      accessibility: 100,
      bestPractices: 100,
      seo: 63,
      fcp: 812.4,
      lcp: 950,
      tbt: 12,
      speedIndex: 900,
      cls: 0,
      scriptTransfer: 60700,
      stylesheetTransfer: 16000,
      scriptPaths: ["/_astro/shell.js", "/_astro/island.js"],
      failedAudits: ["seo: is-crawlable"],
      runWarnings: [],
    });
  });

  it("fails loudly when Lighthouse could not audit the page", () => {
    expect(() => summarise({ ...lhr, runtimeError: { code: "NO_FCP", message: "no paint" } })).toThrow(
      /NO_FCP/,
    );
  });
});

describe("aggregateRuns", () => {
  it("takes each metric's median, the lowest scores and the worst CLS", () => {
    const page = aggregateRuns("/login", false, [
      run({ performance: 100, lcp: 900, tbt: 10, cls: 0 }),
      run({ performance: 97, lcp: 1100, tbt: 90, cls: 0.01, failedAudits: ["seo: x"] }),
      run({ performance: 99, lcp: 950, tbt: 20, cls: 0 }),
    ]);
    expect(page.median).toMatchObject({ performance: 99, lcp: 950, tbt: 20, cls: 0 });
    expect(page.minPerformance).toBe(97);
    expect(page.maxCls).toBe(0.01);
    expect(page.failedAudits).toEqual(["seo: x"]);
  });
});
