// The mails a change of a subscription calls for (ended, a plan change applied or scheduled, a
// cancellation confirmed), queued in the transaction that made the change: a user's command or a
// provider's event about it. They go out once that transaction has committed (billing-mails.ts).
import type { Tx } from "../db/types.ts";
import { berlinDateOf } from "../domain/berlin-time.ts";
import type { SubscriptionState } from "../domain/subscription.ts";
import {
  cancellationConfirmedMail,
  planChangeAppliedMail,
  planChangeScheduledMail,
  subscriptionEndedMail,
} from "../mail/billing-templates.ts";
import { queueBillingMail } from "./billing-mails.ts";
import type { Catalogue } from "./catalogue.ts";

/** A tier's name for a mail; an unknown product keeps its id, so the mail still says something. */
export const tierNameIn = (catalogue: Catalogue) => (productId: string) =>
  catalogue.findTier(productId)?.tier.name ?? productId;

export function subscriptionMails(deps: { catalogue: Catalogue; portalUrl: string }) {
  const tierName = tierNameIn(deps.catalogue);

  /**
   * The mails a change of the subscription calls for, from the state before to the state after:
   * ended, a plan change applied or scheduled, a cancellation confirmed. Keyed by what changed, so
   * the same change reached twice (our command, then the provider's event about it) mails once.
   */
  return async function queueSubscriptionMails(
    tx: Tx,
    userId: string,
    before: SubscriptionState,
    after: SubscriptionState,
    now: Date,
  ) {
    if (before.status === "free") return;
    const sub = before.subscriptionId;
    const queue = (kind: string, dedupeKey: string, build: Parameters<typeof queueBillingMail>[1]["build"]) =>
      queueBillingMail(tx, { userId, kind, dedupeKey, build }, now);
    const profileUrl = `${deps.portalUrl}/profile`;
    if (after.status === "free") {
      await queue("subscription_ended", `subscription_ended:${sub}`, (user) =>
        subscriptionEndedMail(user, {
          plan: tierName(before.productId),
          plansUrl: `${deps.portalUrl}/plans`,
        }),
      );
      return;
    }
    if (after.subscriptionId !== sub) return;
    if (after.productId !== before.productId) {
      await queue(
        "plan_change_applied",
        `plan_change_applied:${sub}:${after.productId}:${after.currentPeriodStart.getTime()}`,
        (user) => planChangeAppliedMail(user, { plan: tierName(after.productId), profileUrl }),
      );
    }
    if (after.scheduledProductId !== null && after.scheduledProductId !== before.scheduledProductId) {
      const to = after.scheduledProductId;
      await queue(
        "plan_change_scheduled",
        `plan_change_scheduled:${sub}:${to}:${after.currentPeriodEnd.getTime()}`,
        (user) =>
          planChangeScheduledMail(user, {
            from: tierName(after.productId),
            to: tierName(to),
            date: berlinDateOf(after.currentPeriodEnd),
            profileUrl,
          }),
      );
    }
    if (after.cancelAtPeriodEnd && !before.cancelAtPeriodEnd) {
      await queue(
        "cancellation_confirmed",
        `cancellation:${sub}:${after.currentPeriodEnd.getTime()}`,
        (user) =>
          cancellationConfirmedMail(user, {
            plan: tierName(after.productId),
            date: berlinDateOf(after.currentPeriodEnd),
            profileUrl,
          }),
      );
    }
  };
}
