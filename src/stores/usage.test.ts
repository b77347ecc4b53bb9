// /profile/usage's periods end on the server's today, not the browser's: a visitor whose clock is
// off, or a server moved on by billing:advance, sees the charges of the days the server counts.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../lib/memory-storage.ts";
import { addDays, berlinToday } from "../lib/usage-view.ts";
import { $usage, loadUsage } from "./usage.ts";

const BROWSER_TODAY = berlinToday(new Date());
/** The server's clock, 40 days ahead (billing:advance). */
const SERVER_TODAY = addDays(BROWSER_TODAY, 40);

/** What each request asked for, as `group_by` and the days given (null: none). */
let asked: { groupBy: string | null; from: string | null; to: string | null }[];
/** The days the server answers for a request without days: its default, per call in order. */
let defaultDays: (() => { from: string; to: string }) | undefined;

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

beforeEach(() => {
  vi.stubGlobal("localStorage", memoryStorage());
  vi.stubGlobal("sessionStorage", memoryStorage());
  localStorage.setItem("x-access-token", "token");
  asked = [];
  defaultDays = () => ({ from: addDays(SERVER_TODAY, -29), to: SERVER_TODAY });
  $usage.set({ ...$usage.get(), serverDayOffset: null, preset: "days30", stack: "feature" });
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(String(input instanceof Request ? input.url : input), "http://portal.test");
      const [from, to] = [url.searchParams.get("from"), url.searchParams.get("to")];
      asked.push({ groupBy: url.searchParams.get("group_by"), from, to });
      const days = from && to ? { from, to } : (defaultDays?.() ?? { from: "", to: "" });
      return json({ ...days, data: [], total: { uses: 0, credits: 0 } });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the usage page's periods", () => {
  it("asks for the first period without days, and shows the days the server chose", async () => {
    await loadUsage("days30");
    expect(asked.map((a) => [a.from, a.to])).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);
    expect($usage.get()).toMatchObject({
      status: "ready",
      from: addDays(SERVER_TODAY, -29),
      to: SERVER_TODAY,
      serverDayOffset: 40,
    });
  });

  it("ends every later preset on the server's today", async () => {
    await loadUsage("days30");
    asked = [];
    await loadUsage("days7");
    expect(new Set(asked.map((a) => `${a.from}/${a.to}`))).toEqual(
      new Set([`${addDays(SERVER_TODAY, -6)}/${SERVER_TODAY}`]),
    );
    await loadUsage("thisMonth");
    expect($usage.get()).toMatchObject({ from: `${SERVER_TODAY.slice(0, 8)}01`, to: SERVER_TODAY });
    // Asked with days, an answer does not move the server's today.
    expect($usage.get().serverDayOffset).toBe(40);
  });

  it("moves on with the day on a page left open past midnight", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      await loadUsage("days30");
      vi.setSystemTime(Date.now() + 86_400_000);
      asked = [];
      await loadUsage("days7");
      const tomorrow = addDays(SERVER_TODAY, 1);
      expect(asked.every((a) => a.from === addDays(tomorrow, -6) && a.to === tomorrow)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("ends a preset chosen before any answer on the browser's today", async () => {
    await loadUsage("days90");
    expect(asked.every((a) => a.from === addDays(BROWSER_TODAY, -89) && a.to === BROWSER_TODAY)).toBe(true);
    expect($usage.get().serverDayOffset).toBeNull();
  });

  it("asks again with the first answer's days when Berlin's midnight passed between the answers", async () => {
    let calls = 0;
    defaultDays = () =>
      calls++ === 0
        ? { from: addDays(SERVER_TODAY, -29), to: SERVER_TODAY }
        : { from: addDays(SERVER_TODAY, -28), to: addDays(SERVER_TODAY, 1) };
    await loadUsage("days30");
    expect(asked).toHaveLength(6);
    expect(asked.slice(3).map((a) => `${a.from}/${a.to}`)).toEqual(
      Array(3).fill(`${addDays(SERVER_TODAY, -29)}/${SERVER_TODAY}`),
    );
    expect($usage.get()).toMatchObject({ status: "ready", to: SERVER_TODAY, serverDayOffset: 40 });
  });
});
