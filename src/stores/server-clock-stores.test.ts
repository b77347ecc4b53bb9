// The credit breakdown and the key list judge expiry, and the member list its month, by the
// server's clock (the answer's as_of), not the browser's: a visitor whose clock is wrong, or a
// server moved on by billing:advance, sees what the balance and the spending beside them count.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApiKey } from "../../contract/api-keys.ts";
import type { LedgerEntry } from "../../contract/billing.ts";
import { memoryStorage } from "../lib/memory-storage.ts";
import { $apiKeys, loadApiKeys } from "./api-keys.ts";
import { $creditBreakdown, loadCreditBreakdown } from "./credits.ts";
import { $members, loadMembers } from "./organizations.ts";

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
let answer: unknown;

beforeEach(() => {
  vi.stubGlobal("localStorage", memoryStorage());
  vi.stubGlobal("sessionStorage", memoryStorage());
  localStorage.setItem("x-access-token", "token");
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => json(answer)),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the credit breakdown", () => {
  const goodwill = (expiresAt: number): LedgerEntry => ({
    kind: "free",
    amount: 100,
    remaining: 100,
    granted_at: iso(Date.now() - 10 * DAY),
    expires_at: iso(expiresAt),
    source: "Goodwill credits",
  });

  it("leaves out credits the server's clock has expired, though the browser's has not", async () => {
    answer = { data: [goodwill(Date.now() + DAY)], as_of: iso(Date.now() + 2 * DAY) };
    await loadCreditBreakdown(0);
    expect($creditBreakdown.get()).toMatchObject({ status: "ready", parts: [] });
  });

  it("keeps credits the server still counts, though the browser's clock is past their expiry", async () => {
    answer = { data: [goodwill(Date.now() - DAY)], as_of: iso(Date.now() - 2 * DAY) };
    await loadCreditBreakdown(100);
    expect($creditBreakdown.get().parts.map((p) => p.credits)).toEqual([100]);
  });

  it("falls back on the browser's clock for a server without as_of", async () => {
    answer = { data: [goodwill(Date.now() + DAY)] };
    await loadCreditBreakdown(100);
    expect($creditBreakdown.get().parts.map((p) => p.credits)).toEqual([100]);
  });
});

describe("the key list", () => {
  const key: ApiKey = {
    id: "k1",
    name: "Renderer",
    prefix: "gpk_k1",
    created_at: iso(Date.now() - DAY),
    expires_at: iso(Date.now() + DAY),
    last_used_at: null,
    monthly_credit_limit: null,
    features: null,
    credits_used_this_month: 0,
    shared: false,
    created_by: { user_id: "u1", username: null },
  };

  it("keeps how far the server's clock is ahead, and keeps it when a reload fails", async () => {
    answer = { data: [key], as_of: iso(Date.now() + 2 * DAY) };
    await loadApiKeys();
    const { clockOffsetMs } = $apiKeys.get();
    expect(clockOffsetMs).toBeGreaterThan(2 * DAY - 1000);
    expect(clockOffsetMs).toBeLessThanOrEqual(2 * DAY);
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response("down", { status: 503 })),
    );
    await loadApiKeys();
    expect($apiKeys.get()).toMatchObject({ status: "failed", keys: [key], clockOffsetMs });
  });
});

describe("the member list", () => {
  it("keeps how far the server's clock is ahead: the caps reset at the end of its month", async () => {
    answer = { data: [], as_of: iso(Date.now() + 3 * DAY) };
    await loadMembers("org-1", false);
    const { status, clockOffsetMs } = $members.get();
    expect(status).toBe("ready");
    expect(clockOffsetMs).toBeGreaterThan(3 * DAY - 1000);
    expect(clockOffsetMs).toBeLessThanOrEqual(3 * DAY);
  });

  it("reads the browser's clock for a server without as_of", async () => {
    answer = { data: [] };
    await loadMembers("org-1", false);
    expect($members.get()).toMatchObject({ status: "ready", clockOffsetMs: 0 });
  });
});
