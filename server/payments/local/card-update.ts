// The local checkout's card-change page (Stripe's Billing Portal, reduced to the card): a page
// for the user's subscription, a new test card put on it, and a past-due invoice charged to it at
// once, as Stripe retries the open invoice when a new default card is attached. A page takes a card
// only while the member who opened it may manage the organisation's billing: losing that expires
// it (decision 045), and the page asks again when a card is given.
import { and, eq, gt, isNull } from "drizzle-orm";
import { can } from "../../../contract/org-roles.ts";
import type { Clock } from "../../clock.ts";
import {
  type LocalCardSessionRow,
  type LocalSubscriptionRow,
  localCardSessions,
  localSubscriptions,
  organizationMembers,
} from "../../db/schema/index.ts";
import type { Db, DbOrTx } from "../../db/types.ts";
import { newStripeId } from "../stripe/format.ts";
import type { billingCycle } from "./billing-cycle.ts";
import { type CardOutcome, cardOutcome } from "./cards.ts";
import type { subscriptionCommands } from "./subscriptions.ts";

/** A card-update page lives an hour, like a Stripe Billing Portal session. */
export const CARD_SESSION_LIFETIME_MS = 3_600_000;

export type CardPage =
  | { ok: true; session: LocalCardSessionRow; subscription: LocalSubscriptionRow | undefined }
  | { ok: false; reason: "not_found" | "expired" };

export type CardUpdateResult =
  | { ok: true; redirectTo: string; settled: boolean }
  | { ok: false; reason: "not_found" | "expired" }
  | {
      ok: false;
      reason: "card";
      card: Extract<CardOutcome, { ok: false }>;
      page: Extract<CardPage, { ok: true }>;
    };

/**
 * Whether the page's opener may still manage its organisation's billing (a personal organisation's
 * user is its owner). A page that names nobody takes no card: it was a team's before migration 0020,
 * or its opener's account is gone.
 */
async function openerMayPay(db: DbOrTx, session: LocalCardSessionRow): Promise<boolean> {
  if (!session.openedBy) return false;
  const [member] = await db
    .select({ role: organizationMembers.role })
    .from(organizationMembers)
    .where(
      and(eq(organizationMembers.orgId, session.userId), eq(organizationMembers.userId, session.openedBy)),
    );
  return member !== undefined && can(member.role, "billing");
}

const isOver = (session: LocalCardSessionRow, now: Date) =>
  session.usedAt !== null || session.expiresAt.getTime() <= now.getTime();

export function cardUpdates(deps: {
  db: Db;
  clock: Clock;
  /** Origin the browser reaches this server on (the hosted page's URLs are built from it). */
  checkoutBaseUrl: string;
  liveSubscriptionOf: ReturnType<typeof subscriptionCommands>["liveSubscriptionOf"];
  /** Charges a past-due invoice again (to the new card). */
  bill: ReturnType<typeof billingCycle>["bill"];
}) {
  const { db, clock, liveSubscriptionOf, bill } = deps;

  return {
    async createPortalSession(tx: DbOrTx, p: { userId: string; openedBy: string; returnUrl: string }) {
      const now = clock.now();
      const id = newStripeId("bps");
      await tx.insert(localCardSessions).values({
        id,
        userId: p.userId,
        openedBy: p.openedBy,
        returnUrl: p.returnUrl,
        createdAt: now,
        expiresAt: new Date(now.getTime() + CARD_SESSION_LIFETIME_MS),
      });
      return { url: `${deps.checkoutBaseUrl}/_checkout/billing/${id}` };
    },

    async findCardPage(id: string): Promise<CardPage> {
      const [session] = await db.select().from(localCardSessions).where(eq(localCardSessions.id, id));
      if (!session) return { ok: false, reason: "not_found" };
      if (isOver(session, clock.now()) || !(await openerMayPay(db, session)))
        return { ok: false, reason: "expired" };
      return { ok: true, session, subscription: await liveSubscriptionOf(db, session.userId) };
    },

    async updateCard(id: string, cardNumber: string): Promise<CardUpdateResult> {
      return db.transaction(async (tx): Promise<CardUpdateResult> => {
        const now = clock.now();
        const [session] = await tx
          .select()
          .from(localCardSessions)
          .where(eq(localCardSessions.id, id))
          .for("update");
        if (!session) return { ok: false, reason: "not_found" };
        // The opener's role is read again: a role lost in any way refuses the card. A change of
        // role that reaches the page after this one locked it waits: the card came before it.
        if (isOver(session, now) || !(await openerMayPay(tx, session)))
          return { ok: false, reason: "expired" };
        const live = await liveSubscriptionOf(tx, session.userId, true);
        const card = cardOutcome(cardNumber);
        if (!card.ok)
          return { ok: false, reason: "card", card, page: { ok: true, session, subscription: live } };
        await tx.update(localCardSessions).set({ usedAt: now }).where(eq(localCardSessions.id, id));
        if (!live) return { ok: true, redirectTo: session.returnUrl, settled: false };
        const [withCard] = await tx
          .update(localSubscriptions)
          .set({ renewalsDecline: card.renewalsDecline })
          .where(eq(localSubscriptions.id, live.id))
          .returning();
        // Stripe retries the open invoice when a new default card is attached: it is paid now
        // (or declined again, with the card that declines renewals), not at the next retry.
        if (withCard?.status !== "past_due")
          return { ok: true, redirectTo: session.returnUrl, settled: false };
        await bill(tx, withCard, now);
        return { ok: true, redirectTo: session.returnUrl, settled: !card.renewalsDecline };
      });
    },

    /**
     * Closes the organisation's card pages still open (only those `openedBy` opened, when given),
     * in the caller's transaction: none takes a card after it commits.
     */
    async expireOpenCardPages(tx: DbOrTx, orgId: string, openedBy?: string): Promise<void> {
      const now = clock.now();
      await tx
        .update(localCardSessions)
        .set({ expiresAt: now })
        .where(
          and(
            eq(localCardSessions.userId, orgId),
            openedBy === undefined ? undefined : eq(localCardSessions.openedBy, openedBy),
            isNull(localCardSessions.usedAt),
            gt(localCardSessions.expiresAt, now),
          ),
        );
    },
  };
}
