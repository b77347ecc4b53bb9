// "E-mail me when my balance falls below N credits": the setting, and the mail a spend sends when it
// takes the balance across N (spends.ts decides the crossing under the user's lock, so concurrent
// charges send one mail, not one each). The mail goes out after the charge has committed, in the
// background: the generation service's answer never waits for SMTP.
import { eq } from "drizzle-orm";
import type { Logger } from "pino";
import type { BackgroundTasks } from "../background.ts";
import { users } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { fromMillicredits, type Millicredits } from "../domain/ledger.ts";
import type { Mailer } from "../mail/mailer.ts";
import { lowBalanceMail } from "../mail/templates.ts";

export interface LowBalanceAlerts {
  /** A spend took `userId`'s balance below `threshold`, leaving `balance` (milli-credits). */
  crossed(userId: string, threshold: Millicredits, balance: Millicredits): void;
}

export function createLowBalanceAlerts(deps: {
  db: Db;
  mailer: Mailer;
  tasks: BackgroundTasks;
  logger: Logger;
  portalUrl: string;
}): LowBalanceAlerts {
  return {
    crossed(userId, threshold, balance) {
      deps.tasks.run("low-balance mail", async () => {
        const [user] = await deps.db
          .select({ email: users.email, username: users.username })
          .from(users)
          .where(eq(users.id, userId));
        if (!user) return;
        await deps.mailer.send(
          lowBalanceMail({
            to: user.email,
            username: user.username,
            portalUrl: deps.portalUrl,
            threshold: fromMillicredits(threshold),
            balance: fromMillicredits(balance),
          }),
        );
        deps.logger.info({ userId }, "Low-balance alert sent");
      });
    },
  };
}

/** The user's threshold in milli-credits, or null when the alert is off. */
export async function lowBalanceThreshold(db: Db, userId: string): Promise<Millicredits | null> {
  const [row] = await db
    .select({ threshold: users.lowBalanceThreshold })
    .from(users)
    .where(eq(users.id, userId));
  return row?.threshold ?? null;
}

/** Turns the alert on at `threshold` milli-credits, or off with null. */
export async function setLowBalanceThreshold(
  db: Db,
  userId: string,
  threshold: Millicredits | null,
  now: Date,
): Promise<void> {
  await db.update(users).set({ lowBalanceThreshold: threshold, updatedAt: now }).where(eq(users.id, userId));
}
