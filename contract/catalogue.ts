// The catalogue the embedded billing server sells, and the prices the prebuilt /plans page shows
// before the live prices arrive. Credits per tier and the top-up packs are the spec's (section 9).
//
// OPERATOR: the monthly tier prices are yours to set (the spec leaves them open). On real Stripe
// the live prices come from your Stripe account; keep these in step so the prebuilt page agrees.
import {
  type IdSet,
  PRODUCT_IDS,
  TIER_KEYS,
  type TierKey,
  TOP_UP_KEYS,
  type TopUpKey,
} from "./product-ids.ts";

export type Currency = "usd" | "eur";

export interface TierInfo {
  key: TierKey;
  /** Display name, e.g. "Tier A". */
  name: string;
  /** Credits granted each month of the subscription. */
  creditsPerMonth: number;
  /** Monthly price in minor units (cents). Operator-set. */
  unitAmount: number;
  currency: Currency;
}

export interface TopUpInfo {
  key: TopUpKey;
  /** e.g. "500 credit pack". */
  name: string;
  tokenAmount: number;
  /** Price in minor units. */
  unitAmount: number;
  currency: Currency;
  /** Months until the pack's credits expire. */
  expiresInMonths: number;
}

const TIER_CREDITS: Record<TierKey, number> = { A: 1000, B: 5000, C: 10000, D: 25000, E: 50000 };
/** OPERATOR: monthly prices in euro cents. */
const TIER_PRICES: Record<TierKey, number> = { A: 7900, B: 34900, C: 64900, D: 149900, E: 279900 };
const TOP_UP_PRICES: Record<TopUpKey, number> = { "500": 5000, "1000": 9000 };

export const TIERS: readonly TierInfo[] = TIER_KEYS.map((key) => ({
  key,
  name: `Tier ${key}`,
  creditsPerMonth: TIER_CREDITS[key],
  unitAmount: TIER_PRICES[key],
  currency: "eur",
}));

export const TOP_UPS: readonly TopUpInfo[] = TOP_UP_KEYS.map((key) => ({
  key,
  name: `${key} credit pack`,
  tokenAmount: Number(key),
  unitAmount: TOP_UP_PRICES[key],
  currency: "eur",
  expiresInMonths: 6,
}));

/** The spec's top-up description: '{n} credits at 0.1 EUR per credit, expiring in 6 months'. */
export function topUpDescription(tokenAmount: number): string {
  return `${tokenAmount} credits at 0.1 EUR per credit, expiring in 6 months`;
}

/** The tier a product id belongs to, in either id set. */
export function tierForProductId(productId: string, sets: IdSet[] = [PRODUCT_IDS.test, PRODUCT_IDS.live]) {
  for (const set of sets) {
    const key = TIER_KEYS.find((k) => set.tiers[k].product === productId);
    if (key) return TIERS.find((t) => t.key === key);
  }
  return undefined;
}
