// A plan card's price: the prebuilt operator price until the API's live price arrives, rounded up
// to whole units with its symbol and '(excl. VAT)', in the card's fixed 48 px box. When live prices
// order the tiers differently from the build, the card takes its place in price order.
import { useEffect, useRef, useState } from "react";
import { type CardIdentity, priceRank, productForCard } from "../../lib/live-plans.ts";
import { formatPrice, PRICE_TAX_NOTE } from "../../lib/price.ts";
import { loadSubscriptionProducts } from "../../stores/billing.ts";

interface Props extends CardIdentity {
  unitAmount: number;
  currency: string;
}

export default function PlanPrice({ name, productIds, unitAmount, currency }: Props) {
  const [price, setPrice] = useState({ unitAmount, currency });
  const ref = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    loadSubscriptionProducts().then(
      (products) => {
        const product = productForCard(products, { name, productIds });
        if (!product) return;
        setPrice({ unitAmount: product.default_price.unit_amount, currency: product.default_price.currency });
        // CSS order through the CSSOM (allowed by the CSP, unlike a style attribute in the HTML).
        const card = ref.current?.closest<HTMLElement>("[data-plan-card]");
        if (card) card.style.order = String(priceRank(products, { name, productIds }));
      },
      // The prebuilt price stays; the subscribe button reports a failure when it is used.
      () => undefined,
    );
  }, [name, productIds]);

  return (
    <span ref={ref} className="inline-flex items-baseline gap-1.5">
      <span className="text-4xl font-extrabold tracking-tight tabular-nums">
        {formatPrice(price.unitAmount, price.currency)}
      </span>
      <span className="text-sm text-base-content/80">{PRICE_TAX_NOTE}</span>
    </span>
  );
}
