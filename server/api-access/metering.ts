// Metering: the generation service's charge for a generation, priced from the credit-cost table
// (contract/credit-costs.ts, the table /plans shows), within the key's feature restriction and
// monthly limit and the user's balance, exactly once per idempotency key (billing/spends.ts decides).
import { type FeatureId, featureName, type People, priceOf } from "../../contract/credit-costs.ts";
import {
  type MemberCapEvent,
  type SpendRefusal,
  type SpendRequest,
  spendCredits,
} from "../billing/spends.ts";
import type { Db } from "../db/types.ts";
import { berlinMonth } from "../domain/berlin-time.ts";
import type { LastUsed } from "./last-used.ts";

export interface FeatureCharge {
  /** Exactly one of the two says whose credits pay. */
  userId?: string | undefined;
  apiKeyId?: string | undefined;
  feature: FeatureId;
  people: People;
  quantity: number;
  idempotencyKey: string;
  now: Date;
  /**
   * A simulated charge's time in the past (development only): recorded as the charge's time and
   * counted in that Berlin month, while the balance is today's (the credits spend now).
   */
  recordedAt?: Date | undefined;
}

export type ChargeResult =
  | {
      ok: true;
      userId: string;
      balanceAfter: number;
      charged: number;
      spendId: string;
      repeated: boolean;
      /** The low-balance threshold this charge crossed, if it did (spends.ts). */
      lowBalanceCrossed: number | null;
      /** The member whose month this charge took past 80 % of their cap, if it did (spends.ts). */
      memberCapNearing: MemberCapEvent | null;
      /** Auto top-up is active and the balance is below its threshold now (spends.ts). */
      autoTopUpDue: boolean;
    }
  | { ok: false; reason: SpendRefusal; memberCap?: MemberCapEvent; autoTopUpOrg?: string };

/** The spend a feature charge asks billing for: its price, its ledger text, and what it meters. */
export function featureSpend(charge: FeatureCharge, requestedBy: string | null): SpendRequest {
  return {
    userId: charge.userId,
    amount: priceOf(charge.feature, charge.people, charge.quantity),
    reason: `${featureName(charge.feature)} × ${charge.quantity} (${charge.people === "one" ? "one person" : "multiple people"})`,
    idempotencyKey: charge.idempotencyKey,
    requestedBy,
    now: charge.now,
    recordedAt: charge.recordedAt,
    meter: {
      apiKeyId: charge.apiKeyId ?? null,
      feature: charge.feature,
      people: charge.people,
      quantity: charge.quantity,
      month: berlinMonth(charge.recordedAt ?? charge.now),
    },
  };
}

export async function chargeFeature(
  db: Db,
  lastUsed: LastUsed,
  charge: FeatureCharge,
): Promise<ChargeResult> {
  const result = await spendCredits(db, featureSpend(charge, null));
  // A key that answered anything but "no such usable key" was used, whatever the charge's outcome.
  if (charge.apiKeyId !== undefined && !(!result.ok && result.reason === "no_key")) {
    lastUsed.touch("api", charge.apiKeyId, charge.now);
  }
  if (!result.ok) return result;
  return {
    ok: true,
    userId: result.userId,
    balanceAfter: result.balanceAfter,
    charged: result.amount,
    spendId: result.spendId,
    repeated: result.repeated,
    lowBalanceCrossed: result.lowBalanceCrossed,
    memberCapNearing: result.memberCapNearing,
    autoTopUpDue: result.autoTopUpDue,
  };
}
