// The catalogue stores against a stubbed fetch, fake timers and a stubbed window: the spec's query
// behaviour (section 7) as nanoquery runs it. Each test loads a fresh copy of the module, so caches
// and retry counts never leak between tests.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { CACHE_LIFETIME_MS } from "../lib/retry-policy.ts";

const PRODUCTS = {
  data: [
    {
      id: "prod_b",
      name: "Tier B",
      description: null,
      default_price: { id: "price_b", currency: "eur", unit_amount: 9900 },
    },
    {
      id: "prod_a",
      name: "Tier A",
      description: null,
      default_price: { id: "price_a", currency: "eur", unit_amount: 2900 },
    },
  ],
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

let answers: (() => Response)[];
let fetchMock: ReturnType<typeof vi.fn>;
const windowEvents = new Map<string, () => void>();

async function freshCatalogue() {
  vi.resetModules();
  return import("./catalogue.ts");
}

/**
 * Lets a read finish: the client's dynamic imports (ofetch, the schemas) take real turns of the
 * event loop, which fake timers do not advance. setImmediate is left real for this.
 */
async function settle() {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Moves the fake clock on by `ms`, then lets any read it started finish. */
async function wait(ms: number) {
  await vi.advanceTimersByTimeAsync(ms);
  await settle();
}

beforeAll(async () => {
  // Load the modules the client imports on first use, so a read takes a few turns, not a file read.
  await import("ofetch");
  await import("../lib/schemas.ts");
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  answers = [];
  fetchMock = vi.fn(async () => (answers.shift() ?? (() => json(200, PRODUCTS)))());
  vi.stubGlobal("fetch", fetchMock);
  vi.stubGlobal("localStorage", { getItem: () => null });
  // The browser: nanoquery listens for focus and reconnect on window; $browser lets reads start.
  vi.stubGlobal("window", globalThis);
  vi.stubGlobal("document", { hidden: false });
  vi.stubGlobal("addEventListener", (name: string, handler: () => void) => windowEvents.set(name, handler));
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  windowEvents.clear();
});

describe("catalogue stores (spec section 7)", () => {
  it("read once for every subscriber, cheapest first, and reuse the answer for 5 minutes", async () => {
    const { $subscriptionProducts } = await freshCatalogue();
    const stopA = $subscriptionProducts.listen(() => {});
    const stopB = $subscriptionProducts.listen(() => {});
    await settle();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect($subscriptionProducts.get().data?.map((p) => p.id)).toEqual(["prod_a", "prod_b"]);
    stopA();
    stopB();

    await wait(CACHE_LIFETIME_MS - 1000);
    const stopC = $subscriptionProducts.listen(() => {});
    await settle();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect($subscriptionProducts.get().data).toHaveLength(2);
    stopC();

    await wait(1000);
    const stopD = $subscriptionProducts.listen(() => {});
    await settle();
    expect(fetchMock).toHaveBeenCalledTimes(2);
    stopD();
  });

  it("never read again on window focus or reconnect", async () => {
    const { $subscriptionProducts } = await freshCatalogue();
    const stop = $subscriptionProducts.listen(() => {});
    await settle();
    await wait(CACHE_LIFETIME_MS + 1);
    windowEvents.get("visibilitychange")?.();
    windowEvents.get("online")?.();
    await settle();
    expect(windowEvents.size).toBe(2);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    stop();
  });

  it("retry a failing read 3 times, 1 s, 2 s and 4 s apart, and only then say it failed", async () => {
    const { $topUpProducts, catalogueView } = await freshCatalogue();
    answers = Array.from({ length: 10 }, () => () => json(503, { detail: "down" }));
    const stop = $topUpProducts.listen(() => {});
    const failed = () => catalogueView($topUpProducts, $topUpProducts.get()).failed;
    await settle();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    for (const [ms, calls] of [
      [1000, 2],
      [2000, 3],
      [4000, 4],
    ] as const) {
      expect(failed()).toBe(false);
      await wait(ms - 1);
      expect(fetchMock).toHaveBeenCalledTimes(calls - 1);
      await wait(1);
      expect(fetchMock).toHaveBeenCalledTimes(calls);
    }
    expect(failed()).toBe(true);
    await wait(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(4);
    stop();
  });

  it("show the answer when a retry succeeds", async () => {
    const { $subscriptionProducts, catalogueView } = await freshCatalogue();
    answers = [() => json(500, { detail: "oops" })];
    const stop = $subscriptionProducts.listen(() => {});
    await settle();
    expect(catalogueView($subscriptionProducts, $subscriptionProducts.get())).toEqual({
      data: undefined,
      failed: false,
    });
    await wait(1000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(catalogueView($subscriptionProducts, $subscriptionProducts.get()).data).toHaveLength(2);
    stop();
  });

  it("do not retry an answer that will not change (a 4xx): failed at once", async () => {
    const { $subscriptionProducts, catalogueView } = await freshCatalogue();
    answers = [() => json(404, { detail: "Not Found" })];
    const stop = $subscriptionProducts.listen(() => {});
    await settle();
    expect(catalogueView($subscriptionProducts, $subscriptionProducts.get()).failed).toBe(true);
    await wait(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    stop();
  });

  it("readNow answers from the store, and asks again at once after a failure for good", async () => {
    const { $subscriptionProducts, readNow } = await freshCatalogue();
    answers = [() => json(400, { detail: "bad" })];
    await expect(readNow($subscriptionProducts)).rejects.toMatchObject({ status: 400 });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await expect(readNow($subscriptionProducts)).resolves.toHaveLength(2);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await expect(readNow($subscriptionProducts)).resolves.toHaveLength(2);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it("make no request while islands render at build time (no document)", async () => {
    vi.stubGlobal("document", undefined);
    const { $subscriptionProducts } = await freshCatalogue();
    const stop = $subscriptionProducts.listen(() => {});
    await settle();
    expect(fetchMock).not.toHaveBeenCalled();
    expect($subscriptionProducts.get()).toEqual({ loading: false });
    stop();
  });
});
