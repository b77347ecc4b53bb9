// The security mails of two-factor sign-in (ACCOUNT-SECURITY.md): each tells what happened, when
// and from where, and what to do if it was not the account's owner.
import { AUDIT_LOG_KEPT } from "../../contract/data-retention.ts";
import { creditsWrittenOffText, type EndedPlan, planEndedText } from "./deletion-text.ts";
import type { MailMessage } from "./message.ts";
import { PRODUCT_NAME, render } from "./templates.ts";

interface SecurityMailArgs {
  to: string;
  username: string;
  portalUrl: string;
  /** When, as mailTime() writes it. */
  at: string;
  ip: string | null;
}

const where = (args: SecurityMailArgs) => `on ${args.at}${args.ip ? ` from the address ${args.ip}` : ""}`;
const securityPage = (portalUrl: string) => `${portalUrl}/profile/security`;

export function twoFactorChangedMail(args: SecurityMailArgs & { enabled: boolean }): MailMessage {
  const state = args.enabled ? "turned on" : "turned off";
  return render(args.to, {
    subject: `Two-factor sign-in was ${state} for your ${PRODUCT_NAME} account`,
    greeting: `Hi ${args.username},`,
    paragraphs: args.enabled
      ? [
          `Two-factor sign-in was turned on ${where(args)}. From now on, signing in asks for a code from your authenticator app after your password.`,
          "Keep your recovery codes somewhere safe: each one signs you in once if you lose your phone.",
        ]
      : [
          `Two-factor sign-in was turned off ${where(args)}. Signing in now needs only your password.`,
          "If you did not do this, someone who knows your password has your account: reset your password now, then turn two-factor sign-in on again.",
        ],
    action: { label: "Review your security settings", url: securityPage(args.portalUrl) },
    closing: "If this was you, there is nothing else to do.",
  });
}

export function recoveryCodeUsedMail(args: SecurityMailArgs & { codesLeft: number }): MailMessage {
  const left =
    args.codesLeft === 0
      ? "You have no recovery codes left: make new ones on your security page now."
      : `You have ${args.codesLeft} recovery code${args.codesLeft === 1 ? "" : "s"} left.`;
  return render(args.to, {
    subject: `A recovery code was used to sign in to your ${PRODUCT_NAME} account`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `A recovery code was used instead of your authenticator app to sign in ${where(args)}. That code no longer works.`,
      left,
      "If you did not sign in, someone has your password and a recovery code: reset your password and make new recovery codes now.",
    ],
    action: { label: "Review your security settings", url: securityPage(args.portalUrl) },
    closing: "If this was you, there is nothing else to do.",
  });
}

/** What an account's deletion ended for good, read in its transaction before the plan ended. */
export interface AccountDeletionLoss {
  /** The paid plan of its personal organisation, ended at once without a refund; null: none. */
  plan: EndedPlan | null;
  /** The personal organisation's credits, written off with the account. */
  credits: number;
  /**
   * The team organisations only the account was in, deleted with it (their names). Their own
   * deletion mail went to their owners, this account's address among them, which the erasure drops
   * unless it was sent first.
   */
  teams?: readonly string[];
}

/**
 * The only word the owner gets once the account is gone: when and from where, what ended with it
 * (the plan without a refund, the credits written off, in the words of a team's deletion mail),
 * what is kept and why.
 */
export function accountDeletedMail(args: SecurityMailArgs & { lost: AccountDeletionLoss }): MailMessage {
  const { plan, credits, teams = [] } = args.lost;
  return render(args.to, {
    subject: `Your ${PRODUCT_NAME} account was deleted`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `Your account was deleted ${where(args)}. Its API keys no longer work, and your personal data has been erased, except what the law and the security of the service require us to keep.`,
      ...(plan ? [planEndedText("your", plan)] : []),
      ...(credits > 0 ? [creditsWrittenOffText("Your", credits)] : []),
      ...(teams.length > 0 ? [teamsDeletedText(teams)] : []),
      "Invoices and payment records are kept as issued for the period the law requires (10 years), without your account.",
      // The audit log cannot erase (decision 021): say what it keeps, how long and why.
      AUDIT_LOG_KEPT.intro,
      AUDIT_LOG_KEPT.securityEvents,
      AUDIT_LOG_KEPT.operatorActions,
      AUDIT_LOG_KEPT.order,
      "If you did not delete it, reply to this e-mail at once: someone had your password.",
    ],
    action: { label: `Visit ${PRODUCT_NAME}`, url: args.portalUrl },
    closing: "Thank you for using our service.",
  });
}

/** The teams an account's deletion took with it: what their own deletion mail would have said. */
function teamsDeletedText(teams: readonly string[]): string {
  const names = teams.map((name) => `"${name}"`).join(", ");
  return teams.length === 1
    ? `The team organisation only you were in was deleted with it: ${names}. Any plan it had ended without a refund, any credits it had were written off, its auto top-up and saved card went with it, and its API keys and invitations no longer work.`
    : `The team organisations only you were in were deleted with it: ${names}. Any plans they had ended without a refund, any credits they had were written off, their auto top-up and saved cards went with them, and their API keys and invitations no longer work.`;
}

