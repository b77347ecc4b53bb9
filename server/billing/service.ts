// The billing service: runs the domain's decisions (server/domain/subscription.ts,
// server/billing/fulfilment.ts) against the database and the payment provider. Every change to a
// user's credits or subscription runs in one transaction holding the user's row lock, so webhook
// events, user commands and spends for one user take turns.
//
// It is put together here from one module per purpose, so a reader finds a rule without scrolling
// through the others:
// - checkout.ts: hosted checkouts and the card-change page;
// - commands.ts: a user's plan change and cancellation;
// - webhooks.ts: the provider's events, fulfilled (fulfilment.ts) and recorded
//   (payment-history.ts, reversals.ts);
// - reads.ts: the ledger, the billing history, invoices and billing details;
// - billing-details.ts: saving the billing details an organisation gives;
// - spends.ts: spending credits.
// The provider is reached only through billing's ports (ports/), which server/payments/ implements.

import type { Logger } from "pino";
import type { AccountHooks } from "../accounts/hooks.ts";
import type { Clock } from "../clock.ts";
import type { Db, Tx } from "../db/types.ts";
import { berlinDateOf, inBerlin } from "../domain/berlin-time.ts";
import type { Seller } from "../domain/vat.ts";
import { goodwillGrantMail } from "../mail/billing-templates.ts";
import type { GrantAnnouncer } from "../operations/credit-changes.ts";
import type { AutoTopUpEngine } from "./auto-top-up/engine.ts";
import { teamName } from "./billing-contacts.ts";
import { billingDetailsCommands } from "./billing-details.ts";
import { type BillingMailSender, queueBillingMail } from "./billing-mails.ts";
import type { Catalogue } from "./catalogue.ts";
import { checkouts } from "./checkout.ts";
import { subscriptionCommands } from "./commands.ts";
import { claimFreeGrantMailbox } from "./free-grant-mailboxes.ts";
import { initialFreeGrant } from "./fulfilment.ts";
import { insertGrant } from "./ledger-store.ts";
import { paymentHistory } from "./payment-history.ts";
import type { PaymentProvider } from "./ports/payment-provider.ts";
import { billingReads } from "./reads.ts";
import { effectRunner } from "./subscription-changes.ts";
import { subscriptionMails } from "./subscription-mails.ts";
import { webhookHandler } from "./webhooks.ts";

export interface BillingDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  catalogue: Catalogue;
  provider: PaymentProvider;
  freeInitialCredits: number;
  portalUrl: string;
  /** The business on every invoice; its country decides VAT. */
  seller: Seller;
  /** Sends the billing mails queued by a transaction once it has committed. */
  mails: BillingMailSender;
  /** After a command changed the subscription at the provider (the local one then delivers its events). */
  afterProviderChange: () => void;
  /** Auto top-up: its provider events, and turning it off when the plan ends. */
  autoTopUp: AutoTopUpEngine;
}

export type Billing = ReturnType<typeof createBilling>;

export function createBilling(deps: BillingDeps) {
  const runEffects = effectRunner(deps);
  const mailsOfChange = subscriptionMails(deps);
  /**
   * What a subscription's change calls for besides itself, by a command or an event alike: its
   * mails, and, when the paid plan ended, auto top-up off (it is for paid plans only).
   */
  const queueSubscriptionMails: typeof mailsOfChange = async (tx, userId, before, after, now) => {
    await mailsOfChange(tx, userId, before, after, now);
    if (before.status !== "free" && after.status === "free") {
      await deps.autoTopUp.turnOff(tx, userId, "plan_ended", null, now);
    }
  };
  const { createSubscriptionCheckout, createTopUpCheckout, portalSession } = checkouts(deps);
  const { updateSubscription, cancelSubscription, endSubscriptionNow } = subscriptionCommands({
    ...deps,
    runEffects,
    queueSubscriptionMails,
  });
  const { ledger, invoices, invoice, invoicePdf, details } = billingReads(deps.db);
  const { saveDetails } = billingDetailsCommands(deps);

  return {
    hooks: {
      async onEmailVerified(tx, { userId, email, at }) {
        const grant = initialFreeGrant(userId, deps.freeInitialCredits, at);
        if (grant && (await claimFreeGrantMailbox(tx, email, at))) {
          await insertGrant(tx, userId, grant, { paymentReference: null, eventId: null });
        }
      },
    } satisfies AccountHooks,
    createSubscriptionCheckout,
    createTopUpCheckout,
    portalSession,
    updateSubscription,
    cancelSubscription,
    endSubscriptionNow,
    /**
     * Closes the organisation's open checkouts, card-setup pages and card pages in `tx` (an account
     * or organisation being deleted: auto top-up is turned off too), or only those `openedBy` opened
     * (a member being removed, or leaving: auto top-up pauses if they saved its card): none can be
     * paid or take a card after.
     */
    closeOpenCheckouts: async (tx: Tx, orgId: string, openedBy?: string) => {
      await deps.provider.expireOpenCheckouts(tx, orgId, openedBy);
      const now = deps.clock.now();
      // The member who saved the card leaves: paused (ORGANISATIONS.md). The organisation or the
      // account goes: nothing may be charged any more.
      if (openedBy) await deps.autoTopUp.memberLeft(tx, orgId, openedBy, now);
      else {
        await deps.autoTopUp.turnOff(tx, orgId, "organisation_disabled", null, now);
        await deps.autoTopUp.forgetCard(tx, orgId);
      }
    },
    /**
     * Closes the checkouts, card-setup pages and card pages `openedBy` opened for the organisation,
     * in `tx`: a member whose new role has no billing can no longer pay, save a card or replace the
     * subscription's card through one opened before. A card they saved stays, managed by the owners
     * and billing members: only a member who leaves pauses auto top-up.
     */
    closeMemberCheckouts: (tx: Tx, orgId: string, openedBy: string) =>
      deps.provider.expireOpenCheckouts(tx, orgId, openedBy),
    ledger,
    invoices,
    invoice,
    invoicePdf,
    details,
    saveDetails,
    /** Queues the mail about a goodwill grant in the grant's transaction, once per grant. */
    announceGoodwill: (async (tx, grant, now) => {
      const expires = grant.expiresAt
        ? `${berlinDateOf(grant.expiresAt)} ${inBerlin(grant.expiresAt).toPlainTime().toString({ smallestUnit: "minute" })}`
        : null;
      // A team's owners and billing members read which of their organisations got them.
      const team = await teamName(tx, grant.customerId);
      await queueBillingMail(
        tx,
        {
          userId: grant.customerId,
          kind: "goodwill_grant",
          dedupeKey: `goodwill_grant:${grant.grantId}`,
          build: (user) =>
            goodwillGrantMail(user, {
              credits: grant.credits,
              note: grant.note,
              expires,
              profileUrl: `${deps.portalUrl}/profile`,
              team,
            }),
        },
        now,
      );
    }) satisfies GrantAnnouncer,
    /** Sends what transactions queued (billing_mails), after the current answer. */
    sendMailsSoon: () => deps.mails.sendSoon(),
    handleWebhook: webhookHandler({
      ...deps,
      runEffects,
      queueSubscriptionMails,
      recordHistory: paymentHistory(deps),
    }),
  };
}
