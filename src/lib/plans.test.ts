import { describe, expect, it } from "vitest";
import { TIERS, TOP_UPS } from "../../contract/catalogue.ts";
import { PRODUCT_IDS, TIER_KEYS, type TierKey } from "../../contract/product-ids.ts";
import { formatCredits, type PlanCopy, planCards, topUpRows } from "./plans.ts";

const copy = (tier: TierKey, id_set: "test" | "live"): PlanCopy & { id: string } => ({
  id: PRODUCT_IDS[id_set].tiers[tier].product,
  tier,
  id_set,
  name: `Tier ${tier}`,
  recurring_period: "per month",
  cta_text: "Subscribe now",
  description: `About ${tier}`,
  benefits: [{ name: "x", included: true }],
});
const plans = TIER_KEYS.flatMap((k) => [copy(k, "test"), copy(k, "live")]);
const features = { A: 2, B: 4, C: 5, D: 7, E: 10 } as const;
const featureRecord = Object.fromEntries(
  TIER_KEYS.map((k) => [k, { concurrentRequests: features[k] }]),
) as Record<TierKey, { concurrentRequests: number }>;

describe("planCards", () => {
  it("orders the cards by price, cheapest first, whatever order the catalogue lists them in", () => {
    const shuffled = [TIERS[3], TIERS[0], TIERS[4], TIERS[2], TIERS[1]].filter((t) => t !== undefined);
    const prices = planCards(plans, featureRecord, shuffled).map((c) => c.unitAmount);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(prices).toHaveLength(5);
  });

  it("joins each tier's copy with the catalogue's credits and price and the table's concurrency", () => {
    const [first] = planCards(plans, featureRecord, TIERS);
    expect(first).toMatchObject({
      tier: "A",
      name: "Tier A",
      creditsPerMonth: 1000,
      unitAmount: TIERS[0]?.unitAmount,
      concurrentRequests: 2,
      productIds: { test: "prod_test_tier_a", live: "prod_live_tier_a" },
    });
  });

  it("fails the build when a tier has no local information in one id set", () => {
    const missingLive = plans.filter((p) => !(p.tier === "C" && p.id_set === "live"));
    expect(() => planCards(missingLive, featureRecord, TIERS)).toThrow(/tier C/);
  });
});

describe("formatCredits", () => {
  it.each([
    [1000, "1,000"],
    [50000, "50,000"],
    [0.1, "0.1"],
    [10, "10"],
    [-186.741, "-186.741"],
  ])("%d credits print as %s", (amount, text) => {
    expect(formatCredits(amount)).toBe(text);
  });
});

describe("topUpRows", () => {
  it("lists the smaller pack first", () => {
    expect(topUpRows([...TOP_UPS].reverse()).map((p) => p.tokenAmount)).toEqual([500, 1000]);
  });
});
