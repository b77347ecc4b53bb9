import { describe, expect, it } from "vitest";
import {
  CREDIT_COSTS,
  FEATURE_IDS,
  featureName,
  inCredits,
  isFeatureId,
  MAX_QUANTITY,
  priceOf,
} from "./credit-costs.ts";

describe("the credit-cost table", () => {
  it("holds every feature of spec section 9 with its cost per use, for one person and for several", () => {
    expect(CREDIT_COSTS.map((c) => [c.feature, inCredits(c.onePerson), inCredits(c.multiple)])).toEqual([
      ["Standard or self-made filter", 1, 1],
      ["Custom creations", 2, 2],
      ["Multiswap", 2, 2],
      ["Background remover", 0.1, 0.1],
      ["Image-to-video", 10, 10],
      ["Comic", 5, 5],
      ["Skin refiner", 1, 1],
      ["Cloth swap", 1, 1],
    ]);
    expect(CREDIT_COSTS.map((c) => c.id)).toEqual(FEATURE_IDS);
  });

  it("knows its feature ids and names", () => {
    expect(isFeatureId("comic")).toBe(true);
    expect(isFeatureId("Comic")).toBe(false);
    expect(isFeatureId("toString")).toBe(false);
    expect(featureName("image-to-video")).toBe("Image-to-video");
    expect(featureName("retired-feature")).toBe("retired-feature");
  });
});

describe("priceOf", () => {
  it.each([
    ["background-remover", "one", 1, 100],
    ["background-remover", "multiple", 3, 300],
    ["image-to-video", "one", 2, 20_000],
    ["comic", "multiple", 1, 5000],
    ["standard-filter", "one", MAX_QUANTITY, 10_000_000],
  ] as const)("%s with %s person(s), %i use(s): %i milli-credits", (feature, people, quantity, price) => {
    expect(priceOf(feature, people, quantity)).toBe(price);
  });

  it("prices one person and several people from their own columns", () => {
    const table = [{ id: "comic", feature: "Comic", onePerson: 5000, multiple: 7000 }] as const;
    expect(priceOf("comic", "one", 2, table)).toBe(10_000);
    expect(priceOf("comic", "multiple", 2, table)).toBe(14_000);
    expect(() => priceOf("multiswap", "one", 1, table)).toThrow(/Unknown feature/);
  });

  it.each([0, -1, 1.5, MAX_QUANTITY + 1, Number.NaN])("refuses the quantity %s", (quantity) => {
    expect(() => priceOf("comic", "one", quantity)).toThrow(
      new RangeError(`Quantity must be a whole number from 1 to ${MAX_QUANTITY}`),
    );
  });

  it("refuses an unknown feature", () => {
    expect(() => priceOf("nope" as never, "one", 1)).toThrow(/Unknown feature/);
  });
});
