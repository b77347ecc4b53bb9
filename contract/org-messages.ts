// The user-facing words of organisations (ORGANISATIONS.md): the API answers with them and the
// portal shows them, so both import them from here.
import { PERSONAL_ORG_NAME } from "./personal-org.ts";

export const ORG_DETAIL = {
  notFound: "Organisation not found",
  personalHasNoMembers: "A personal organisation has no other members",
  alreadySubscribed: "This organisation already has an active subscription",
  memberCapReached: "This member's monthly credit limit is reached",
  transferFirst: "Transfer or delete your organisations first",
  lastOwner: "An organisation needs at least one owner",
  notAllowed: "Your role in this organisation does not allow this",
  ownerLimit: "You own 20 organisations: delete one before creating another.",
  /** 409 on making someone an owner (a role change or a transfer) who owns 20 already. */
  memberOwnerLimit: (name: string) => `${name} owns 20 organisations already and cannot own another.`,
  memberKeyLimit: "You have 20 API keys in this organisation: revoke one before creating another.",
  orgKeyLimit: "This organisation has 200 API keys: revoke one before creating another.",
  sharedKeyNeedsLimit: "A shared key needs a monthly credit limit",
  alreadyMember: "That address is already a member of this organisation",
  alreadyInvited: "That address already has a pending invitation",
  tooManyPending: "This organisation has 100 pending invitations: revoke some before inviting more.",
  /**
   * 429 on an invitation, made or resent, when the invited mailbox has had its hour's or day's
   * mails (decision 024): about the address, unlike the generic "Too many requests" of the
   * inviter's own writes.
   */
  mailboxBusy: "This address has been sent too many e-mails recently: try again later.",
  invitationNotFound: "Invitation not found",
  /** 403 on accept: the masked address follows. */
  wrongAddress: (masked: string) =>
    `This invitation is for ${masked}. Sign in with that address to accept it.`,
  emailNotVerified: "Verify your e-mail address first",
  forfeitConfirm: "Deleting the organisation forfeits its credits and subscription: confirm to go on",
  noLongerMember: "You are no longer a member of that organisation",
  /** Said instead of noLongerMember when the membership ended because the organisation was deleted. */
  orgDeleted: "That organisation was deleted",
  memberLeftCard: "The member who saved this card left",
  /** The name the portal shows for a personal organisation, and a name a team may not take. */
  personalName: PERSONAL_ORG_NAME,
} as const;

/**
 * What the portal says when `GET /v1/users/me` answers another organisation than the one chosen:
 * that it was deleted, when the answer says so, or else that the user is no longer a member.
 */
export const choiceLost = (answer: { chosen_organization_deleted?: boolean | undefined }) =>
  answer.chosen_organization_deleted ? ORG_DETAIL.orgDeleted : ORG_DETAIL.noLongerMember;

export const ORG_NAME_MIN = 2;
export const ORG_NAME_MAX = 60;
/** Team organisations one person may own. */
export const ORG_OWNED_MAX = 20;
/** Live keys per organisation (a member's own 20 are API_KEY_LIMIT_PER_USER). */
export const ORG_KEY_MAX = 200;
export const INVITATION_DAYS = 7;
export const INVITES_PER_INVITER_HOUR = 20;
export const INVITES_PER_ORG_DAY = 50;
export const PENDING_INVITES_PER_ORG = 100;

/** Why a name is refused, or null: 2-60 printable characters without < > / : or line breaks, not "Personal". */
export function orgNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed.length < ORG_NAME_MIN || trimmed.length > ORG_NAME_MAX) {
    return `Use ${ORG_NAME_MIN} to ${ORG_NAME_MAX} characters`;
  }
  // Printable: no control characters (line breaks included), none of < > / :
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}<>/:]/u.test(trimmed))
    return "Use letters, digits, spaces and punctuation other than < > / :";
  if (trimmed.toLowerCase() === ORG_DETAIL.personalName.toLowerCase())
    return '"Personal" is the name of your own account';
  return null;
}

/** a•••@example.com: the first character of the local part, the domain whole. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return "•••";
  return `${email[0]}•••${email.slice(at)}`;
}