export function newBrowserSignInMail(args: SecurityMailArgs & { browser: string }): MailMessage {
  return render(args.to, {
    subject: `New sign-in to your ${PRODUCT_NAME} account`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `Your account was signed in to from ${args.browser}, ${where(args)}. It has not been used from this browser before.`,
      "If this was not you, change your password now, sign out everywhere, and turn on two-factor sign-in on your security page.",
    ],
    action: { label: "Review your security settings", url: securityPage(args.portalUrl) },
    closing: "If this was you, there is nothing else to do.",
  });
}

/** To the new address: the link that makes it the account's (24 h). */
export function emailChangeLinkMail(args: {
  to: string;
  username: string;
  portalUrl: string;
  token: string;
}): MailMessage {
  return render(args.to, {
    subject: `Confirm your new ${PRODUCT_NAME} e-mail address`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      "You asked to use this address for your account. It takes over when you follow the link below, within 24 hours.",
      "If you did not ask for this, ignore this e-mail: nothing changes.",
    ],
    action: {
      label: "Confirm this address",
      url: `${args.portalUrl}/confirm-email/${encodeURIComponent(args.token)}`,
    },
    closing: "The link works once.",
  });
}

/** To the old address, after the change: what happened, and a way back for 7 days. */
export function emailChangedMail(
  args: SecurityMailArgs & { newEmail: string; revertToken: string },
): MailMessage {
  return render(args.to, {
    subject: `Your ${PRODUCT_NAME} e-mail address was changed`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `The e-mail address of your account was changed to ${args.newEmail} ${where(args)}. Mails about your account now go there.`,
      "If you did not do this, follow the link below within 7 days: it changes the address back to this one, signs every browser out and ends the password. Then set a new password with 'Forgot password': the link comes to this address.",
    ],
    action: {
      label: "This was not me: change it back",
      // `back`: the page asks before it acts, so that a mail scanner opening the link does not
      // change the address back, sign every browser out and end the password.
      url: `${args.portalUrl}/confirm-email/${encodeURIComponent(args.revertToken)}?back=1`,
    },
    closing: "If this was you, there is nothing else to do.",
  });
}

/**
 * A passkey added or removed (issue 30): a passkey signs in on its own, so one added with a stolen
 * session would outlive a password change and "sign out everywhere"; the owner hears of each.
 */
export function passkeyChangedMail(args: SecurityMailArgs & { name: string; added: boolean }): MailMessage {
  return render(args.to, {
    subject: args.added
      ? `A passkey was added to your ${PRODUCT_NAME} account`
      : `A passkey was removed from your ${PRODUCT_NAME} account`,
    greeting: `Hi ${args.username},`,
    paragraphs: args.added
      ? [
          `The passkey "${args.name}" was added to your account ${where(args)}. It signs in to your account without your password.`,
          "If you did not add it, remove it on your security page now, then change your password.",
        ]
      : [
          `The passkey "${args.name}" was removed from your account ${where(args)}. It no longer signs in.`,
          "If you did not remove it, someone has your account: change your password and review your passkeys now.",
        ],
    action: { label: "Review your passkeys", url: securityPage(args.portalUrl) },
    closing: "If this was you, there is nothing else to do.",
  });
}

/** What changed about a staff account's second factors, as the admins' mail says it. */
export type StaffFactorChange =
  | "totp_enabled"
  | "totp_disabled"
  | "passkey_added"
  | "passkey_removed"
  | "recovery_codes_renewed";

const STAFF_FACTOR_CHANGES: Record<StaffFactorChange, string> = {
  totp_enabled: "turned two-factor sign-in on",
  totp_disabled: "turned two-factor sign-in off",
  passkey_added: "added a passkey",
  passkey_removed: "removed a passkey",
  recovery_codes_renewed: "made new recovery codes",
};

/**
 * To every admin (issue 30): a staff account changed the factors that guard the console. A stolen
 * staff session that adds its own factor would otherwise keep console access unnoticed.
 */
export function staffFactorChangedMail(
  args: SecurityMailArgs & { staff: { username: string; role: string }; change: StaffFactorChange },
): MailMessage {
  const who = `${args.staff.username} (${args.staff.role})`;
  return render(args.to, {
    subject: `Staff account ${args.staff.username} ${STAFF_FACTOR_CHANGES[args.change]}`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `The staff account ${who} ${STAFF_FACTOR_CHANGES[args.change]} ${where(args)}.`,
      "Staff factors guard the operator console. If this was not expected, ask them, and disable the account in the console if they did not do it.",
    ],
    action: { label: "Open the operator console", url: `${args.portalUrl}/admin` },
    closing: "Every admin gets this mail.",
  });
}
