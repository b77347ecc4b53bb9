import type { Result } from "autocannon";
import { describe, expect, it } from "vitest";
import { apiRoutes, combineRounds, failures, figures, ratioOverRounds } from "./api.ts";
import { load } from "./test-fixtures.ts";

const histogram = (p50: number, p99: number, average = 0) => ({
  average,
  mean: average,
  stddev: 0,
  min: 0,
  max: p99 * 2,
  total: average * 10,
  p2_5: 0,
  p50,
  p90: p99,
  p97_5: p99,
  p99,
});

describe("figures", () => {
  it("takes requests/s, latency percentiles and every failure from autocannon's result", () => {
    const result: Result = {
      url: "http://localhost/v1/users/me",
      requests: histogram(0, 0, 1234.5),
      latency: histogram(3, 40),
      throughput: histogram(0, 0),
      duration: 10,
      errors: 2,
      timeouts: 1,
      non2xx: 5,
      connections: 10,
      statusCodeStats: { 200: { count: 12340 }, 429: { count: 5 } },
    };
    expect(figures(result)).toEqual({
      requestsPerSecond: 1234.5,
      p50: 3,
      p99: 40,
      max: 80,
      requests: 12345,
      non2xx: 5,
      errors: 3,
      statuses: { 200: 12340, 429: 5 },
    });
  });
});

describe("failures", () => {
  it("names non-2xx statuses and connection errors", () => {
    expect(failures({ ...load(100), non2xx: 3, errors: 2, statuses: { 200: 97, 429: 3 } })).toBe(
      "3 answers 429, 2 connection errors or timeouts",
    );
    expect(failures(load(100))).toBe("none");
  });
});

describe("apiRoutes", () => {
  it("puts the baseline first and logs in with the seeded user's form", () => {
    const routes = apiRoutes({ username: "ann", password: "Secret#123", accessToken: "t0k" });
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /healthz",
      "GET /v1/subscription/products",
      "GET /v1/users/me",
      "POST /v1/token",
    ]);
    expect(routes[2]?.headers).toEqual({ Authorization: "Bearer t0k" });
    expect(routes[3]?.body).toBe("grant_type=password&username=ann&password=Secret%23123");
  });
});

describe("rounds", () => {
  it("combine into medians of rate and percentiles and totals of the counts", () => {
    const rounds = [
      { ...load(1000, 9), max: 30 },
      { ...load(1200, 5), non2xx: 2, statuses: { 200: 11_998, 429: 2 } },
      load(900, 7),
    ];
    expect(combineRounds(rounds)).toEqual({
      requestsPerSecond: 1000,
      p50: 1,
      p99: 7,
      max: 30,
      requests: 31_000,
      non2xx: 2,
      errors: 0,
      statuses: { 200: 10_000 + 11_998 + 9_000, 429: 2 },
    });
  });

  it("give the ratio as the median of each round's ratio to that round's baseline", () => {
    const baseline = [load(10_000), load(20_000), load(12_000)];
    const route = [load(3_000), load(4_000), load(3_600)];
    // 0.30, 0.20, 0.30: a slow baseline round does not drag the ratio down.
    expect(ratioOverRounds(route, baseline)).toBeCloseTo(0.3);
  });
});
