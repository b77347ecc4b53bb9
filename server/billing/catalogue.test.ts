import { describe, expect, it } from "vitest";
import { PRODUCT_IDS } from "../../contract/product-ids.ts";
import { GRANT_LIFETIME_MONTHS } from "../domain/ledger.ts";
import { createCatalogue, tierDescription } from "./catalogue.ts";

const catalogue = createCatalogue();

describe("subscription products", () => {
  it.each([
    ["prod_test_tier_a", "Tier A", "1,000 credits per month", "price_test_tier_a_monthly", 7900],
    ["prod_test_tier_b", "Tier B", "5,000 credits per month", "price_test_tier_b_monthly", 34900],
    ["prod_test_tier_c", "Tier C", "10,000 credits per month", "price_test_tier_c_monthly", 64900],
    ["prod_test_tier_d", "Tier D", "25,000 credits per month", "price_test_tier_d_monthly", 149900],
    ["prod_test_tier_e", "Tier E", "50,000 credits per month", "price_test_tier_e_monthly", 279900],
  ])("%s is %s, %s, priced %s at %i cents", (id, name, description, priceId, unitAmount) => {
    const product = catalogue.subscriptionProducts.find((p) => p.id === id);
    expect(product).toEqual({
      id,
      name,
      description,
      default_price: { id: priceId, currency: "eur", unit_amount: unitAmount },
    });
  });

  it("lists tiers A to E in order and nothing else", () => {
    expect(catalogue.subscriptionProducts.map((p) => p.name)).toEqual([
      "Tier A",
      "Tier B",
      "Tier C",
      "Tier D",
      "Tier E",
    ]);
  });
});

describe("top-up products", () => {
  it("are the two packs with the contract's token_amount metadata", () => {
    expect(catalogue.topUpProducts).toEqual([
      {
        id: "prod_test_topup_500",
        name: "500 credit pack",
        description: "500 credits at 0.1 EUR per credit, expiring in 6 months",
        default_price: { id: "price_test_topup_500", currency: "eur", unit_amount: 5000 },
        metadata: { token_amount: "500" },
      },
      {
        id: "prod_test_topup_1000",
        name: "1000 credit pack",
        description: "1000 credits at 0.1 EUR per credit, expiring in 6 months",
        default_price: { id: "price_test_topup_1000", currency: "eur", unit_amount: 9000 },
        metadata: { token_amount: "1000" },
      },
    ]);
  });

  it("expire in the months the ledger gives top-up grants", () => {
    expect(catalogue.topUpProducts).toHaveLength(2);
    for (const product of catalogue.topUpProducts) {
      expect(catalogue.findTopUp(product.id)?.topUp.expiresInMonths).toBe(GRANT_LIFETIME_MONTHS.topup);
    }
  });
});

describe("lookups", () => {
  it.each([
    ["a tier with its price", "prod_test_tier_c", "price_test_tier_c_monthly", { ok: true, key: "C" }],
    [
      "a tier with another tier's price",
      "prod_test_tier_c",
      "price_test_tier_a_monthly",
      { ok: false, error: "price_not_found" },
    ],
    [
      "a tier with an unknown price",
      "prod_test_tier_c",
      "price_nope",
      { ok: false, error: "price_not_found" },
    ],
    [
      "an unknown product",
      "prod_nope",
      "price_test_tier_a_monthly",
      { ok: false, error: "product_not_found" },
    ],
    [
      "a top-up product where a tier is expected",
      "prod_test_topup_500",
      "price_test_topup_500",
      { ok: false, error: "product_not_found" },
    ],
    [
      "a live-set product in the test catalogue",
      "prod_live_tier_a",
      "price_live_tier_a_monthly",
      { ok: false, error: "product_not_found" },
    ],
  ])("findSubscriptionPrice: %s", (_case, productId, priceId, expected) => {
    const found = catalogue.findSubscriptionPrice(productId, priceId);
    if (found.ok) expect({ ok: true, key: found.offer.tier.key }).toEqual(expected);
    else expect(found).toEqual(expected);
  });

  it.each([
    ["prod_test_tier_a", 1000],
    ["prod_test_tier_e", 50000],
    ["prod_test_topup_500", undefined],
    ["", undefined],
  ])("findTier(%s) gives %s credits a month", (productId, credits) => {
    expect(catalogue.findTier(productId)?.tier.creditsPerMonth).toBe(credits);
  });

  it.each([
    ["prod_test_topup_500", 500],
    ["prod_test_topup_1000", 1000],
    ["prod_test_tier_a", undefined],
    ["prod_live_topup_500", undefined],
  ])("findTopUp(%s) gives %s credits", (productId, credits) => {
    expect(catalogue.findTopUp(productId)?.topUp.tokenAmount).toBe(credits);
  });

  it("a catalogue built from the live set sells the live ids", () => {
    const live = createCatalogue(PRODUCT_IDS.live);
    expect(live.subscriptionProducts[0]?.id).toBe("prod_live_tier_a");
    expect(live.findTopUp("prod_live_topup_1000")?.priceId).toBe("price_live_topup_1000");
    expect(live.findTier("prod_test_tier_a")).toBeUndefined();
  });
});

describe("cached lists cannot be changed by a caller", () => {
  it("freezes products and their prices", () => {
    const product = catalogue.subscriptionProducts[0];
    expect(Object.isFrozen(catalogue.subscriptionProducts)).toBe(true);
    expect(Object.isFrozen(product)).toBe(true);
    expect(Object.isFrozen(product?.default_price)).toBe(true);
    expect(Object.isFrozen(catalogue.topUpProducts[0]?.metadata)).toBe(true);
  });
});

describe("tierDescription", () => {
  it.each([
    [1000, "1,000 credits per month"],
    [50000, "50,000 credits per month"],
    [999, "999 credits per month"],
  ])("%i -> %s", (credits, text) => {
    expect(tierDescription(credits)).toBe(text);
  });
});
