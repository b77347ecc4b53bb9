import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  CROSSING_THRESHOLD,
  crossingOrgsFor,
  latencyFigures,
  measureTopUpLatency,
  PACK_CREDITS,
} from "./auto-top-up.ts";

describe("the crossings' figures", () => {
  it("are the median, the nearest-rank p95 and the worst, with the organisations and threshold", () => {
    const times = [...Array.from({ length: 22 }, (_, i) => 100 + i), 900, 4000];
    expect(latencyFigures(times, 3, 1)).toEqual({
      crossings: 24,
      organisations: 3,
      threshold: CROSSING_THRESHOLD,
      timesMs: times,
      p50Ms: 111.5,
      p95Ms: 900,
      maxMs: 4000,
      missed: 1,
    });
  });

  it("need an organisation per 8 crossings: under the daily limit of 10 auto top-ups", () => {
    expect([crossingOrgsFor(20), crossingOrgsFor(24), crossingOrgsFor(25)]).toEqual([3, 3, 4]);
  });
});

describe("measureTopUpLatency", () => {
  it("crosses each organisation's threshold in turn and times each until the pack's credits show", async () => {
    // A stand-in for the server: balances per organisation; a spend answers at once and the pack
    // arrives 40 ms later, as the background charge grants it.
    const balances = new Map([
      ["org-1", 1000],
      ["org-2", 1000],
    ]);
    const spends: { org: string; quantity: number; key: string }[] = [];
    const server = createServer((req, res) => {
      const org = req.headers["x-organization"] as string;
      if (req.url === "/v1/users/me") {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ credit_balance: balances.get(org) }));
        return;
      }
      let raw = "";
      req.on("data", (chunk) => {
        raw += chunk;
      });
      req.on("end", () => {
        const body = JSON.parse(raw) as { api_key_id: string; quantity: number; idempotency_key: string };
        const charged = body.api_key_id === "key-1" ? "org-1" : "org-2";
        spends.push({ org: charged, quantity: body.quantity, key: body.idempotency_key });
        const left = (balances.get(charged) ?? 0) - body.quantity * 10;
        balances.set(charged, left);
        setTimeout(() => balances.set(charged, (balances.get(charged) ?? 0) + PACK_CREDITS), 40);
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ credit_balance: left }));
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const lines: string[] = [];
    try {
      const figures = await measureTopUpLatency(
        origin,
        "gsk_service",
        [
          { orgId: "org-1", accessToken: "t", keyId: "key-1" },
          { orgId: "org-2", accessToken: "t", keyId: "key-2" },
        ],
        4,
        (line) => lines.push(line),
      );
      expect(figures).toMatchObject({ crossings: 4, organisations: 2, missed: 0 });
      for (const t of figures.timesMs) {
        expect(t).toBeGreaterThanOrEqual(40);
        expect(t).toBeLessThan(2000);
      }
    } finally {
      await new Promise((done) => server.close(done));
    }
    // 1,000 - 610 = 390, just below 400; then 890 - 500 = 390 again. Never an idempotency key twice.
    expect(spends.map((s) => [s.org, s.quantity])).toEqual([
      ["org-1", 61],
      ["org-2", 61],
      ["org-1", 50],
      ["org-2", 50],
    ]);
    expect(new Set(spends.map((s) => s.key)).size).toBe(4);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ {2}auto top-up, 4 crossings: spend to credits p50 \d+ ms, p95 \d+ ms, max \d+ ms$/,
    );
  });

  it("refuses more crossings than its organisations have room for in a day", async () => {
    await expect(
      measureTopUpLatency("http://127.0.0.1:1", "k", [{ orgId: "o", accessToken: "t", keyId: "k" }], 9),
    ).rejects.toThrow("9 crossings need 2 organisations");
  });
});
