// The provider's events about saved cards and auto top-up invoices (AUTO-TOP-UP.md, "Events relied
// on"), in the webhook's transaction. A card is saved from its SetupIntent's event, once per
// SetupIntent, while the provider still has it attached to the organisation's customer; the newest
// SetupIntent's card wins whatever order events arrive in. An invoice's
// event settles its attempt as the charge's own answer would: whichever comes first acts.
import { eq, inArray, lte } from "drizzle-orm";
import type { Logger } from "pino";
import { appendAudit } from "../../audit/audit-log.ts";
import { cardSetupSessions, savedCards } from "../../db/schema/index.ts";
import type { Tx } from "../../db/types.ts";
import { billingAccountDeleted } from "../deleted-billing-account.ts";
import { lockUser } from "../ledger-store.ts";
import type { AutoTopUpEvent } from "../ports/events.ts";
import type { AutoTopUpChargeAnswer, PaymentProvider } from "../ports/payment-provider.ts";
import { findCustomerId } from "../subscription-store.ts";
import type { ChargeDeps } from "./charges.ts";
import { type InvoiceToVoid, settleInTx } from "./settle.ts";
import { findAttempt } from "./store.ts";

export interface EventDeps extends ChargeDeps {
  provider: PaymentProvider;
  logger: Logger;
  /** The organisation's auto top-up must stop (its card was detached at the provider). */
  cardGone: (tx: Tx, orgId: string, now: Date) => Promise<void>;
  /** Voids a declined attempt's invoice once the webhook's transaction has committed. */
  voidLater: (invoice: InvoiceToVoid | null) => void;
  /** A newer card replaced the saved one: its consent does not cover the new card. */
  cardReplaced: (tx: Tx, orgId: string, now: Date) => Promise<void>;
}

/**
 * What an event moved: the organisation whose balance a grant moved, and the one whose
 * `monthly_limit` pause its invoice closing ended (the trigger is asked again for either).
 */
export interface EventOutcome {
  grantedFor: string | null;
  resumedFor?: string | null | undefined;
}

/** Handles one event; answers what it moved (EventOutcome). */
export async function handleAutoTopUpEvent(
  tx: Tx,
  deps: EventDeps,
  event: AutoTopUpEvent,
  now: Date,
): Promise<EventOutcome> {
  switch (event.kind) {
    case "card_saved":
      await saveCard(tx, deps, event, now);
      return { grantedFor: null };
    case "card_updated":
      await tx
        .update(savedCards)
        .set({
          brand: event.card.brand,
          last4: event.card.last4,
          expMonth: event.card.expMonth,
          expYear: event.card.expYear,
          updatedAt: now,
        })
        .where(eq(savedCards.paymentMethodId, event.card.paymentMethodId));
      return { grantedFor: null };
    case "card_detached": {
      const [card] = await tx
        .select({ orgId: savedCards.orgId })
        .from(savedCards)
        .where(eq(savedCards.paymentMethodId, event.paymentMethodId));
      if (card && (await lockUser(tx, card.orgId))) {
        await tx.delete(savedCards).where(eq(savedCards.paymentMethodId, event.paymentMethodId));
        await deps.cardGone(tx, card.orgId, now);
      }
      return { grantedFor: null };
    }
    case "auto_top_up_paid": {
      const answer: AutoTopUpChargeAnswer = {
        status: "paid",
        invoiceId: event.invoiceId,
        paymentIntentId: event.paymentIntentId,
        paidAt: event.paidAt,
        payment: event.payment,
        document: event.document,
      };
      const attempt = await findAttempt(tx, event.attemptId);
      if (!attempt) {
        deps.logger.error(
          { eventId: event.eventId, attemptId: event.attemptId },
          "Billing needs attention: an auto top-up invoice was paid for an unknown attempt",
        );
        return { grantedFor: null };
      }
      const { granted, resumedFor } = await settleInTx(tx, deps, event.attemptId, answer, event.eventId, now);
      return { grantedFor: granted ? attempt.orgId : null, resumedFor };
    }
    case "auto_top_up_failed": {
      const attempt = await findAttempt(tx, event.attemptId);
      if (!attempt) return { grantedFor: null };
      let answer: AutoTopUpChargeAnswer;
      if (event.actionRequired) {
        answer = {
          status: "requires_action",
          invoiceId: event.invoiceId,
          payUrl: event.payUrl ?? attempt.payUrl ?? "",
        };
      } else if (event.code !== null) {
        answer = { status: "declined", invoiceId: event.invoiceId, code: event.code };
      } else {
        // Stripe's invoice events carry no decline code, and a payment that needs the customer's
        // authentication sends invoice.payment_failed beside payment_action_required: the invoice's
        // own state decides (a decline with its code, or still waiting for the customer).
        answer = await deps.provider.readAutoTopUpInvoice(tx, event.invoiceId);
      }
      const settled = await settleInTx(tx, deps, event.attemptId, answer, event.eventId, now);
      deps.voidLater(settled.toVoid);
      return { grantedFor: null, resumedFor: settled.resumedFor };
    }
    case "auto_top_up_voided":
      return settleVoided(tx, deps, event, now);
  }
}

