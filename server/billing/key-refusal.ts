// Whether an API key may pay for a charge: the one check both ways of deciding a charge make
// (spends.ts under the organisation's lock, lease-decisions.ts through a lease), so they cannot
// drift apart. A plain function: no I/O, no clock.
import { isUsableApiKey } from "../api-access/api-keys.ts";
import type { ApiKeyRow } from "../db/schema/index.ts";

/** Why a key cannot pay for a charge. */
export type KeyRefusal = "no_key" | "feature_not_allowed";

/**
 * Null when `key` may pay for a charge of `feature` at `now`: it exists, is neither revoked nor
 * expired, and its features (null: all) include the charge's (none named: a charge by amount).
 */
export function keyRefusal(
  key: Pick<ApiKeyRow, "revokedAt" | "expiresAt" | "features"> | undefined,
  feature: string | undefined,
  now: Date,
): KeyRefusal | null {
  if (!key || !isUsableApiKey(key, now)) return "no_key";
  if (feature !== undefined && key.features && !key.features.includes(feature)) return "feature_not_allowed";
  return null;
}
