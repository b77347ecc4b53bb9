// The mails of organisations (ORGANISATIONS.md): an invitation's link to /invitations/{token}, the
// owners' word that a deleted account's keys in their organisation were revoked, and the word that
// a team organisation was deleted and what ended with it.
// Links are built from PORTAL_URL, never from the request. Each goes out after the invitation has
// committed, in the background: the answer never waits for SMTP, and a rolled-back invitation
// sends nothing. The token travels only in this mail; the database keeps its hash. The deletion's
// mail is queued in the deletion's own transaction (billing_mails, billing-mails.ts) and sent
// after it commits: a deletion rolled back mails nothing.
import type { OrgRole } from "../../contract/org-roles.ts";
import { mailTime } from "../accounts/security-mails.ts";
import type { BackgroundTasks } from "../background.ts";
import { type BillingMailSender, queueBillingMail } from "../billing/billing-mails.ts";
import type { DbOrTx } from "../db/types.ts";
import type { MailUser } from "../mail/billing-templates.ts";
import { counted, creditsWrittenOffText, type EndedPlan, planEndedText } from "../mail/deletion-text.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { MailMessage } from "../mail/message.ts";
import { PRODUCT_NAME, render } from "../mail/templates.ts";

export function invitationLink(portalUrl: string, token: string): string {
  return `${portalUrl}/invitations/${encodeURIComponent(token)}`;
}

const ROLE_WORDS: Record<OrgRole, string> = {
  owner: "an owner",
  manager: "a manager",
  billing: "a billing member",
  developer: "a developer",
};

export interface InvitationMail {
  to: string;
  orgName: string;
  inviter: string;
  role: OrgRole;
  token: string;
  /** As the mail shows it: "2026-12-03 22:14 CET". */
  expires: string;
}

export function invitationMail(args: InvitationMail & { portalUrl: string }): MailMessage {
  return render(args.to, {
    subject: `${args.inviter} invited you to ${args.orgName} on ${PRODUCT_NAME}`,
    greeting: "Hello,",
    paragraphs: [
      `${args.inviter} invited you to join the organisation "${args.orgName}" on ${PRODUCT_NAME} as ${ROLE_WORDS[args.role]}. Its members share one credit balance, plan and invoice.`,
      `Sign in (or register) with this e-mail address to accept. The link works once and until ${args.expires}.`,
    ],
    action: { label: "See the invitation", url: invitationLink(args.portalUrl, args.token) },
    closing: "If you did not expect this invitation, you can ignore this message.",
  });
}

export interface KeysRevokedMail {
  to: string;
  owner: string;
  orgName: string;
  /** The member whose account was deleted. */
  member: string;
  keys: readonly { name: string; prefix: string }[];
}

/** To an owner: a member's account was deleted, and with it the keys they made in the organisation. */
export function memberGoneMail(args: KeysRevokedMail & { portalUrl: string }): MailMessage {
  const keys = args.keys.map((k) => `${k.name} (${k.prefix}…)`).join(", ");
  return render(args.to, {
    subject: `${args.member} left ${args.orgName}: ${args.keys.length === 1 ? "1 API key" : `${args.keys.length} API keys`} revoked`,
    greeting: `Hi ${args.owner},`,
    paragraphs: [
      `${args.member} deleted their ${PRODUCT_NAME} account and so left the organisation "${args.orgName}".`,
      `The API keys they made there no longer work: ${keys}. Programs that used them need a new key.`,
    ],
    action: { label: "See the members", url: `${args.portalUrl}/org/members` },
    closing: "Shared keys they made keep working until an owner revokes them.",
  });
}

/** To an owner: a member revoked every API key they made ("Revoke all API keys"). */
export function keysRevokedByMemberMail(args: KeysRevokedMail & { portalUrl: string }): MailMessage {
  const keys = args.keys.map((k) => `${k.name} (${k.prefix}…)`).join(", ");
  return render(args.to, {
    subject: `${args.member} revoked ${args.keys.length === 1 ? "1 API key" : `${args.keys.length} API keys`} in ${args.orgName}`,
    greeting: `Hi ${args.owner},`,
    paragraphs: [
      `${args.member} revoked every API key they made, and with them these keys of the organisation "${args.orgName}": ${keys}.`,
      "Programs that used them need a new key.",
    ],
    action: { label: "See the API keys", url: `${args.portalUrl}/profile/api-keys` },
    closing: "Members revoke all their keys after a password reset or when a key may have leaked.",
  });
}

/** What deleting a team organisation ended (org-deletion.ts gathers it in the deletion's transaction). */
export interface OrgDeletion {
  orgId: string;
  orgName: string;
  /** The owner who deleted it. */
  deletedBy: { username: string; email: string };
  /** The paid plan that ended with it, with the whole days of its paid period left; null: none. */
  plan: EndedPlan | null;
  /** The credits written off (the `forfeit` entries). */
  credits: number;
  /** Auto top-up was on (active or paused) until the deletion turned it off. */
  autoTopUpWasOn: boolean;
  /** The saved card the deletion removed; null: none was saved. */
  card: { last4: string } | null;
  keysRevoked: number;
  invitationsRevoked: number;
}

