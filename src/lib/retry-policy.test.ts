import { describe, expect, it, vi } from "vitest";
import { createQueryCache, withRetry } from "./query-cache.ts";
import { CACHE_LIFETIME_MS, isRetryableStatus, retriesFor, retryDelayMs } from "./retry-policy.ts";

describe("retry policy (spec section 7)", () => {
  it.each([
    [0, 1000],
    [1, 2000],
    [2, 4000],
    [3, 8000],
    [4, 16_000],
    [5, 30_000],
    [10, 30_000],
  ])("waits %i -> %i ms", (attempt, ms) => {
    expect(retryDelayMs(attempt)).toBe(ms);
  });

  it("never retries the user fetch and retries other reads 3 times", () => {
    expect(retriesFor("user")).toBe(0);
    expect(retriesFor("read")).toBe(3);
  });

  it.each([
    [undefined, true],
    [500, true],
    [503, true],
    [429, true],
    [408, true],
    [400, false],
    [401, false],
    [404, false],
  ])("status %s is retryable: %s", (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
  });
});

describe("withRetry", () => {
  it("tries 1 + 3 times with 1 s, 2 s, 4 s between, then gives up", async () => {
    const sleep = vi.fn(async (_ms: number) => {});
    const load = vi.fn(async () => {
      throw Object.assign(new Error("down"), { status: 503 });
    });
    await expect(withRetry(load, { sleep })).rejects.toThrow("down");
    expect(load).toHaveBeenCalledTimes(4);
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([1000, 2000, 4000]);
  });

  it("stops at the first success", async () => {
    let calls = 0;
    const load = async () => {
      calls++;
      if (calls < 2) throw new Error("network");
      return "ok";
    };
    await expect(withRetry(load, { sleep: async () => {} })).resolves.toBe("ok");
    expect(calls).toBe(2);
  });

  it("does not retry a 4xx answer", async () => {
    const load = vi.fn(async () => {
      throw Object.assign(new Error("nope"), { status: 404 });
    });
    await expect(withRetry(load, { sleep: async () => {} })).rejects.toThrow("nope");
    expect(load).toHaveBeenCalledTimes(1);
  });
});

describe("query cache", () => {
  it("reuses an answer for 5 minutes, then loads again", async () => {
    const cache = createQueryCache();
    let now = 0;
    const load = vi.fn(async () => now);
    const read = () => cache.read("products", load, { now: () => now });
    await read();
    now = CACHE_LIFETIME_MS - 1;
    await read();
    expect(load).toHaveBeenCalledTimes(1);
    now = CACHE_LIFETIME_MS;
    await expect(read()).resolves.toBe(CACHE_LIFETIME_MS);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("shares one request between readers and does not keep failures", async () => {
    const cache = createQueryCache();
    const load = vi.fn(async () => {
      throw Object.assign(new Error("bad"), { status: 400 });
    });
    const a = cache.read("k", load);
    const b = cache.read("k", load);
    await expect(a).rejects.toThrow();
    await expect(b).rejects.toThrow();
    expect(load).toHaveBeenCalledTimes(1);
    await expect(cache.read("k", load)).rejects.toThrow();
    expect(load).toHaveBeenCalledTimes(2);
  });
});
