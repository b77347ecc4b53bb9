// The plain rules of the organisation calls (ORGANISATIONS.md) that are not role tables
// (contract/org-roles.ts has those): invitation limits, what a deletion forfeits, which activity a
// role sees and whose address it may read.
import {
  INVITATION_DAYS,
  INVITES_PER_INVITER_HOUR,
  INVITES_PER_ORG_DAY,
  PENDING_INVITES_PER_ORG,
} from "../../contract/org-messages.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** When an invitation sent (or resent) at `now` stops working. */
export const invitationExpiry = (now: Date): Date => new Date(now.getTime() + INVITATION_DAYS * DAY_MS);

export interface InvitationCounts {
  /** Invitations the inviter sent, in any organisation, within the last hour. */
  byInviterLastHour: number;
  /** Invitations the organisation sent within the last 24 hours. */
  byOrgLastDay: number;
  /** Invitations of the organisation neither accepted, revoked nor expired. */
  pending: number;
}

/** Why one more invitation is refused: too many pending (409), or a rate (429); null: it may go. */
export type InvitationLimit = "pending" | "per_hour" | "per_day";

export function invitationLimit(counts: InvitationCounts): InvitationLimit | null {
  if (counts.pending >= PENDING_INVITES_PER_ORG) return "pending";
  if (counts.byInviterLastHour >= INVITES_PER_INVITER_HOUR) return "per_hour";
  if (counts.byOrgLastDay >= INVITES_PER_ORG_DAY) return "per_day";
  return null;
}

/** The start of the window a rate limit counts in (an invitation sent exactly then no longer counts). */
export const windowStart = (limit: "per_hour" | "per_day", now: Date): Date =>
  new Date(now.getTime() - (limit === "per_hour" ? HOUR_MS : DAY_MS));

/**
 * Whole seconds until the window lets one more through: the oldest invitation counted leaves it
 * then. At least 1.
 */
export function retryAfterSeconds(limit: "per_hour" | "per_day", oldestCounted: Date, now: Date): number {
  const window = limit === "per_hour" ? HOUR_MS : DAY_MS;
  const wait = oldestCounted.getTime() + window - now.getTime();
  return Math.max(1, Math.ceil(wait / 1000));
}

/**
 * When an invitation was last mailed: its expiry is always 7 days after its latest mail (creation
 * or resend), so no column of its own is needed.
 */
export const lastSentAt = (expiresAt: Date): Date => new Date(expiresAt.getTime() - INVITATION_DAYS * DAY_MS);

/**
 * Seconds until `invitation` may be mailed again, or 0: a resend is a mail like an invitation, so
 * each invitation is mailed at most once an hour (a manager cannot flood an address by resending).
 */
export function resendWaitSeconds(expiresAt: Date, now: Date): number {
  const wait = lastSentAt(expiresAt).getTime() + HOUR_MS - now.getTime();
  // Stryker disable next-line EqualityOperator: at exactly 0 both branches answer 0.
  return wait <= 0 ? 0 : Math.ceil(wait / 1000);
}

/** Days of a paid period left at `now`, counted up (a part of a day is a day); 0 without one. */
export function subscriptionDaysLeft(periodEnd: Date | null, now: Date): number {
  if (periodEnd === null) return 0;
  return Math.max(0, Math.ceil((periodEnd.getTime() - now.getTime()) / DAY_MS));
}

/**
 * The activity a billing member sees: billing details, auto top-up and the billing events
 * (subscription, payments, credits); everything else is for owners and managers.
 */
const BILLING_ACTIVITY_PREFIXES = [
  "billing_details.",
  "auto_top_up.",
  "subscription.",
  "payment.",
  "checkout.",
  "credits.",
  "invoice.",
] as const;

export function isBillingActivity(action: string): boolean {
  return BILLING_ACTIVITY_PREFIXES.some((prefix) => action.startsWith(prefix));
}

/** The LIKE patterns of the billing activity, for the query. */
export const billingActivityPatterns = (): string[] => BILLING_ACTIVITY_PREFIXES.map((p) => `${p}%`);

/** An event's address as the viewer may see it: their own events only, never another member's. */
export const visibleIp = (actorId: string | null, viewerId: string, ip: string | null): string | null =>
  actorId === viewerId ? ip : null;

/**
 * An event's details as the viewer may see them: another member's browser (`user_agent`, which
 * security events keep) is theirs as their address is, so only their own events show it.
 */
export function visibleDetails(
  actorId: string | null,
  viewerId: string,
  details: Record<string, unknown>,
): Record<string, unknown> {
  if (actorId === viewerId || !("user_agent" in details)) return details;
  const { user_agent: _hidden, ...rest } = details;
  return rest;
}

/** Two addresses are one when they are equal ignoring case (invitations and accepting them). */
export const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
