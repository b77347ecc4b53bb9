// Expands content written once per tier or pack into one entry per product id, for both id sets
// (spec section 3: two environments, same content). The ids come from contract/product-ids.ts, so
// an operator who puts their own Stripe ids there changes nothing here.
import { TOP_UPS, topUpDescription } from "../../contract/catalogue.ts";
import { type IdSet, PRODUCT_IDS, TIER_KEYS, type TierKey } from "../../contract/product-ids.ts";

type IdSets = Readonly<Record<"test" | "live", IdSet>>;
type IdSetName = keyof IdSets;
const ID_SET_NAMES: readonly IdSetName[] = ["test", "live"];

/** `plans` entries: each tier's copy under every product id that sells the tier. */
export function planEntries<Copy extends object>(
  copyByTier: Readonly<Record<TierKey, Copy>>,
  idSets: IdSets = PRODUCT_IDS,
): Array<Copy & { id: string; tier: TierKey; id_set: IdSetName }> {
  return ID_SET_NAMES.flatMap((id_set) =>
    TIER_KEYS.map((tier) => ({ ...copyByTier[tier], id: idSets[id_set].tiers[tier].product, tier, id_set })),
  );
}

/** `topUps` entries: name and the spec's description for every top-up product id. */
export function topUpEntries(idSets: IdSets = PRODUCT_IDS) {
  return ID_SET_NAMES.flatMap((id_set) =>
    TOP_UPS.map((pack) => ({
      id: idSets[id_set].topUps[pack.key].product,
      key: pack.key,
      token_amount: pack.tokenAmount,
      name: pack.name,
      description: topUpDescription(pack.tokenAmount),
      id_set,
    })),
  );
}
