// The billing e-mails' outbox (billing_mails). queueBillingMail() writes a rendered message in the
// caller's transaction under a key naming the event it is about: a second queueing of the same key
// (a redelivered webhook, the same payment arriving as two events) does nothing, so each mail goes
// out once. The sender sends what is unsent once the transaction has committed, and retries what
// failed on its next run (after each webhook, and from the billing job). A mail about an organisation
// that goes on is dropped, not sent, once the organisation or its account is deleted; so is one to
// a domain that never receives mail (a deleted account's pseudonym, decision 021).
import { randomUUID } from "node:crypto";
import { and, asc, eq, gt, isNull, lt, lte, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { BackgroundTasks } from "../background.ts";
import type { Clock } from "../clock.ts";
import { billingMails, creditGrants } from "../db/schema/index.ts";
import type { Db, DbOrTx } from "../db/types.ts";
import { berlinDateOf } from "../domain/berlin-time.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import { type MailUser, topUpExpiringMail } from "../mail/billing-templates.ts";
import { type Mailer, namesReservedAddress } from "../mail/mailer.ts";
import type { MailMessage } from "../mail/message.ts";
import { billingMailRecipients } from "./billing-contacts.ts";
import { billingAccountDeleted } from "./deleted-billing-account.ts";

/** After this many failed sends a mail stays in the table for an operator (logged at error level). */
export const MAX_SEND_ATTEMPTS = 8;

/**
 * Queues `build(recipient)` for the billing account `userId` (an organisation) once per
 * `dedupeKey`, one mail per recipient: the billing e-mail, the owners and the billing members
 * (billing-contacts.ts). True when it was queued now. The caller's transaction decides: rolled back,
 * nothing is sent.
 *
 * The first recipient's row carries `dedupeKey` itself and is written last: a row with it means the
 * event's mails are all queued (rows from before organisations, one per event, included), so a
 * redelivery queues nothing; the others carry `dedupeKey` and their address, so a retry after a
 * failure part-way writes only what is missing.
 */
export async function queueBillingMail(
  tx: DbOrTx,
  p: { userId: string; kind: string; dedupeKey: string; build: (user: MailUser) => MailMessage },
  now: Date,
): Promise<boolean> {
  const [taken] = await tx
    .select({ id: billingMails.id })
    .from(billingMails)
    .where(eq(billingMails.dedupeKey, p.dedupeKey));
  if (taken) return false;
  const [first, ...others] = await billingMailRecipients(tx, p.userId);
  if (!first) return false;
  const insert = async (recipient: MailUser, dedupeKey: string) => {
    const message = p.build(recipient);
    const inserted = await tx
      .insert(billingMails)
      .values({
        id: randomUUID(),
        userId: p.userId,
        kind: p.kind,
        dedupeKey,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        createdAt: now,
      })
      .onConflictDoNothing({ target: billingMails.dedupeKey })
      .returning({ id: billingMails.id });
    return inserted.length > 0;
  };
  for (const recipient of others) await insert(recipient, recipientKey(p.dedupeKey, recipient.email));
  return insert(first, p.dedupeKey);
}

/**
 * The mails that speak of an organisation that goes on: the plan it is on now and the plans to
 * choose from, auto top-up to turn on again or a payment to confirm on Billing, credits to use before
 * they expire, a dispute hold that refuses its keys. Once the organisation is deleted
 * (DELETE /v1/orgs/{id}, or the account whose personal organisation it is), each would contradict
 * the deletion, whose own mail and answer say what happened (its credits are lost, its plan and auto
 * top-up are gone), and link to pages that no longer exist: such a mail is not sent. Decided here,
 * as it is about to be sent, and for every way it was queued: in the deletion's own transaction (its
 * plan's end, auto top-up turned off as the plan ended), by the provider's events after it, or by a
 * job. Not in it, so sent: the deletion's own mail (`org_deleted`, orgs/org-mails.ts), queued in the
 * same transaction, which says what ended with it.
 */
const NOT_SENT_ONCE_DELETED: ReadonlySet<string> = new Set([
  "subscription_ended",
  "plan_change_applied",
  "plan_change_scheduled",
  "cancellation_confirmed",
  "auto_top_up_off",
  "auto_top_up_paused",
  "auto_top_up_action",
  "topup_expiring",
  "dispute_hold",
]);

/** The dedupe key of an event's mail to a recipient other than the first. */
const recipientKey = (dedupeKey: string, email: string) => `${dedupeKey}|to:${email.toLowerCase()}`;

export interface BillingMailSender {
  /** Sends every unsent mail now (one batch after another); resolves with how many went out. */
  sendPending(): Promise<number>;
  /** sendPending() after the current answer, in the background. */
  sendSoon(): void;
}

export function createBillingMailSender(deps: {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  tasks: BackgroundTasks;
  logger: Logger;
}): BillingMailSender {
  const { db, mailer, logger } = deps;

  /** One mail, claimed under its row lock so two instances never send it both. */
  async function sendOne(id: string): Promise<boolean> {
    return db.transaction(async (tx) => {
      const [mail] = await tx
        .select()
        .from(billingMails)
        .where(and(eq(billingMails.id, id), isNull(billingMails.sentAt)))
        .for("update", { skipLocked: true });
      if (!mail) return false;
      if (NOT_SENT_ONCE_DELETED.has(mail.kind) && (await billingAccountDeleted(tx, mail.userId))) {
        // Not kept either: the row holds an address the deletion may have erased everywhere else.
        await tx.delete(billingMails).where(eq(billingMails.id, id));
        logger.info(
          { mailId: id, kind: mail.kind, userId: mail.userId },
          "Billing mail dropped: organisation deleted",
        );
        return false;
      }
      if (namesReservedAddress(mail.to)) {
        // A deleted account's pseudonym (queued before billing-contacts.ts left deleted accounts
        // out, decision 021): nobody reads it. Dropped, as the mailer would drop it, not "sent".
        await tx.delete(billingMails).where(eq(billingMails.id, id));
        logger.warn(
          { mailId: id, kind: mail.kind, userId: mail.userId, to: mail.to },
          "Billing mail dropped: addressed to a domain that never receives mail",
        );
        return false;
      }
      try {
        await mailer.send({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      } catch (error) {
        const attempts = mail.attempts + 1;
        await tx
          .update(billingMails)
          .set({ attempts, lastError: String(error).slice(0, 500) })
          .where(eq(billingMails.id, id));
        const level = attempts >= MAX_SEND_ATTEMPTS ? "error" : "warn";
        logger[level]({ err: error, mailId: id, kind: mail.kind, attempts }, "Billing mail not sent");
        return false;
      }
      await tx.update(billingMails).set({ sentAt: deps.clock.now() }).where(eq(billingMails.id, id));
      logger.info({ mailId: id, kind: mail.kind, userId: mail.userId }, "Billing mail sent");
      return true;
    });
  }

  async function sendPending(): Promise<number> {
    let sent = 0;
    const tried = new Set<string>();
    for (;;) {
      const due = await db
        .select({ id: billingMails.id })
        .from(billingMails)
        .where(and(isNull(billingMails.sentAt), lt(billingMails.attempts, MAX_SEND_ATTEMPTS)))
        .orderBy(asc(billingMails.createdAt))
        .limit(50);
      const fresh = due.filter((m) => !tried.has(m.id));
      if (fresh.length === 0) return sent;
      for (const { id } of fresh) {
        tried.add(id);
        if (await sendOne(id)) sent++;
      }
    }
  }

  return {
    sendPending,
    sendSoon() {
      deps.tasks.run("billing mails", async () => {
        await sendPending();
      });
    },
  };
}

/** How far ahead a top-up pack's expiry is announced. */
export const TOP_UP_EXPIRY_NOTICE_MS = 7 * 86_400_000;

/**
 * Queues the "top-up credits expiring" mail for every pack with credits left that expires within
 * 7 days and has not had it (once per grant, by its key). Returns how many were queued.
 */
export async function queueExpiringTopUpMails(db: Db, now: Date, portalUrl: string): Promise<number> {
  const soon = new Date(now.getTime() + TOP_UP_EXPIRY_NOTICE_MS);
  const due = await db
    .select({
      id: creditGrants.id,
      userId: creditGrants.userId,
      remaining: creditGrants.remaining,
      source: creditGrants.source,
      expiresAt: creditGrants.expiresAt,
    })
    .from(creditGrants)
    .where(
      and(
        eq(creditGrants.kind, "topup"),
        gt(creditGrants.remaining, 0),
        gt(creditGrants.expiresAt, now),
        lte(creditGrants.expiresAt, soon),
        sql`not exists (select 1 from ${billingMails} where ${billingMails.dedupeKey} = 'topup_expiring:' || ${creditGrants.id}::text)`,
      ),
    );
  let queued = 0;
  for (const grant of due) {
    if (!grant.expiresAt) continue;
    const expiresAt = grant.expiresAt;
    const made = await queueBillingMail(
      db,
      {
        userId: grant.userId,
        kind: "topup_expiring",
        dedupeKey: `topup_expiring:${grant.id}`,
        build: (user) =>
          topUpExpiringMail(user, {
            credits: fromMillicredits(grant.remaining),
            pack: grant.source,
            date: berlinDateOf(expiresAt),
            usageUrl: `${portalUrl}/profile`,
          }),
      },
      now,
    );
    if (made) queued++;
  }
  return queued;
}
