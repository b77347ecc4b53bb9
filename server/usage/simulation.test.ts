import { describe, expect, it } from "vitest";
import { FEATURE_IDS, priceOf } from "../../contract/credit-costs.ts";
import { simulationPlan } from "./simulation.ts";

/** A repeatable random source (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NOW = new Date("2026-11-24T10:00:00Z");
const DAY = 86_400_000;

describe("simulationPlan", () => {
  it("spreads a mix of features over every asked day, in the past, oldest first, within the budget", () => {
    const plan = simulationPlan({
      days: 30,
      now: NOW,
      since: new Date(NOW.getTime() - 30 * DAY),
      budget: 5_000_000,
      apiKeyIds: ["key-a", "key-b"],
      random: seeded(1),
    });
    expect(plan.length).toBeGreaterThan(300);
    const days = new Set(plan.map((c) => Math.floor((NOW.getTime() - c.at.getTime()) / DAY)));
    expect(days.size).toBe(30);
    for (const charge of plan) {
      expect(charge.at.getTime()).toBeLessThan(NOW.getTime());
      expect(NOW.getTime() - charge.at.getTime()).toBeLessThanOrEqual(30 * DAY);
      expect(charge.price).toBe(priceOf(charge.feature, charge.people, charge.quantity));
    }
    expect(plan.map((c) => c.at.getTime())).toEqual(plan.map((c) => c.at.getTime()).sort((a, b) => a - b));
    expect(new Set(plan.map((c) => c.feature))).toEqual(new Set(FEATURE_IDS));
    expect(new Set(plan.map((c) => c.apiKeyId))).toEqual(new Set(["key-a", "key-b", undefined]));
    expect(plan.reduce((sum, c) => sum + c.price, 0)).toBeLessThanOrEqual(5_000_000);
  });

  it("with a free account's 50 credits, spreads fewer charges over the whole month, within the budget", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const plan = simulationPlan({
        days: 30,
        now: NOW,
        since: new Date(NOW.getTime() - 30 * DAY),
        budget: 50_000,
        apiKeyIds: [],
        random: seeded(seed),
      });
      const total = plan.reduce((sum, c) => sum + c.price, 0);
      expect(total).toBeLessThanOrEqual(50_000);
      expect(total).toBeGreaterThan(10_000);
      const days = new Set(plan.map((c) => Math.floor((NOW.getTime() - c.at.getTime()) / DAY)));
      expect(days.size).toBeGreaterThan(5);
      // The recent days keep their charges: the last one is at most three days old.
      expect(NOW.getTime() - (plan.at(-1)?.at.getTime() ?? 0)).toBeLessThan(3 * DAY);
      expect(plan.every((c) => c.apiKeyId === undefined)).toBe(true);
    }
  });

  it("plans nothing before `since`", () => {
    const since = new Date(NOW.getTime() - 2.5 * DAY);
    const plan = simulationPlan({
      days: 30,
      now: NOW,
      since,
      budget: 5_000_000,
      apiKeyIds: [],
      random: seeded(7),
    });
    expect(plan.length).toBeGreaterThan(10);
    expect(plan.every((c) => c.at.getTime() >= since.getTime())).toBe(true);
  });

  it("plans nothing without a budget", () => {
    expect(
      simulationPlan({
        days: 30,
        now: NOW,
        since: new Date(NOW.getTime() - 30 * DAY),
        budget: 0,
        apiKeyIds: [],
        random: seeded(1),
      }),
    ).toEqual([]);
  });
});