/**
 * invoice.voided of an auto top-up: settled as a read of the invoice answering void would be (the
 * sweep's, or another invoice event's), so a void that Stripe made, or that our own call made
 * without our read seeing it, frees the attempt's room under the monthly limit at once, and ends a
 * `monthly_limit` pause that room caused. Idempotent: an invoice closed before, or an attempt
 * settled before (declined, paid, cancelled), is left as it is.
 */
async function settleVoided(
  tx: Tx,
  deps: EventDeps,
  event: Extract<AutoTopUpEvent, { kind: "auto_top_up_voided" }>,
  now: Date,
): Promise<EventOutcome> {
  const found = await findAttempt(tx, event.attemptId);
  if (!found || !(await lockUser(tx, found.orgId))) {
    deps.logger.warn(
      { eventId: event.eventId, attemptId: event.attemptId, invoiceId: event.invoiceId },
      "An auto top-up invoice was voided for an unknown attempt",
    );
    return { grantedFor: null };
  }
  // Another invoice than the one the attempt names (one made again after a crash outlived the
  // idempotency key) says nothing about the attempt: the one it pays may still be paid.
  const attempt = await findAttempt(tx, event.attemptId);
  if (attempt?.providerInvoiceId != null && attempt.providerInvoiceId !== event.invoiceId) {
    deps.logger.warn(
      { eventId: event.eventId, attemptId: event.attemptId, invoiceId: event.invoiceId },
      "An auto top-up invoice other than its attempt's was voided",
    );
    return { grantedFor: null };
  }
  const answer: AutoTopUpChargeAnswer = { status: "void", invoiceId: event.invoiceId };
  const settled = await settleInTx(tx, deps, event.attemptId, answer, event.eventId, now);
  return { grantedFor: null, resumedFor: settled.resumedFor };
}

