import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Result } from "autocannon";
import { describe, expect, it } from "vitest";
import {
  apiRoutes,
  combineRounds,
  DEFAULT_API_SETTINGS,
  failures,
  figures,
  measureMembershipCheck,
  membershipCheckMs,
  ratioOverRounds,
  roundOrder,
  roundsProblem,
} from "./api.ts";
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

describe("apiRoutes with organisations (issue 33)", () => {
  const user = { username: "ann", password: "Secret#123", accessToken: "t0k" };
  const access = {
    serviceKey: "gsk_service",
    keys: [
      { key: "gpk_a", id: "key-a" },
      { key: "gpk_b", id: "key-b" },
    ],
  };
  const orgs = {
    orgId: "0199a1b2-0000-7000-8000-000000000001",
    keys: [
      { key: "gpk_x", id: "org-key-x" },
      { key: "gpk_y", id: "org-key-y" },
      { key: "gpk_z", id: "org-key-z" },
    ],
  };
  const body = (route: { nextBody?: () => string } | undefined) =>
    JSON.parse(route?.nextBody?.() ?? "null") as { api_key_id: string; idempotency_key: string };

  it("measures users/me with X-Organization after users/me, and the organisations' consume after consume", () => {
    const routes = apiRoutes(user, access, undefined, orgs);
    expect(routes.map((r) => r.id)).toEqual([
      "baseline",
      "products",
      "me",
      "me-org",
      "token",
      "introspect",
      "consume",
      "consume-org",
    ]);
    const meOrg = routes.find((r) => r.id === "me-org");
    expect(meOrg).toMatchObject({ method: "GET", path: "/v1/users/me" });
    expect(meOrg?.headers).toEqual({ Authorization: "Bearer t0k", "X-Organization": orgs.orgId });
    expect(meOrg?.connections).toBeUndefined();
    const consumeOrg = routes.find((r) => r.id === "consume-org");
    expect(consumeOrg).toMatchObject({ method: "POST", path: "/v1/credits/consume", connections: 20 });
    expect(consumeOrg?.headers).toEqual({
      "Content-Type": "application/json",
      Authorization: "Bearer gsk_service",
    });
  });

  it("runs each compared pair side by side, the pair's order reversed in even rounds", () => {
    const routes = apiRoutes(user, access, undefined, orgs);
    const ids = (round: number) => roundOrder(routes, round).map((r) => r.id);
    const asBuilt = ["baseline", "products", "me", "me-org", "token", "introspect", "consume", "consume-org"];
    expect(ids(1)).toEqual(asBuilt);
    expect(ids(3)).toEqual(asBuilt);
    const reversed = [
      "baseline",
      "products",
      "me-org",
      "me",
      "token",
      "introspect",
      "consume-org",
      "consume",
    ];
    expect(ids(2)).toEqual(reversed);
    expect(ids(4)).toEqual(reversed);
    // Without organisations (PGlite) nothing moves, and the routes given are left as they were.
    const alone = apiRoutes(user, access, undefined, undefined);
    expect(roundOrder(alone, 2).map((r) => r.id)).toEqual(alone.map((r) => r.id));
    expect(routes.map((r) => r.id)).toEqual(asBuilt);
  });

  it("charges the organisations' keys in turn, never reusing an idempotency key across the two consumes", () => {
    const routes = apiRoutes(user, access, undefined, orgs);
    const personal = routes.find((r) => r.id === "consume");
    const org = routes.find((r) => r.id === "consume-org");
    const orgCharges = [body(org), body(org), body(org), body(org)];
    const personalCharges = [body(personal), body(personal)];
    expect(new Set(orgCharges.map((c) => c.api_key_id))).toEqual(
      new Set(["org-key-x", "org-key-y", "org-key-z"]),
    );
    for (const [a, b] of [
      [orgCharges[0], orgCharges[1]],
      [orgCharges[1], orgCharges[2]],
    ])
      expect(a?.api_key_id).not.toBe(b?.api_key_id);
    expect(personalCharges.every((c) => c.api_key_id.startsWith("key-"))).toBe(true);
    expect(body(org)).toMatchObject({ feature: "background-remover", people: "one" });
    const keys = [...orgCharges, ...personalCharges].map((c) => c.idempotency_key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("runs consume with auto top-up on in consume's group, each pair's order flipped in even rounds", () => {
    const autoTopUp = [{ key: "gpk_t", id: "atu-key" }];
    const routes = apiRoutes(user, access, undefined, orgs, autoTopUp);
    const ids = (round: number) => roundOrder(routes, round).map((r) => r.id);
    // Consume with auto top-up on right after consume: both inherit alike what the one before left.
    expect(ids(1).slice(-3)).toEqual(["consume", "consume-auto-top-up", "consume-org"]);
    expect(ids(2).slice(-3)).toEqual(["consume-org", "consume-auto-top-up", "consume"]);
    expect(ids(2).slice(0, 5)).toEqual(["baseline", "products", "me-org", "me", "token"]);
    const on = routes.find((r) => r.id === "consume-auto-top-up");
    expect(on).toMatchObject({ method: "POST", path: "/v1/credits/consume", connections: 20 });
    expect(body(on)).toMatchObject({ api_key_id: "atu-key", feature: "background-remover" });
    // Without organisations (PGlite) the pair is consume and consume with auto top-up on.
    const pglite = apiRoutes(user, access, undefined, undefined, autoTopUp);
    expect(
      roundOrder(pglite, 2)
        .map((r) => r.id)
        .slice(-2),
    ).toEqual(["consume-auto-top-up", "consume"]);
    expect(
      roundOrder(pglite, 3)
        .map((r) => r.id)
        .slice(-2),
    ).toEqual(["consume", "consume-auto-top-up"]);
  });

  it("measures each floor call right before its project call, the pair's order flipped in even rounds", () => {
    const autoTopUp = [{ key: "gpk_t", id: "atu-key" }];
    const routes = apiRoutes(user, access, undefined, orgs, autoTopUp, "http://127.0.0.1:4599");
    const ids = (round: number) => roundOrder(routes, round).map((r) => r.id);
    const service = [
      "floor-introspect",
      "introspect",
      "floor-consume",
      "consume",
      "consume-auto-top-up",
      "floor-consume-org",
      "consume-org",
    ];
    expect(ids(1).slice(-7)).toEqual(service);
    expect(ids(2).slice(-7)).toEqual([
      "introspect",
      "floor-introspect",
      "consume-org",
      "floor-consume-org",
      "consume-auto-top-up",
      "consume",
      "floor-consume",
    ]);
    expect(ids(3).slice(-7)).toEqual(service);
    // The floor's request is its call's, sent to the floor's origin; the project's keeps its own.
    for (const [floorId, call] of [
      ["floor-introspect", "introspect"],
      ["floor-consume", "consume"],
      ["floor-consume-org", "consume-org"],
    ] as const) {
      const floor = routes.find((r) => r.id === floorId);
      const project = routes.find((r) => r.id === call);
      expect(floor).toMatchObject({
        origin: "http://127.0.0.1:4599",
        method: project?.method,
        path: project?.path,
        headers: project?.headers,
        connections: 20,
        label: `floor: ${project?.label}`,
      });
      expect(project?.origin).toBeUndefined();
    }
    expect(body(routes.find((r) => r.id === "floor-consume-org")).api_key_id).toMatch(/^org-key-/);
    // Without a floor (PGlite), none of its calls.
    expect(apiRoutes(user, access, undefined, orgs).some((r) => r.id.startsWith("floor-"))).toBe(false);
  });

  it("leaves the organisations' routes out without them (PGlite)", () => {
    const ids = apiRoutes(user, access).map((r) => r.id);
    expect(ids).not.toContain("me-org");
    expect(ids).not.toContain("consume-org");
  });
});

describe("the membership check's cost", () => {
  it("is the median with X-Organization minus the median without", () => {
    expect(membershipCheckMs({ pairs: 10, withoutMs: 1.25, withMs: 1.75 })).toBe(0.5);
    expect(membershipCheckMs({ pairs: 10, withoutMs: 2, withMs: 1.5 })).toBe(-0.5);
  });

  it("is timed one request at a time, alternating which goes first, after a tenth as many untimed pairs", async () => {
    const seen: string[] = [];
    let open = 0;
    let mostOpen = 0;
    const server = createServer((req, res) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      seen.push(`${req.url} ${req.headers.authorization} ${req.headers["x-organization"] ?? "-"}`);
      // The organisation's answer is slower by 5 ms: the medians must tell them apart.
      setTimeout(
        () => {
          open -= 1;
          res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
        },
        req.headers["x-organization"] ? 6 : 1,
      );
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const lines: string[] = [];
    try {
      const figures = await measureMembershipCheck(
        origin,
        { username: "ann", password: "x", accessToken: "t0k" },
        { orgId: "org-1", keys: [] },
        20,
        (line) => lines.push(line),
      );
      expect(figures.pairs).toBe(20);
      expect(membershipCheckMs(figures)).toBeGreaterThan(3);
      expect(figures.withoutMs).toBeGreaterThan(0.5);
    } finally {
      await new Promise((done) => server.close(done));
    }
    expect(mostOpen).toBe(1);
    // 2 warm-up pairs and 20 timed: 44 requests, half with the header, alternating the order.
    expect(seen).toHaveLength(44);
    expect(seen.slice(0, 4)).toEqual([
      "/v1/users/me Bearer t0k org-1",
      "/v1/users/me Bearer t0k -",
      "/v1/users/me Bearer t0k -",
      "/v1/users/me Bearer t0k org-1",
    ]);
    expect(seen.filter((s) => s.endsWith("org-1"))).toHaveLength(22);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ {2}users\/me one at a time, 20 pairs: median \d+\.\d{3} ms without X-Organization/,
    );
  });

  it("stops at an answer that is not 2xx", async () => {
    const server = createServer((_req, res) => res.writeHead(404).end("{}"));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(
        measureMembershipCheck(
          origin,
          { username: "a", password: "x", accessToken: "t" },
          { orgId: "o", keys: [] },
          4,
        ),
      ).rejects.toThrow(`GET ${origin}/v1/users/me: 404`);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});

describe("rounds", () => {
  it("must be even, so that each compared pair runs in both orders as often", () => {
    expect(DEFAULT_API_SETTINGS.rounds % 2).toBe(0);
    expect(roundsProblem(DEFAULT_API_SETTINGS.rounds)).toBeUndefined();
    expect(roundsProblem(2)).toBeUndefined();
    expect(roundsProblem(10)).toBeUndefined();
    expect(roundsProblem(3)).toBe(
      "--rounds must be even: each compared pair runs in both orders equally often (decision 043)",
    );
    expect(roundsProblem(1)).toBe("--rounds must be a whole number ≥ 2");
    expect(roundsProblem(0)).toBe("--rounds must be a whole number ≥ 2");
    expect(roundsProblem(2.5)).toBe("--rounds must be a whole number ≥ 2");
    expect(roundsProblem(Number.NaN)).toBe("--rounds must be a whole number ≥ 2");
  });

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
