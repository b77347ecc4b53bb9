// Charges staff make by hand through POST /v1/credits/consume with an admin token: a manual amount,
// or a feature priced as the generation service would charge it. Unlike the service's charges,
// each is an operator action: it names the staff member (the spend's requested_by) and a reason,
// and its audit entry is written in the spend's own transaction (OPERATIONS.md: no effect without
// its entry). A repeat of an idempotency key answers the first charge and writes nothing more.
//
// The spend runs as a batch of one inside that transaction (a savepoint), not in the shared batch
// of the generation service's charges: a staff charge is rare, and its entry must commit with it.
import { endLeases } from "../billing/credit-leases.ts";
import { type SpendRequest, type SpendResult, spendBatch } from "../billing/spends.ts";
import type { Db } from "../db/types.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import { type Actor, audit, auditEntryOf } from "./actor.ts";

/** The audit action of a staff charge. */
export const STAFF_CHARGE_ACTION = "credits.charge";

/** What the audit entry says the charge was, besides its amount. */
export type StaffChargeKind =
  | { form: "manual" }
  | { form: "feature"; feature: string; people: string; quantity: number; apiKeyId: string | null };

export async function chargeAsStaff(
  db: Db,
  actor: Actor,
  spend: SpendRequest,
  reason: string,
  kind: StaffChargeKind,
): Promise<SpendResult> {
  const details = (userId: string | null, result?: Extract<SpendResult, { ok: true }>) => ({
    action: STAFF_CHARGE_ACTION,
    subjectUserId: userId,
    reason,
    details: {
      credits: fromMillicredits(spend.amount),
      idempotency_key: spend.idempotencyKey,
      ...(kind.form === "feature"
        ? {
            feature: kind.feature,
            people: kind.people,
            quantity: kind.quantity,
            api_key_id: kind.apiKeyId,
          }
        : {}),
      ...(result ? { spend_id: result.spendId, balance_after: fromMillicredits(result.balanceAfter) } : {}),
    },
  });
  // Refused before anything is charged if the entry could not be stored.
  auditEntryOf(actor, details(null));
  const charge = () =>
    db.transaction(async (tx) => {
      const [result] = await spendBatch(tx as unknown as Db, [{ ...spend, requestedBy: actor.id }]);
      if (!result) throw new Error("The staff charge had no answer");
      if (result.ok && !result.repeated) await audit(tx, actor, details(result.userId, result), spend.now);
      return result;
    });
  const result = await charge();
  if (result.ok || !result.leasesInTheWay) return result;
  // Refused only for what credit leases hold (decision 051): they end in a transaction of their
  // own, giving back what they did not spend, and the charge is decided again, once.
  const scope = result.leasesInTheWay;
  await db.transaction((tx) => endLeases(tx, scope, "released"));
  return charge();
}
