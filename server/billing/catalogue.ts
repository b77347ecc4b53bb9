// The products the billing API sells, in the shape Stripe's Product API gives them (a product
// with its `default_price`), built from the shared catalogue and one id set. `GET
// /v1/subscription/products` and `GET /v1/top-up/products` answer with these lists; checkout,
// plan changes and fulfilment look products up here, so an id the catalogue does not know is
// refused in one place.

import {
  type Currency,
  TIERS,
  type TierInfo,
  TOP_UPS,
  type TopUpInfo,
  topUpDescription,
} from "../../contract/catalogue.ts";
import { type IdSet, PRODUCT_IDS, type TopUpKey } from "../../contract/product-ids.ts";

export interface StripePrice {
  id: string;
  currency: Currency;
  /** Minor units (cents). */
  unit_amount: number;
}

/** API-CONTRACT.md "Product". */
export interface SubscriptionProduct {
  id: string;
  name: string;
  description: string;
  default_price: StripePrice;
}

/** API-CONTRACT.md "TopUpProduct": a Product plus the pack size, as Stripe product metadata carries it. */
export interface TopUpProduct extends SubscriptionProduct {
  metadata: { token_amount: TopUpKey };
}

/** A tier as sold: the shared tier information with this id set's product and price ids. */
export interface TierOffer {
  tier: TierInfo;
  productId: string;
  priceId: string;
}

/** A top-up pack as sold. */
export interface TopUpOffer {
  topUp: TopUpInfo;
  productId: string;
  priceId: string;
}

export interface Catalogue {
  /** Tiers A-E in order, for `GET /v1/subscription/products`. */
  subscriptionProducts: readonly SubscriptionProduct[];
  /** The two packs, smaller first, for `GET /v1/top-up/products`. */
  topUpProducts: readonly TopUpProduct[];
  /** The tier sold under `productId`, or undefined (404) for anything else, top-ups included. */
  findTier(productId: string): TierOffer | undefined;
  /**
   * `POST /v1/create-checkout-session {product, price}`: the tier when `priceId` is that product's
   * price; otherwise which of the two ids is wrong (both answer 404).
   */
  findSubscriptionPrice(
    productId: string,
    priceId: string,
  ): { ok: true; offer: TierOffer } | { ok: false; error: "product_not_found" | "price_not_found" };
  /** The pack sold under `productId`, or undefined (404) for anything else, tiers included. */
  findTopUp(productId: string): TopUpOffer | undefined;
}

const creditsFormat = new Intl.NumberFormat("en-US");

/** "1,000 credits per month". */
export function tierDescription(creditsPerMonth: number): string {
  return `${creditsFormat.format(creditsPerMonth)} credits per month`;
}

/**
 * The catalogue for one id set. The embedded server sells the `test` set, whose ids match the
 * portal's local plan information; an operator on real Stripe builds it from the `live` set,
 * which holds their own Stripe account's ids.
 */
export function createCatalogue(ids: IdSet = PRODUCT_IDS.test): Catalogue {
  const tierOffers: TierOffer[] = TIERS.map((tier) => ({
    tier,
    productId: ids.tiers[tier.key].product,
    priceId: ids.tiers[tier.key].price,
  }));
  const topUpOffers: TopUpOffer[] = TOP_UPS.map((topUp) => ({
    topUp,
    productId: ids.topUps[topUp.key].product,
    priceId: ids.topUps[topUp.key].price,
  }));

  const subscriptionProducts = tierOffers.map(
    ({ tier, productId, priceId }): SubscriptionProduct =>
      deepFreeze({
        id: productId,
        name: tier.name,
        description: tierDescription(tier.creditsPerMonth),
        default_price: { id: priceId, currency: tier.currency, unit_amount: tier.unitAmount },
      }),
  );
  const topUpProducts = topUpOffers.map(
    ({ topUp, productId, priceId }): TopUpProduct =>
      deepFreeze({
        id: productId,
        name: topUp.name,
        description: topUpDescription(topUp.tokenAmount),
        default_price: { id: priceId, currency: topUp.currency, unit_amount: topUp.unitAmount },
        metadata: { token_amount: topUp.key },
      }),
  );

  const findTier = (productId: string) => tierOffers.find((o) => o.productId === productId);
  return {
    subscriptionProducts: Object.freeze(subscriptionProducts),
    topUpProducts: Object.freeze(topUpProducts),
    findTier,
    findSubscriptionPrice(productId, priceId) {
      const offer = findTier(productId);
      if (!offer) return { ok: false, error: "product_not_found" };
      if (offer.priceId !== priceId) return { ok: false, error: "price_not_found" };
      return { ok: true, offer };
    },
    findTopUp: (productId) => topUpOffers.find((o) => o.productId === productId),
  };
}

// The lists are served from a cache to every caller: freezing them keeps one handler from
// changing what the next caller sees.
function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (typeof v === "object" && v !== null) deepFreeze(v);
  return Object.freeze(value);
}
