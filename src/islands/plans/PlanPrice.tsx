// A plan card's price: the prebuilt operator price until the API's live price arrives, in the card's
// fixed 48 px box. The live part (the catalogue store and its fetch library, about 3 KB gzip) loads
// once the island has hydrated, like the API client itself, so it is not on the page's first load.
import { lazy, Suspense } from "react";
import type { PriceProps } from "./LivePrice.tsx";
import { PriceText } from "./PriceText.tsx";

const LivePrice = lazy(() => import("./LivePrice.tsx"));

export default function PlanPrice(props: PriceProps) {
  return (
    <Suspense fallback={<PriceText unitAmount={props.unitAmount} currency={props.currency} />}>
      <LivePrice {...props} />
    </Suspense>
  );
}
