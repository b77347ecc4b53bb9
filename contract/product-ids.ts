// Product and price ids of the catalogue, in the provider's id format. The portal's local plan
// information is keyed by product id (spec section 3: two id sets, one per environment, with the
// same content); the embedded billing server serves the `test` set. An operator on real Stripe puts
// the ids of their own Stripe account in the `live` set.

export const TIER_KEYS = ["A", "B", "C", "D", "E"] as const;
export type TierKey = (typeof TIER_KEYS)[number];

export const TOP_UP_KEYS = ["500", "1000"] as const;
export type TopUpKey = (typeof TOP_UP_KEYS)[number];

export interface IdSet {
  tiers: Record<TierKey, { product: string; price: string }>;
  topUps: Record<TopUpKey, { product: string; price: string }>;
}

function idSet(env: "test" | "live"): IdSet {
  const tier = (k: TierKey) => ({
    product: `prod_${env}_tier_${k.toLowerCase()}`,
    price: `price_${env}_tier_${k.toLowerCase()}_monthly`,
  });
  const topUp = (k: TopUpKey) => ({ product: `prod_${env}_topup_${k}`, price: `price_${env}_topup_${k}` });
  return {
    tiers: { A: tier("A"), B: tier("B"), C: tier("C"), D: tier("D"), E: tier("E") },
    topUps: { "500": topUp("500"), "1000": topUp("1000") },
  };
}

export const PRODUCT_IDS = { test: idSet("test"), live: idSet("live") } as const;
