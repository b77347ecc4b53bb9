// Auto top-up's store against a stubbed fetch: the card that arrives a moment after the card page
// (read again until it is there, or given up), and the PUT body as the contract has it, with the
// acting organisation's header.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AutoTopUp } from "../../contract/auto-top-up.ts";
import { chooseOrganization } from "../lib/auth-storage.ts";
import { CARD, NEVER_SET as STATE } from "../lib/auto-top-up-fixtures.ts";
import { memoryStorage } from "../lib/memory-storage.ts";
import { $autoTopUp, loadAutoTopUp, saveAutoTopUp, waitForCard } from "./auto-top-up.ts";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

let answers: AutoTopUp[];
let fetchMock: ReturnType<typeof vi.fn>;

beforeEach(() => {
  vi.stubGlobal("localStorage", memoryStorage());
  vi.stubGlobal("sessionStorage", memoryStorage());
  localStorage.setItem("x-access-token", "token");
  answers = [];
  fetchMock = vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
    if (init?.method === "PUT")
      return json(200, { ...STATE, ...JSON.parse(String(init.body)), status: "active" });
    return json(200, answers.shift() ?? STATE);
  });
  vi.stubGlobal("fetch", fetchMock);
  $autoTopUp.set({ status: "loading", data: null });
});

afterEach(() => {
  chooseOrganization(null);
  vi.unstubAllGlobals();
});

const noWait = async () => {};

describe("waitForCard", () => {
  it("reads again until the first card is there", async () => {
    answers = [STATE, STATE, STATE, { ...STATE, card: CARD }];
    await loadAutoTopUp();
    sessionStorage.setItem("portal-auto-top-up-card-before", "none");
    expect(await waitForCard([1, 1, 1, 1, 1], noWait)).toBe(true);
    expect(fetchMock).toHaveBeenCalledTimes(4);
    expect($autoTopUp.get().data?.card).toEqual(CARD);
  });

  it("waits for the replacement, not the card that was there before", async () => {
    const old = { ...CARD, last4: "1111" };
    answers = [
      { ...STATE, card: old },
      { ...STATE, card: old },
      { ...STATE, card: CARD },
    ];
    await loadAutoTopUp();
    sessionStorage.setItem("portal-auto-top-up-card-before", "visa:1111:12:2030");
    expect(await waitForCard([1, 1, 1], noWait)).toBe(true);
    expect($autoTopUp.get().data?.card?.last4).toBe("4242");
    // The card before is read once: a reload does not wait again for it.
    expect(sessionStorage.getItem("portal-auto-top-up-card-before")).toBeNull();
  });

  it("gives up after the last read", async () => {
    await loadAutoTopUp();
    const waits: number[] = [];
    expect(await waitForCard([10, 20, 30], async (ms) => void waits.push(ms))).toBe(false);
    expect(waits).toEqual([10, 20, 30]);
    expect(fetchMock).toHaveBeenCalledTimes(4);
  });
});

it("PUT sends the contract's body with the acting organisation", async () => {
  chooseOrganization("org_1");
  await saveAutoTopUp({
    enabled: true,
    threshold: 100,
    product_id: "prod_500",
    monthly_limit: { amount: 20000, currency: "eur" },
    consent: { text_version: "v1", text: "We will charge your card ending 4242…", accepted: true },
  });
  const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
  expect(url).toMatch(/\/v1\/billing\/auto-top-up$/);
  expect(new Headers(init.headers).get("x-organization")).toBe("org_1");
  expect(JSON.parse(String(init.body))).toEqual({
    enabled: true,
    threshold: 100,
    product_id: "prod_500",
    monthly_limit: { amount: 20000, currency: "eur" },
    // The text shown goes with the consent: the API refuses it if the text changed meanwhile.
    consent: { text_version: "v1", text: "We will charge your card ending 4242…", accepted: true },
  });
  expect($autoTopUp.get()).toMatchObject({ status: "ready", data: { status: "active", threshold: 100 } });
});