/**
 * To the billing e-mail, each owner and each billing member of a team organisation as it was
 * deleted (the owner who deleted it too: their written confirmation that the paid contract ended):
 * who deleted it and when, what ended with it, and that its invoices are kept. No link to a page
 * of the organisation: nobody may open one any more.
 */
export function orgDeletedMail(
  user: MailUser,
  args: OrgDeletion & { at: string; portalUrl: string },
): MailMessage {
  const you = user.email.toLowerCase() === args.deletedBy.email.toLowerCase();
  const { plan, card } = args;
  const cardRemoved = card ? `the saved card ending in ${card.last4} was removed` : null;
  const autoTopUp = args.autoTopUpWasOn
    ? `Auto top-up was turned off${cardRemoved ? ` and ${cardRemoved}` : ""}.`
    : card
      ? `The saved card ending in ${card.last4} was removed.`
      : null;
  const revoked = [
    args.keysRevoked > 0
      ? `Its ${counted(args.keysRevoked, "API key was", "API keys were")} revoked: programs that used ${args.keysRevoked === 1 ? "it" : "them"} need a key of another organisation.`
      : null,
    args.invitationsRevoked > 0
      ? `Its ${counted(args.invitationsRevoked, "pending invitation was", "pending invitations were")} revoked.`
      : null,
  ].filter((p) => p !== null);
  return render(user.email, {
    subject: `Organisation ${args.orgName} was deleted`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `${you ? "You" : args.deletedBy.username} deleted the ${PRODUCT_NAME} organisation "${args.orgName}" on ${args.at}. None of its members has access to it any more.`,
      ...(plan ? [planEndedText("its", plan)] : []),
      ...(args.credits > 0 ? [creditsWrittenOffText("Its", args.credits)] : []),
      ...(autoTopUp ? [autoTopUp] : []),
      ...(revoked.length > 0 ? [revoked.join(" ")] : []),
      "Its invoices and payments are kept on record as issued, for the period the law requires (10 years). The portal no longer shows them to its former members, and the invoice links in earlier receipt e-mails no longer open: keep those e-mails for your records.",
    ],
    action: { label: `Visit ${PRODUCT_NAME}`, url: args.portalUrl },
    closing: "Questions about this deletion? Reply to this e-mail.",
  });
}

export interface OrgMails {
  invitation(mail: InvitationMail): void;
  memberGone(mail: KeysRevokedMail): void;
  keysRevokedByMember(mail: KeysRevokedMail): void;
  /**
   * In the deletion's transaction, while the memberships still stand: queues orgDeletedMail for the
   * organisation's billing e-mail, owners and billing members, once each (billingMailRecipients),
   * at `at`. Sent by sendQueued() after the commit; the billing mails' sender never drops it.
   */
  orgDeleted(tx: DbOrTx, deletion: OrgDeletion, at: Date): Promise<void>;
  /** Sends what a committed transaction queued (billing_mails), after the answer. */
  sendQueued(): void;
}

/** billing_mails' kind of the deletion's mail, sent whatever the organisation's state (billing-mails.ts). */
const ORG_DELETED_MAIL = "org_deleted";

export function createOrgMails(deps: {
  mailer: Mailer;
  tasks: BackgroundTasks;
  portalUrl: string;
  /** The billing mails' sender: what a transaction queued goes out after it commits. */
  sender: BillingMailSender;
}): OrgMails {
  return {
    invitation(mail) {
      const message = invitationMail({ ...mail, portalUrl: deps.portalUrl });
      deps.tasks.run("organisation invitation mail", () => deps.mailer.send(message));
    },
    memberGone(mail) {
      const message = memberGoneMail({ ...mail, portalUrl: deps.portalUrl });
      deps.tasks.run("member gone mail", () => deps.mailer.send(message));
    },
    keysRevokedByMember(mail) {
      const message = keysRevokedByMemberMail({ ...mail, portalUrl: deps.portalUrl });
      deps.tasks.run("keys revoked mail", () => deps.mailer.send(message));
    },
    async orgDeleted(tx, deletion, at) {
      const when = mailTime(at);
      await queueBillingMail(
        tx,
        {
          userId: deletion.orgId,
          kind: ORG_DELETED_MAIL,
          // An organisation is deleted once.
          dedupeKey: `${ORG_DELETED_MAIL}:${deletion.orgId}`,
          build: (user) => orgDeletedMail(user, { ...deletion, at: when, portalUrl: deps.portalUrl }),
        },
        at,
      );
    },
    sendQueued() {
      deps.sender.sendSoon();
    },
  };
}
