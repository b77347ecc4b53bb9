// What /plans shows, computed from the content collections and the shared catalogue: one card per
// tier sorted by price ascending (spec section 2), the feature table rows, the top-up rows.
import type { Currency, TierInfo, TopUpInfo } from "../../contract/catalogue.ts";
import type { TierKey } from "../../contract/product-ids.ts";

export interface PlanCopy {
  tier: TierKey;
  id_set: "test" | "live";
  name: string;
  recurring_period: string;
  cta_text: string;
  description: string;
  badge?: string | undefined;
  benefits: ReadonlyArray<{ name: string; included: boolean }>;
}

export interface PlanCardModel extends Omit<PlanCopy, "id_set"> {
  /** The product id of this tier in each id set; islands match live products against them. */
  productIds: { test: string; live: string };
  /** Operator-set fallback price until the island shows the live one. */
  unitAmount: number;
  currency: Currency;
  creditsPerMonth: number;
  concurrentRequests: number;
}

export interface TierFeatures {
  concurrentRequests: number;
}

/** Plan cards for every tier of the catalogue, cheapest first. */
export function planCards(
  plans: ReadonlyArray<PlanCopy & { id: string }>,
  features: Readonly<Record<TierKey, TierFeatures>>,
  tiers: readonly TierInfo[],
): PlanCardModel[] {
  return [...tiers]
    .sort((a, b) => a.unitAmount - b.unitAmount)
    .map((tier) => {
      const copy = plans.find((p) => p.tier === tier.key && p.id_set === "test");
      const live = plans.find((p) => p.tier === tier.key && p.id_set === "live");
      if (!copy || !live) throw new Error(`No local plan information for tier ${tier.key} in both id sets`);
      const { id: _id, id_set: _set, ...rest } = copy;
      return {
        ...rest,
        productIds: { test: copy.id, live: live.id },
        unitAmount: tier.unitAmount,
        currency: tier.currency,
        creditsPerMonth: tier.creditsPerMonth,
        concurrentRequests: features[tier.key].concurrentRequests,
      };
    });
}

// To the thousandth, as credits are kept (account-view.ts's formatBalance says why).
const INTEGER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

/** Credit amounts as the tables print them: 25000 -> "25,000", 0.1 -> "0.1", 186.741 as it is. */
export function formatCredits(amount: number): string {
  return INTEGER.format(amount);
}

/** Top-up packs in the order the table lists them: smallest pack first. */
export function topUpRows(packs: readonly TopUpInfo[]): TopUpInfo[] {
  return [...packs].sort((a, b) => a.tokenAmount - b.tokenAmount);
}
