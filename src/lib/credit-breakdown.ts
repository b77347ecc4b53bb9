// What a balance is made of: the live grants with credits left, merged by kind and expiry, in the
// order a spend takes from them (spec section 9: subscription, then top-up, then free; inside a
// kind the soonest expiry first, credits that never expire last, older grants first). The server's
// ledger applies the same order (server/domain/ledger.ts, compareSpendOrder); this one only orders
// what /profile shows. Credits support granted (goodwill) are free credits too, but each note is a
// part of its own: merged into the sign-up credits, a grant was invisible (issue 31).
import { GOODWILL_SOURCE, type LedgerEntry } from "../../contract/billing.ts";
import { formatBalance } from "./account-view.ts";
import { berlinDayAndTime } from "./berlin-time.ts";
import { grantStanding } from "./grant-standing.ts";

export type GrantKind = LedgerEntry["kind"];

export interface CreditPart {
  kind: GrantKind;
  /** Credits left in the part's grants. */
  credits: number;
  /** ISO instant, or null for credits that never expire. */
  expiresAt: string | null;
  /** Present for credits support granted: what they told the customer, or null. */
  goodwill?: { note: string | null };
}

const KIND_ORDER: readonly GrantKind[] = ["subscription", "topup", "free"];

const at = (iso: string | null) => (iso === null ? Number.POSITIVE_INFINITY : Date.parse(iso));

export function creditBreakdown(entries: readonly LedgerEntry[], now: Date): CreditPart[] {
  const parts = new Map<string, CreditPart>();
  // The ledger is newest first: read oldest first, so parts that tie in the sort stay in spend order.
  for (const entry of [...entries].reverse()) {
    if (entry.remaining <= 0 || grantStanding(entry, now) !== "live") continue;
    const goodwill = entry.source === GOODWILL_SOURCE ? { note: entry.note ?? null } : undefined;
    // One part per kind and expiry, and per note for support's grants.
    const key = JSON.stringify([entry.kind, entry.expires_at, goodwill ?? null]);
    const part = parts.get(key);
    // Milli-credit sums, so that 0.1 + 0.2 shows as 0.3.
    if (part) part.credits = Math.round((part.credits + entry.remaining) * 1000) / 1000;
    else
      parts.set(key, {
        kind: entry.kind,
        credits: entry.remaining,
        expiresAt: entry.expires_at,
        ...(goodwill ? { goodwill } : {}),
      });
  }
  return [...parts.values()].sort(
    (a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || at(a.expiresAt) - at(b.expiresAt),
  );
}

const KIND_NAMES: Readonly<Record<GrantKind, string>> = {
  subscription: "subscription",
  topup: "top-up",
  free: "free",
};

/**
 * "5,000 subscription credits until 2026-12-23 00:00 CET", "50 free credits, no expiry",
 * "250 goodwill credits from support, no expiry" (the note is shown beside it).
 */
export function describePart(part: CreditPart): string {
  const amount = part.goodwill
    ? `${formatBalance(part.credits)} goodwill credits from support`
    : `${formatBalance(part.credits)} ${KIND_NAMES[part.kind]} credits`;
  return part.expiresAt === null
    ? `${amount}, no expiry`
    : `${amount} until ${berlinDayAndTime(part.expiresAt)}`;
}
