// A plan card's price: the prebuilt operator price until the API's live price arrives, rounded up
// to whole units with its symbol and '(excl. VAT)', in the card's fixed 48 px box. When live prices
// order the tiers differently from the build, the card takes its place in price order.
import { useEffect, useRef } from "react";
import { type CardIdentity, priceRank, productForCard } from "../../lib/live-plans.ts";
import { formatPrice, PRICE_TAX_NOTE } from "../../lib/price.ts";
import { $subscriptionProducts } from "../../stores/catalogue.ts";
import { useCatalogue } from "../billing/use-catalogue.ts";

interface Props extends CardIdentity {
  unitAmount: number;
  currency: string;
}

export default function PlanPrice({ name, productIds, unitAmount, currency }: Props) {
  const { data: products } = useCatalogue($subscriptionProducts);
  const live = products && productForCard(products, { name, productIds });
  // Until live prices arrive, or when they fail, the prebuilt operator price stays.
  const price = live ? live.default_price : { unit_amount: unitAmount, currency };
  const ref = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (!products || !productForCard(products, { name, productIds })) return;
    // CSS order through the CSSOM (allowed by the CSP, unlike a style attribute in the HTML).
    const card = ref.current?.closest<HTMLElement>("[data-plan-card]");
    if (card) card.style.order = String(priceRank(products, { name, productIds }));
  }, [products, name, productIds]);

  return (
    <span ref={ref} className="inline-flex items-baseline gap-1.5">
      <span className="text-4xl font-extrabold tracking-tight tabular-nums">
        {formatPrice(price.unit_amount, price.currency)}
      </span>
      <span className="text-sm text-base-content/80">{PRICE_TAX_NOTE}</span>
    </span>
  );
}
