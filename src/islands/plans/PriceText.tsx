// A plan's price as the card shows it: rounded up to whole units with its symbol, and '(excl. VAT)'.
import type { Ref } from "react";
import { formatPrice, PRICE_TAX_NOTE } from "../../lib/price.ts";

export function PriceText({
  unitAmount,
  currency,
  ref,
}: {
  unitAmount: number;
  currency: string;
  ref?: Ref<HTMLSpanElement>;
}) {
  return (
    <span ref={ref} className="inline-flex items-baseline gap-1.5">
      <span className="text-4xl font-extrabold tracking-tight tabular-nums">
        {formatPrice(unitAmount, currency)}
      </span>
      <span className="text-sm text-base-content/80">{PRICE_TAX_NOTE}</span>
    </span>
  );
}
