// Matching the API's subscription products to the prebuilt plan cards: by product id (either id
// set), else by name, so a card shows its live price and checks out the right product.
import type { Product } from "../../contract/billing.ts";

export interface CardIdentity {
  /** e.g. "Tier B". */
  name: string;
  productIds: { test: string; live: string };
}

export function productForCard(products: readonly Product[], card: CardIdentity): Product | undefined {
  const ids = [card.productIds.test, card.productIds.live];
  return products.find((p) => ids.includes(p.id)) ?? products.find((p) => p.name === card.name);
}

/** The card's place when cards are sorted by live price ascending (-1 when it has no product). */
export function priceRank(products: readonly Product[], card: CardIdentity): number {
  const sorted = [...products].sort((a, b) => a.default_price.unit_amount - b.default_price.unit_amount);
  const product = productForCard(products, card);
  return product ? sorted.indexOf(product) : -1;
}
