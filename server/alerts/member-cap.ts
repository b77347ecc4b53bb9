// Member monthly caps' mails (ORGANISATIONS.md): once a month per member, to the member and the
// organisation's owners and managers, when a charge takes the member's spending past 80 % of the
// cap, and when a charge is first refused by it. The 80 % warning is decided once under the
// organisation's lock with a latch on the member's month (spends.ts, domain/alert-latches.ts), which
// a change of the cap re-arms (`rearmCapWarning`), so it is keyed by the cap too; refusals repeat, so each mail is queued under a key naming the
// member, the month and the recipient (billing_mails' unique dedupe key), and this instance
// remembers what it queued so a storm of refusals does not write once each.
import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { Logger } from "pino";
import { PRODUCT_NAME } from "../../contract/brand.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import type { BackgroundTasks } from "../background.ts";
import type { BillingMailSender } from "../billing/billing-mails.ts";
import { memberMonth } from "../billing/ledger-store.ts";
import type { MemberCapEvent } from "../billing/spends.ts";
import type { Clock } from "../clock.ts";
import {
  billingMails,
  memberCreditUsage,
  organizationMembers,
  organizations,
  users,
} from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { pastCapWarningMark } from "../domain/alert-latches.ts";
import { fromMillicredits, type Millicredits } from "../domain/ledger.ts";
import type { MailMessage } from "../mail/message.ts";
import { render } from "../mail/templates.ts";

export interface MemberCapAlerts {
  /** A charge took the member's month past 80 % of their cap. */
  nearing(event: MemberCapEvent): void;
  /** A charge was refused by the member's cap. */
  reached(event: MemberCapEvent): void;
}

const credits = (milli: number) =>
  new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 }).format(fromMillicredits(milli));

export function memberCapMail(
  kind: "nearing" | "reached",
  args: {
    to: string;
    member: string;
    memberIsRecipient: boolean;
    orgName: string;
    event: MemberCapEvent;
    portalUrl: string;
  },
): MailMessage {
  const whose = args.memberIsRecipient ? "Your" : `${args.member}'s`;
  // The charge that crossed 80 % may have gone further (to 90 %, or the whole limit): say how far.
  const share = Math.floor((args.event.used / args.event.cap) * 100);
  const subject =
    kind === "nearing"
      ? `${whose} ${PRODUCT_NAME} credits in ${args.orgName} are at ${share} % of the monthly limit`
      : `${whose} monthly credit limit in ${args.orgName} is reached`;
  return render(args.to, {
    subject,
    greeting: "Hello,",
    paragraphs: [
      kind === "nearing"
        ? `${whose} API keys in ${args.orgName} have spent ${credits(args.event.used)} of ${credits(args.event.cap)} credits this month.`
        : `${ORG_DETAIL.memberCapReached}. ${whose} API keys in ${args.orgName} have spent ${credits(args.event.used)} of ${credits(args.event.cap)} credits this month; further charges through them are refused until the month ends.`,
      "An owner or a manager of the organisation can raise the limit on its Members page.",
    ],
    action: { label: "Open the members page", url: `${args.portalUrl}/org/members` },
    closing: "You get this e-mail once a month per member and limit.",
  });
}

export function createMemberCapAlerts(deps: {
  db: Db;
  clock: Clock;
  tasks: BackgroundTasks;
  sender: BillingMailSender;
  logger: Logger;
  portalUrl: string;
}): MemberCapAlerts {
  /** The keys this instance queued already: later refusals of the month skip the database. */
  const queued = new Set<string>();

  function queue(kind: "nearing" | "reached", event: MemberCapEvent): void {
    // A warning per cap: one raised re-arms it, and the crossing of the new mark mails again.
    const key =
      kind === "nearing"
        ? `member_cap_nearing:${event.orgId}:${event.memberId}:${event.month}:${event.cap}`
        : `member_cap_reached:${event.orgId}:${event.memberId}:${event.month}`;
    if (queued.has(key)) return;
    queued.add(key);
    deps.tasks.run(`member cap ${kind} mail`, async () => {
      const [org] = await deps.db
        .select({ name: organizations.name })
        .from(organizations)
        .where(eq(organizations.id, event.orgId));
      const recipients = await deps.db
        .select({
          id: users.id,
          email: users.email,
          username: users.username,
          role: organizationMembers.role,
        })
        .from(organizationMembers)
        .innerJoin(users, eq(users.id, organizationMembers.userId))
        .where(
          and(
            eq(organizationMembers.orgId, event.orgId),
            inArray(organizationMembers.role, ["owner", "manager"]),
          ),
        );
      const [member] = await deps.db
        .select({ id: users.id, email: users.email, username: users.username })
        .from(users)
        .where(eq(users.id, event.memberId));
      if (!org || !member) return;
      const everyone = new Map([member, ...recipients].map((r) => [r.email.toLowerCase(), r]));
      const now = deps.clock.now();
      for (const [address, recipient] of everyone) {
        const message = memberCapMail(kind, {
          to: recipient.email,
          member: member.username,
          memberIsRecipient: recipient.id === member.id,
          orgName: org.name ?? ORG_DETAIL.personalName,
          event,
          portalUrl: deps.portalUrl,
        });
        await deps.db
          .insert(billingMails)
          .values({
            id: randomUUID(),
            userId: event.orgId,
            kind: `member_cap_${kind}`,
            dedupeKey: `${key}|to:${address}`,
            to: message.to,
            subject: message.subject,
            text: message.text,
            html: message.html,
            createdAt: now,
          })
          .onConflictDoNothing({ target: billingMails.dedupeKey });
      }
      deps.logger.info({ orgId: event.orgId, memberId: event.memberId, kind }, "Member cap mail queued");
      deps.sender.sendSoon();
    });
  }

  return {
    nearing: (event) => queue("nearing", event),
    reached: (event) => queue("reached", event),
  };
}

/**
 * After a member's cap changed (their leases ended, the organisation locked): their month's warning
 * counts as sent when what they spent is already past the new mark, else it is armed again, so that
 * raising a cap warns at the new mark and lowering one below what was spent mails nothing.
 */
export async function rearmCapWarning(
  tx: Tx,
  member: { orgId: string; memberId: string; month: string; cap: Millicredits | null },
): Promise<void> {
  const where = memberMonth(member.orgId, member.memberId, member.month);
  const [row] = await tx.select({ used: memberCreditUsage.amount }).from(memberCreditUsage).where(where);
  if (!row) return;
  const warned = member.cap !== null && pastCapWarningMark(row.used, member.cap);
  await tx.update(memberCreditUsage).set({ capWarned: warned }).where(where);
}
