// What one generation costs, by feature (spec section 9, "Credit cost per use"): the one table
// that /plans shows ("What are my credits worth?") and that `POST /v1/credits/consume` charges
// from. Costs are in milli-credits (1 credit = 1000), the ledger's unit, so 0.1 credit is exact.
//
// OPERATOR: change a price here and both the page and the meter change with it.

export const FEATURE_IDS = [
  "standard-filter",
  "custom-creation",
  "multiswap",
  "background-remover",
  "image-to-video",
  "comic",
  "skin-refiner",
  "cloth-swap",
] as const;
export type FeatureId = (typeof FEATURE_IDS)[number];

export type People = "one" | "multiple";

export interface CreditCost {
  id: FeatureId;
  /** The feature as visitors know it. */
  feature: string;
  /** Milli-credits per use with one person in the picture. */
  onePerson: number;
  /** Milli-credits per use with several people in the picture. */
  multiple: number;
}

/** In the order /plans lists them. The spec gives one figure per feature for both cases. */
export const CREDIT_COSTS: readonly CreditCost[] = [
  { id: "standard-filter", feature: "Standard or self-made filter", onePerson: 1000, multiple: 1000 },
  { id: "custom-creation", feature: "Custom creations", onePerson: 2000, multiple: 2000 },
  { id: "multiswap", feature: "Multiswap", onePerson: 2000, multiple: 2000 },
  { id: "background-remover", feature: "Background remover", onePerson: 100, multiple: 100 },
  { id: "image-to-video", feature: "Image-to-video", onePerson: 10_000, multiple: 10_000 },
  { id: "comic", feature: "Comic", onePerson: 5000, multiple: 5000 },
  { id: "skin-refiner", feature: "Skin refiner", onePerson: 1000, multiple: 1000 },
  { id: "cloth-swap", feature: "Cloth swap", onePerson: 1000, multiple: 1000 },
];

export function isFeatureId(value: string): value is FeatureId {
  return (FEATURE_IDS as readonly string[]).includes(value);
}

/** The feature's display name ("Image-to-video"), or the id itself for one no longer sold. */
export function featureName(id: string): string {
  return CREDIT_COSTS.find((c) => c.id === id)?.feature ?? id;
}

/** Milli-credits as credits, for display: 100 -> 0.1. */
export function inCredits(millicredits: number): number {
  return millicredits / 1000;
}

/** The most uses one charge may count (a batch); bounds the price far below 2^53 milli-credits. */
export const MAX_QUANTITY = 10_000;

/** Milli-credits that `quantity` uses of `feature` cost with `people` in the picture. */
export function priceOf(
  feature: FeatureId,
  people: People,
  quantity: number,
  table: readonly CreditCost[] = CREDIT_COSTS,
): number {
  const cost = table.find((c) => c.id === feature);
  if (!cost) throw new RangeError(`Unknown feature ${feature}`);
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    throw new RangeError(`Quantity must be a whole number from 1 to ${MAX_QUANTITY}`);
  }
  return (people === "one" ? cost.onePerson : cost.multiple) * quantity;
}