async function saveCard(
  tx: Tx,
  deps: EventDeps,
  event: Extract<AutoTopUpEvent, { kind: "card_saved" }>,
  now: Date,
) {
  if (!(await lockUser(tx, event.orgId))) {
    deps.logger.error(
      { eventId: event.eventId, orgId: event.orgId },
      "A card was saved for an unknown organisation",
    );
    return;
  }
  // Nothing saved for an organisation deleted meanwhile, with its account for a personal one.
  if (await billingAccountDeleted(tx, event.orgId)) return;
  const [session] = await tx
    .select({ id: cardSetupSessions.id, openedBy: cardSetupSessions.openedBy })
    .from(cardSetupSessions)
    .where(
      event.checkoutSessionId
        ? eq(cardSetupSessions.id, event.checkoutSessionId)
        : eq(cardSetupSessions.setupIntentId, event.setupIntentId),
    );
  if (session) {
    await tx
      .update(cardSetupSessions)
      .set({ status: "complete", setupIntentId: event.setupIntentId, completedAt: now })
      .where(eq(cardSetupSessions.id, session.id));
  }
  const [current] = await tx.select().from(savedCards).where(eq(savedCards.orgId, event.orgId));
  // The same SetupIntent (its second event), or an older one arriving late: nothing to change.
  if (current && (current.setupIntentId === event.setupIntentId || current.setupAt > event.setupAt)) return;
  if (current && current.setupAt.getTime() === event.setupAt.getTime()) {
    // Stripe's times are whole seconds: the card page opened later (milliseconds, ours) decides,
    // so a late event of the other SetupIntent of that second cannot undo the newer card.
    const opened = await openedAt(tx, [current.setupIntentId, event.setupIntentId]);
    const currentOpened = opened.get(current.setupIntentId);
    const eventOpened = opened.get(event.setupIntentId);
    if (currentOpened !== undefined && eventOpened !== undefined && currentOpened > eventOpened) return;
  }
  const card = await deps.provider.retrieveCard(tx, event.paymentMethodId);
  if (!card) {
    deps.logger.warn(
      { eventId: event.eventId, paymentMethodId: event.paymentMethodId },
      "Saved card not found at the provider",
    );
    return;
  }
  // Removed at the provider (Stripe's Billing Portal) before this event came: its
  // payment_method.detached, processed first, found no card to forget. Saved now, Billing would
  // show a card that every charge is refused on. Neither is a card of another customer saved.
  const customerId = (await findCustomerId(tx, event.orgId)) ?? event.customerId;
  if (card.customerId === null || card.customerId !== customerId) {
    deps.logger.warn(
      {
        eventId: event.eventId,
        orgId: event.orgId,
        paymentMethodId: event.paymentMethodId,
        attachedTo: card.customerId,
        customerId,
      },
      "Card not saved: no longer attached to the organisation's customer at the provider",
    );
    return;
  }
  const values = {
    provider: deps.provider.kind,
    paymentMethodId: card.paymentMethodId,
    setupIntentId: event.setupIntentId,
    setupAt: event.setupAt,
    brand: card.brand,
    last4: card.last4,
    expMonth: card.expMonth,
    expYear: card.expYear,
    savedBy: event.openedBy ?? session?.openedBy ?? null,
    savedAt: now,
    updatedAt: now,
  };
  await tx
    .insert(savedCards)
    .values({ orgId: event.orgId, ...values })
    .onConflictDoUpdate({
      target: savedCards.orgId,
      set: values,
      // Of two SetupIntents of the same second, the check above already chose (the page opened
      // later, else the later event): the same rule here, so a card is never left unsaved while
      // the pause for it is made.
      setWhere: lte(savedCards.setupAt, event.setupAt),
    });
  await appendAudit(
    tx,
    {
      actorId: event.openedBy ?? session?.openedBy ?? null,
      actorLabel: (event.openedBy ?? session?.openedBy) ? "member" : "system",
      action: "auto_top_up.card_saved",
      subjectUserId: null,
      subjectOrgId: event.orgId,
      reason: null,
      details: { brand: card.brand, last4: card.last4, replaced: current ? current.last4 : null },
      ip: null,
    },
    now,
  );
  if (current) await deps.cardReplaced(tx, event.orgId, now);
}

/** When each SetupIntent's card page was opened (ours, in milliseconds), by SetupIntent id. */
async function openedAt(tx: Tx, setupIntentIds: string[]): Promise<Map<string, number>> {
  const rows = await tx
    .select({ setupIntentId: cardSetupSessions.setupIntentId, createdAt: cardSetupSessions.createdAt })
    .from(cardSetupSessions)
    .where(inArray(cardSetupSessions.setupIntentId, setupIntentIds));
  return new Map(rows.flatMap((r) => (r.setupIntentId ? [[r.setupIntentId, r.createdAt.getTime()]] : [])));
}
