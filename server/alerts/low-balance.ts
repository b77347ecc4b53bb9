// "E-mail me when my balance falls below N credits": the setting, and the mail a spend sends when it
// takes the balance across N (spends.ts decides it under the organisation's lock with a stored
// latch, domain/alert-latches.ts, so concurrent charges send one mail, and one fall one mail). The
// mail goes out after the charge has committed, in the background: the generation service's answer
// never waits for SMTP.
import { eq } from "drizzle-orm";
import type { Logger } from "pino";
import type { BackgroundTasks } from "../background.ts";
import { billingMailRecipients } from "../billing/billing-contacts.ts";
import { endLeases } from "../billing/credit-leases.ts";
import { lockUser, userGrants } from "../billing/ledger-store.ts";
import { organizations } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { balance, fromMillicredits, type Millicredits } from "../domain/ledger.ts";
import type { Mailer } from "../mail/mailer.ts";
import { lowBalanceMail } from "../mail/templates.ts";

export interface LowBalanceAlerts {
  /** A spend took organisation `orgId`'s balance below `threshold`, leaving `balance` (milli-credits). */
  crossed(orgId: string, threshold: Millicredits, balance: Millicredits): void;
}

export function createLowBalanceAlerts(deps: {
  db: Db;
  mailer: Mailer;
  tasks: BackgroundTasks;
  logger: Logger;
  portalUrl: string;
}): LowBalanceAlerts {
  return {
    crossed(orgId, threshold, balance) {
      deps.tasks.run("low-balance mail", async () => {
        // The alert belongs to the organisation: its billing e-mail, owners and billing members
        // (a personal organisation's: its user, as before organisations).
        for (const recipient of await billingMailRecipients(deps.db, orgId)) {
          await deps.mailer.send(
            lowBalanceMail({
              to: recipient.email,
              username: recipient.username,
              portalUrl: deps.portalUrl,
              threshold: fromMillicredits(threshold),
              balance: fromMillicredits(balance),
            }),
          );
        }
        deps.logger.info({ orgId }, "Low-balance alert sent");
      });
    },
  };
}

/** The organisation's threshold in milli-credits, or null when the alert is off. */
export async function lowBalanceThreshold(db: Db, orgId: string): Promise<Millicredits | null> {
  const [row] = await db
    .select({ threshold: organizations.lowBalanceThreshold })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return row?.threshold ?? null;
}

/**
 * Turns the alert on at `threshold` milli-credits, or off with null. The organisation's credit leases
 * end first: each was sized to keep the unreserved balance above the old threshold (decision 051).
 * Then, under the organisation's lock, the latch is set to whether the balance is already below
 * the new threshold: setting an alert while below it mails nothing, and the next fall after the
 * balance is back at it does (domain/alert-latches.ts).
 */
export async function setLowBalanceThreshold(
  db: Db,
  orgId: string,
  threshold: Millicredits | null,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await endLeases(tx, { orgId }, "organization_changed");
    await lockUser(tx, orgId);
    const below = threshold !== null && balance(await userGrants(tx, orgId), now) < threshold;
    await tx
      .update(organizations)
      .set({ lowBalanceThreshold: threshold, lowBalanceAlerted: below })
      .where(eq(organizations.id, orgId));
  });
}
