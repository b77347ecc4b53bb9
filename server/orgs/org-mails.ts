// The mails of organisations (ORGANISATIONS.md): an invitation's link to /invitations/{token}, and
// the owners' word that a deleted account's keys in their organisation were revoked.
// Links are built from PORTAL_URL, never from the request. Each goes out after the invitation has
// committed, in the background: the answer never waits for SMTP, and a rolled-back invitation
// sends nothing. The token travels only in this mail; the database keeps its hash.
import type { OrgRole } from "../../contract/org-roles.ts";
import type { BackgroundTasks } from "../background.ts";
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

export interface OrgMails {
  invitation(mail: InvitationMail): void;
  memberGone(mail: KeysRevokedMail): void;
  keysRevokedByMember(mail: KeysRevokedMail): void;
}

export function createOrgMails(deps: {
  mailer: Mailer;
  tasks: BackgroundTasks;
  portalUrl: string;
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
  };
}
