import { describe, expect, it } from "vitest";
import type { Product } from "../../contract/billing.ts";
import { priceRank, productForCard } from "./live-plans.ts";
import { byPriceAscending, dialogPlanDetails, otherPlans, planToKeep } from "./plan-details.ts";

const product = (id: string, name: string, unit_amount: number): Product => ({
  id,
  name,
  description: null,
  default_price: { id: `price_${id}`, currency: "eur", unit_amount },
});
const products = [product("c", "Tier C", 64900), product("a", "Tier A", 7900), product("b", "Tier B", 34900)];

describe("plan details", () => {
  it("sorts by default price ascending without touching the input", () => {
    expect(byPriceAscending(products).map((p) => p.name)).toEqual(["Tier A", "Tier B", "Tier C"]);
    expect(products[0]?.name).toBe("Tier C");
  });

  it.each([
    ["Tier A", 1000, null],
    ["Tier B", 5000, 4],
    ["Tier C", 10000, 4],
    ["Tier D", 25000, 5],
    ["Tier E", 50000, 10],
    ["Tier Z", null, null],
  ])("the dialog describes %s with %s credits and concurrency %s", (name, credits, concurrency) => {
    expect(dialogPlanDetails(name)).toEqual({ creditsPerMonth: credits, concurrentRequests: concurrency });
  });

  it("offers the current plan to keep only while a change or the cancellation is pending", () => {
    const current = { status: "active", product_id: "b", scheduled_plan: null, cancel_at_period_end: false };
    expect(planToKeep(products, current)).toBeNull();
    expect(planToKeep(products, { ...current, scheduled_plan: "Tier C" })?.id).toBe("b");
    expect(planToKeep(products, { ...current, cancel_at_period_end: true })?.id).toBe("b");
    // A failing renewal: the server refuses changes until it is paid.
    expect(planToKeep(products, { ...current, status: "past_due", scheduled_plan: "Tier C" })).toBeNull();
    // A price the catalogue no longer lists: its namesake would be a change, not a withdrawal.
    expect(planToKeep(products, { ...current, product_id: "old", cancel_at_period_end: true })).toBeNull();
  });

  it("offers every plan but the current one", () => {
    expect(otherPlans(products, { product_id: "b", plan: "Tier B" }).map((p) => p.id)).toEqual(["c", "a"]);
    expect(
      otherPlans(products, { product_id: "b", plan: "Tier B", scheduled_plan: null }).map((p) => p.id),
    ).toEqual(["c", "a"]);
  });

  it("leaves out the plan a change already waits for", () => {
    const waiting = { product_id: "b", plan: "Tier B", scheduled_plan: "Tier C" };
    expect(otherPlans(products, waiting).map((p) => p.id)).toEqual(["a"]);
  });

  it("matches a card to its live product by id, else by name, and ranks it by price", () => {
    const card = { name: "Tier B", productIds: { test: "b", live: "prod_live_b" } };
    expect(productForCard(products, card)?.id).toBe("b");
    expect(productForCard(products, { name: "Tier C", productIds: { test: "x", live: "y" } })?.id).toBe("c");
    expect(priceRank(products, card)).toBe(1);
    expect(priceRank(products, { name: "Tier Q", productIds: { test: "x", live: "y" } })).toBe(-1);
  });
});
