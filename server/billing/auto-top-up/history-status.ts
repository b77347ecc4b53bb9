// What an auto top-up's unpaid row in the billing history says while its attempt is open or once it
// was cancelled. The row is written "failed" when the charge did not pay (history.ts); whether it
// waits for the bank's confirmation, was declined, or was cancelled (changed settings, a lapsed
// payment link, a voided invoice) is the attempt's status, read when the history is. So the row
// reads as the attempt stands, with the page that completes the payment while the bank waits
// (decision 048), and every row written before reads right too.
//
// A payment whose dispute was lost is stored "refunded" (domain/reversal.ts: the money went back),
// but nobody here refunded it: the card network took it back for the buyer's bank. Its row reads
// `dispute_lost`, told by the grant's `dispute_lost` adjustment, so that rows written before read
// right too and the money rules stay as they are.
import { and, eq, inArray } from "drizzle-orm";
import type { InvoiceStatus } from "../../../contract/invoice-status.ts";
import {
  autoTopUpAttempts,
  creditAdjustments,
  creditGrants,
  type InvoiceRow,
} from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import type { AttemptStatus } from "../../domain/auto-top-up-limit.ts";
import { autoTopUpKey } from "../ports/fulfilment-keys.ts";

const PREFIX = autoTopUpKey("");

/** The attempt id of a row's fulfilment key, or null for any other payment's key. */
export function attemptIdOfKey(fulfilmentKey: string): string | null {
  return fulfilmentKey.startsWith(PREFIX) ? fulfilmentKey.slice(PREFIX.length) : null;
}

export interface HistoryStatus {
  status: InvoiceStatus;
  /** Where the customer confirms the payment, only while the bank asks for it. */
  payUrl: string | null;
}

/**
 * A row's status in the history: a failed auto top-up row whose attempt waits for the bank reads
 * `authentication_required` (with the attempt's payment page), one whose attempt was cancelled
 * reads `cancelled`; a refunded payment whose dispute was lost (`disputeLost`) reads
 * `dispute_lost`; any other row (declined, paid, not charged, any other payment) as stored.
 */
export function historyStatus(
  stored: InvoiceRow["status"],
  attempt: { status: AttemptStatus; payUrl: string | null } | undefined,
  disputeLost = false,
): HistoryStatus {
  if (stored === "refunded" && disputeLost) return { status: "dispute_lost", payUrl: null };
  if (stored === "failed" && attempt?.status === "authentication_required")
    return { status: "authentication_required", payUrl: attempt.payUrl };
  if (stored === "failed" && attempt?.status === "cancelled") return { status: "cancelled", payUrl: null };
  return { status: stored, payUrl: null };
}

/** The fulfilment keys among `keys` whose payment's dispute was lost (its grant's adjustment says so). */
async function lostDisputeKeys(db: DbOrTx, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .select({ key: creditGrants.fulfilmentKey })
    .from(creditAdjustments)
    .innerJoin(creditGrants, eq(creditGrants.id, creditAdjustments.grantId))
    .where(and(eq(creditAdjustments.kind, "dispute_lost"), inArray(creditGrants.fulfilmentKey, [...keys])));
  return new Set(rows.map((r) => r.key));
}

/**
 * `rows` with each one's history status: the attempts of failed auto top-up rows, and the lost
 * disputes of refunded rows, read in one query each.
 */
export async function withHistoryStatus<R extends Pick<InvoiceRow, "status" | "fulfilmentKey">>(
  db: DbOrTx,
  rows: readonly R[],
): Promise<(Omit<R, "status"> & HistoryStatus)[]> {
  const ids = rows.flatMap((r) => {
    const id = r.status === "failed" ? attemptIdOfKey(r.fulfilmentKey) : null;
    return id === null ? [] : [id];
  });
  const attempts =
    ids.length === 0
      ? []
      : await db
          .select({
            id: autoTopUpAttempts.id,
            status: autoTopUpAttempts.status,
            payUrl: autoTopUpAttempts.payUrl,
          })
          .from(autoTopUpAttempts)
          .where(inArray(autoTopUpAttempts.id, ids));
  const byId = new Map(attempts.map((a) => [a.id, a]));
  const lost = await lostDisputeKeys(
    db,
    rows.flatMap((r) => (r.status === "refunded" ? [r.fulfilmentKey] : [])),
  );
  return rows.map((r) => {
    const id = attemptIdOfKey(r.fulfilmentKey);
    const attempt = id === null ? undefined : byId.get(id);
    return { ...r, ...historyStatus(r.status, attempt, lost.has(r.fulfilmentKey)) };
  });
}
