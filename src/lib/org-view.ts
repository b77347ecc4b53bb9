// What the organisation pages offer and show, as plain functions of the contract's role rules
// (contract/org-roles.ts): a page never offers what the server would refuse for the role.
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import {
  can,
  canGiveRole,
  capChangeRefusal,
  INVITABLE_ROLES,
  type MemberRef,
  ORG_ROLES,
  type OrgRole,
  removalRefusal,
  roleChangeRefusal,
} from "../../contract/org-roles.ts";
import { accountActionErrorMessage, detailText, type FailedAnswer } from "./error-messages.ts";
import { ERROR_TEXT } from "./ui-text.ts";

/** An organisation as the portal names it: "Personal" for the personal one, else its name. */
export function orgName(org: { name: string | null; personal: boolean }): string {
  return org.personal ? ORG_DETAIL.personalName : (org.name ?? "");
}

/** The roles `actor` may invite with (an owner is made by a role change, never invited). */
export function invitableRoles(actor: OrgRole): OrgRole[] {
  return INVITABLE_ROLES.filter((role) => canGiveRole(actor, role));
}

/** What a member row offers its viewer: the roles it may be set to, the cap, removal (or leaving). */
export interface MemberOffer {
  /** The roles the member may be given, their own included; empty when the role cannot change. */
  roles: OrgRole[];
  cap: boolean;
  /** Remove them, or, on the viewer's own row, leave. */
  remove: boolean;
}

export function memberOffer(actor: MemberRef, target: MemberRef, ownerCount: number): MemberOffer {
  const others = ORG_ROLES.filter(
    (role) => role !== target.role && roleChangeRefusal(actor, target, role, ownerCount) === null,
  );
  return {
    roles: others.length > 0 ? ORG_ROLES.filter((role) => role === target.role || others.includes(role)) : [],
    cap: capChangeRefusal(actor, target) === null,
    remove: removalRefusal(actor, target, ownerCount) === null,
  };
}

/**
 * Whether a role sees /org/settings' actions: renaming, which every role that may also transfer or
 * delete may do (the role table), so it alone decides.
 */
/**
 * Where switching organisation goes from `pathname`: null for the same page again, which then acts
 * on the new choice; /profile from a page a mailed one-time link opened (an invitation just
 * accepted, an address just confirmed): its token is used up, and that page again would only say so.
 */
export function pathAfterSwitch(pathname: string): string | null {
  return /^\/(?:invitations|verify-email|reset-password|confirm-email)(?:\/|$)/.test(pathname)
    ? "/profile"
    : null;
}

export const seesSettings = (role: OrgRole): boolean => can(role, "rename");

/**
 * A cap as typed into the form: empty means no cap (null); otherwise the number, which the
 * contract's schema then checks (0 or more, at most 3 decimals). Not a number: NaN, which it refuses.
 */
export function capFromInput(text: string): number | null {
  const trimmed = text.trim().replace(/,/g, "");
  return trimmed === "" ? null : Number(trimmed);
}

const HOUR_MS = 3_600_000;

function berlinParts(date: Date): Record<string, number> {
  // Made per call (a page asks once): the members page is the only user.
  const berlin = new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/Berlin",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    hourCycle: "h23",
  });
  const parts: Record<string, number> = {};
  for (const { type, value } of berlin.formatToParts(date)) parts[type] = Number(value);
  return parts;
}

/**
 * When the next Berlin calendar month starts (members' monthly spending starts again then), as an
 * instant: midnight on the 1st in Berlin, which is 23:00 UTC (CET) or 22:00 UTC (CEST) the day before.
 */
export function nextBerlinMonthStart(now: Date): Date {
  const { year = 1970, month = 1 } = berlinParts(now);
  const midnightUtc = Date.UTC(month === 12 ? year + 1 : year, month === 12 ? 0 : month, 1);
  // Berlin changes its clock on the last Sundays of March and October, never on a 1st.
  const summer = new Date(midnightUtc - 2 * HOUR_MS);
  return berlinParts(summer).hour === 0 ? summer : new Date(midnightUtc - HOUR_MS);
}

/**
 * What a refused organisation call says: the server's own sentence for a refusal about the request
 * (403 not allowed, 404 gone, 409 last owner or already a member, 429 too many), else the portal's
 * generic message.
 */
export function orgErrorMessage(failed: FailedAnswer): string {
  // No answer (undefined) counts as no refusal.
  const status = failed.status ?? 0;
  const detail = detailText(failed.detail);
  if (detail && status >= 400 && status < 500 && status !== 401 && status !== 422) return detail;
  return accountActionErrorMessage(failed);
}

/**
 * A refused invitation, said beside the e-mail field (ORGANISATIONS.md "Pages": the address's
 * problems beside it). `about` says what the refusal is about, which decides how long it stays:
 * - "address": a member's address (409) or its mailbox's mails used up for the hour or the day
 *   (429 "mailboxBusy", decision 024): another address may still be invited, so it goes once the
 *   address is edited;
 * - "invited": the address has a pending invitation (409): as "address", and the form points to
 *   that invitation's Resend;
 * - "sending": the organisation's own limits (429 in their own words, 409 too many pending): any
 *   address is refused alike, so it stays until the next attempt.
 */
export interface InviteRefusal {
  message: string;
  about: "address" | "invited" | "sending";
}

/**
 * The refusal beside the e-mail field, or null for the rest, said in a toast: a role refused, a
 * failure, and the generic 429 of the inviter's own signed-in writes, which is about them and not
 * the address.
 */
export function inviteRefusal(failed: FailedAnswer): InviteRefusal | null {
  const message = detailText(failed.detail);
  if (!message) return null;
  if (failed.status === 409) {
    if (message === ORG_DETAIL.alreadyInvited) return { message, about: "invited" };
    return { message, about: message === ORG_DETAIL.alreadyMember ? "address" : "sending" };
  }
  if (failed.status !== 429) return null;
  if (message === ERROR_TEXT.tooManyRequests) return null;
  return { message, about: message === ORG_DETAIL.mailboxBusy ? "address" : "sending" };
}

/** A key of the organisation as GET /v1/api-keys lists it (creator and sharing, where it tells). */
export interface OrgKey {
  id: string;
  name: string;
  prefix: string;
  created_by?: { user_id: string } | null;
  shared?: boolean;
}

/**
 * The keys a member's removal stops: those they made that are not shared. Null when the list does
 * not say who made each key (then the dialog says every key they made stops).
 */
export function keysStoppedByRemoval<K extends OrgKey>(keys: readonly K[], userId: string): K[] | null {
  if (keys.some((key) => key.created_by === undefined)) return null;
  return keys.filter((key) => key.created_by?.user_id === userId && key.shared !== true);
}

/** What deleting would forfeit, from the 409 `DELETE /v1/orgs/{id}` answers without confirmation. */
export function forfeitOf(body: unknown): { credits: number; subscriptionDays: number } | null {
  const { credits, subscription_days } = (body ?? {}) as { credits?: unknown; subscription_days?: unknown };
  if (typeof credits !== "number" || typeof subscription_days !== "number") return null;
  return { credits, subscriptionDays: subscription_days };
}
