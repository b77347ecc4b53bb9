// Where a grant of credits stands at an instant: the rule /profile's breakdown (credit-breakdown.ts)
// and the console's credits table share. Apart from the breakdown, whose contract and Berlin-time
// imports would add 11 KB to the console's customer page.

/** What the rule reads of a grant: the ledger's entries and the console's grants alike. */
export interface Grant {
  granted_at: string;
  /** ISO instant, or null for credits that never expire. */
  expires_at: string | null;
  remaining: number;
}

const at = (iso: string | null) => (iso === null ? Number.POSITIVE_INFINITY : Date.parse(iso));

/**
 * Where a grant stands at `now`, as the balance counts it: "live" (granted at or before now and
 * expiring after it: counted), "expired" (expiry exactly at now included; whatever it
 * had left is gone for good, though the ledger keeps the number) or "upcoming" (a renewal's credits,
 * paid for, counted from granted_at). The console's credits table marks the last two (issue: an
 * expired grant read as unspent credits).
 */
type GrantStanding = "live" | "expired" | "upcoming";

export function grantStanding(entry: Grant, now: Date): GrantStanding {
  const t = now.getTime();
  if (t >= at(entry.expires_at)) return "expired";
  return Date.parse(entry.granted_at) <= t ? "live" : "upcoming";
}

/** What a grant has left to spend at `now`: nothing once it expired, what the ledger says otherwise. */
export function creditsLeft(entry: Grant, now: Date): number {
  return grantStanding(entry, now) === "expired" ? 0 : entry.remaining;
}
