// The card's live price from the catalogue store (loaded after the page has hydrated, with the
// store's fetch library: see PlanPrice). When live prices order the tiers differently from the
// build, the card takes its place in price order.
import { useEffect, useRef } from "react";
import { type CardIdentity, priceRank, productForCard } from "../../lib/live-plans.ts";
import { $subscriptionProducts } from "../../stores/catalogue.ts";
import { useCatalogue } from "../billing/use-catalogue.ts";
import { PriceText } from "./PriceText.tsx";

export interface PriceProps extends CardIdentity {
  /** The prebuilt operator price, shown until the live price arrives or when it cannot. */
  unitAmount: number;
  currency: string;
}

export default function LivePrice({ name, productIds, unitAmount, currency }: PriceProps) {
  const { data: products } = useCatalogue($subscriptionProducts);
  const live = products && productForCard(products, { name, productIds });
  // Until live prices arrive, or when the card has no live product, the prebuilt price stays.
  const price = live?.default_price ?? { unit_amount: unitAmount, currency };
  const ref = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (!products || !live) return;
    // CSS order through the CSSOM (allowed by the CSP, unlike a style attribute in the HTML).
    const card = ref.current?.closest<HTMLElement>("[data-plan-card]");
    if (card) card.style.order = String(priceRank(products, { name, productIds }));
  }, [products, live, name, productIds]);

  return <PriceText ref={ref} unitAmount={price.unit_amount} currency={price.currency} />;
}
