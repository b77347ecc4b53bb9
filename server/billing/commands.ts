// A user's commands on their subscription: change the plan (from the period's end) and cancel (at
// the period's end). Each is refused by the domain or applied: the provider first, then our state,
// in one transaction under the user's lock, so a provider call that fails changes nothing here.
import type { Clock } from "../clock.ts";
import type { Db, Tx } from "../db/types.ts";
import {
  type CommandResult,
  cancel,
  cancelNow,
  type SubscriptionState,
  scheduleChange,
} from "../domain/subscription.ts";
import type { BillingMailSender } from "./billing-mails.ts";
import type { Catalogue } from "./catalogue.ts";
import { lockUser } from "./ledger-store.ts";
import { BillingRefusal } from "./refusal.ts";
import { currentState, type RunEffects } from "./subscription-changes.ts";
import type { subscriptionMails } from "./subscription-mails.ts";
import { findCustomerId, markChanged, saveState } from "./subscription-store.ts";

export interface CommandDeps {
  db: Db;
  clock: Clock;
  catalogue: Catalogue;
  runEffects: RunEffects;
  queueSubscriptionMails: ReturnType<typeof subscriptionMails>;
  mails: BillingMailSender;
  /** After a command changed the subscription at the provider (the local one then delivers its events). */
  afterProviderChange: () => void;
}

export function subscriptionCommands(deps: CommandDeps) {
  const { db, clock, catalogue } = deps;
  const tiers = (productId: string) => catalogue.findTier(productId)?.tier;

  /**
   * `alsoInTransaction` runs last in the command's transaction: the operator console writes its
   * audit entry there, so the change and its entry commit together or not at all.
   * `firstInTransaction` runs first, under the user's lock and before the provider is called: a
   * check that may still refuse the whole command (a refusal after the provider's call would
   * leave the provider changed and this side not).
   */
  async function command(
    userId: string,
    decide: (state: SubscriptionState) => CommandResult,
    alsoInTransaction?: (tx: Tx) => Promise<void>,
    firstInTransaction?: (tx: Tx) => Promise<void>,
  ): Promise<void> {
    await db.transaction(async (tx) => {
      await lockUser(tx, userId);
      await firstInTransaction?.(tx);
      const now = clock.now();
      const { stored, state } = await currentState(tx, userId, now);
      const result = decide(state);
      if (!result.ok) throw new BillingRefusal(result.error.code);
      // Provider calls go first: if one fails, the transaction rolls back and nothing changed here.
      await deps.runEffects(tx, userId, result.effects, { eventId: null, paymentReference: null });
      await saveState(tx, userId, stored, result.state, now, (await findCustomerId(tx, userId)) ?? null);
      if (result.state.status !== "free") await markChanged(tx, result.state.subscriptionId, now);
      await deps.queueSubscriptionMails(tx, userId, state, result.state, now);
      await alsoInTransaction?.(tx);
    });
    deps.afterProviderChange();
    deps.mails.sendSoon();
  }

  return {
    updateSubscription: (userId: string, productId: string) =>
      command(userId, (state) => scheduleChange(state, productId, tiers)),
    cancelSubscription: (userId: string, alsoInTransaction?: (tx: Tx) => Promise<void>) =>
      command(userId, (state) => cancel(state), alsoInTransaction),
    /** Staff only: ends the subscription now, without a refund (domain/subscription.ts cancelNow). */
    endSubscriptionNow: (
      userId: string,
      alsoInTransaction?: (tx: Tx) => Promise<void>,
      firstInTransaction?: (tx: Tx) => Promise<void>,
    ) => command(userId, (state) => cancelNow(state), alsoInTransaction, firstInTransaction),
  };
}
