// The local checkout's card-change page (Stripe's Billing Portal, reduced to the card): a page
// for the user's subscription, a new test card put on it, and a past-due invoice charged to it at
// once, as Stripe retries the open invoice when a new default card is attached.
import { eq } from "drizzle-orm";
import type { Clock } from "../../clock.ts";
import {
  type LocalCardSessionRow,
  type LocalSubscriptionRow,
  localCardSessions,
  localSubscriptions,
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
    async createPortalSession(tx: DbOrTx, p: { userId: string; returnUrl: string }) {
      const now = clock.now();
      const id = newStripeId("bps");
      await tx.insert(localCardSessions).values({
        id,
        userId: p.userId,
        returnUrl: p.returnUrl,
        createdAt: now,
        expiresAt: new Date(now.getTime() + CARD_SESSION_LIFETIME_MS),
      });
      return { url: `${deps.checkoutBaseUrl}/_checkout/billing/${id}` };
    },

    async findCardPage(id: string): Promise<CardPage> {
      const [session] = await db.select().from(localCardSessions).where(eq(localCardSessions.id, id));
      if (!session) return { ok: false, reason: "not_found" };
      if (session.usedAt || session.expiresAt.getTime() <= clock.now().getTime())
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
        if (session.usedAt || session.expiresAt.getTime() <= now.getTime())
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
  };
}
