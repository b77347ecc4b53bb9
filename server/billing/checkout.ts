// Starting a payment: a hosted checkout for a plan or a top-up pack (refused when the user's plan
// does not allow it), and the provider's page where a subscriber changes their card.
import { and, count, eq, gt } from "drizzle-orm";
import { can } from "../../contract/org-roles.ts";
import type { Clock } from "../clock.ts";
import { checkoutSessions, organizationMembers } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import type { BillingErrorCode } from "../domain/billing-errors.ts";
import { checkoutAllowed, topUpAllowed } from "../domain/subscription.ts";
import { billingEmailOf } from "./billing-contacts.ts";
import type { Catalogue } from "./catalogue.ts";
import { lockUser } from "./ledger-store.ts";
import type { PaymentProvider } from "./ports/payment-provider.ts";
import { BillingRefusal } from "./refusal.ts";
import { currentState } from "./subscription-changes.ts";
import { findCustomerId, loadState } from "./subscription-store.ts";

export interface CheckoutDeps {
  db: Db;
  clock: Clock;
  catalogue: Catalogue;
  provider: PaymentProvider;
  portalUrl: string;
}

/** The paying organisation (a personal one has its user's id). */
type Payer = { id: string; personal: boolean };

/** Checkouts one member may have open for one team organisation at a time (sessions live 24 hours). */
export const MAX_OPEN_CHECKOUTS_PER_MEMBER = 10;
/** The member who clicked: the session records them, and their removal expires it. */
type Opener = { id: string };

/** A team organisation's second subscription is refused in the organisation's words. */
const refusalFor = (code: BillingErrorCode, payer: Payer): BillingErrorCode =>
  code === "already_subscribed" && !payer.personal ? "org_already_subscribed" : code;

/**
 * The member's role read again under the organisation's lock: the request's middleware read it
 * before the lock, and a removal (or a role change) that held the lock meanwhile has expired every
 * session the member had opened. A session opened after it would outlive it.
 */
async function stillMayPay(tx: Tx, payer: Payer, opener: Opener): Promise<void> {
  if (payer.personal) return;
  const [member] = await tx
    .select({ role: organizationMembers.role })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.orgId, payer.id), eq(organizationMembers.userId, opener.id)));
  if (!member) throw new BillingRefusal("org_not_found");
  if (!can(member.role, "billing")) throw new BillingRefusal("org_role_not_allowed");
}

/** The member's checkouts of the organisation that can still be paid. */
async function openCheckoutsOf(tx: Tx, orgId: string, openedBy: string, now: Date): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.userId, orgId),
        eq(checkoutSessions.openedBy, openedBy),
        eq(checkoutSessions.status, "open"),
        gt(checkoutSessions.expiresAt, now),
      ),
    );
  return row?.n ?? 0;
}

export function checkouts(deps: CheckoutDeps) {
  const { db, clock, catalogue, provider } = deps;

  async function checkout(
    payer: Payer,
    opener: Opener,
    mode: "subscription" | "payment",
    offer: { productId: string; priceId: string; name: string; amount: number; currency: string },
  ) {
    return db.transaction(async (tx) => {
      await lockUser(tx, payer.id);
      await stillMayPay(tx, payer, opener);
      // A team's member is removed with one provider call per session they opened: keep it few.
      if (
        !payer.personal &&
        (await openCheckoutsOf(tx, payer.id, opener.id, clock.now())) >= MAX_OPEN_CHECKOUTS_PER_MEMBER
      ) {
        throw new BillingRefusal("too_many_open_checkouts");
      }
      const { state } = await currentState(tx, payer.id, clock.now());
      const allowed = mode === "subscription" ? checkoutAllowed(state) : topUpAllowed(state);
      if (!allowed.ok) throw new BillingRefusal(refusalFor(allowed.error.code, payer));
      const created = await provider.createCheckoutSession(tx, {
        userId: payer.id,
        openedBy: opener.id,
        // The organisation's billing e-mail, never the address of the member who clicked.
        email: (await billingEmailOf(tx, payer.id)) ?? "",
        mode,
        productId: offer.productId,
        priceId: offer.priceId,
        productName: offer.name,
        amount: offer.amount,
        currency: offer.currency,
        successUrl: `${deps.portalUrl}/payment/success`,
        cancelUrl: `${deps.portalUrl}/payment/failed`,
      });
      return { url: created.url };
    });
  }

  return {
    createSubscriptionCheckout(payer: Payer, opener: Opener, productId: string, priceId: string) {
      const found = catalogue.findSubscriptionPrice(productId, priceId);
      if (!found.ok) throw new BillingRefusal(found.error);
      const { tier } = found.offer;
      return checkout(payer, opener, "subscription", {
        productId,
        priceId,
        name: tier.name,
        amount: tier.unitAmount,
        currency: tier.currency,
      });
    },

    createTopUpCheckout(payer: Payer, opener: Opener, productId: string) {
      const offer = catalogue.findTopUp(productId);
      if (!offer) throw new BillingRefusal("product_not_found");
      return checkout(payer, opener, "payment", {
        productId,
        priceId: offer.priceId,
        name: offer.topUp.name,
        amount: offer.topUp.unitAmount,
        currency: offer.topUp.currency,
      });
    },

    /** The provider's page to change the card of the user's subscription (refused without one). */
    async portalSession(payer: Payer, opener: Opener): Promise<{ url: string }> {
      const userId = payer.id;
      return db.transaction(async (tx) => {
        await lockUser(tx, userId);
        await stillMayPay(tx, payer, opener);
        const state = await loadState(tx, userId);
        const customerId = await findCustomerId(tx, userId);
        if (state.status === "free" || !customerId) throw new BillingRefusal("no_payment_method");
        return provider.createPortalSession(tx, {
          userId,
          openedBy: opener.id,
          customerId,
          returnUrl: `${deps.portalUrl}/profile/billing`,
        });
      });
    },
  };
}
