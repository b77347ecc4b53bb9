// The mails of organisations' invitations (ORGANISATIONS.md): the link to /invitations/{token}.
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
  /** As the mail shows it: "2026-12-03 21:14 UTC". */
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

export interface OrgMails {
  invitation(mail: InvitationMail): void;
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
  };
}
