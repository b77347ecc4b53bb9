// What billing needs from a payment provider. Two implementations: the local stand-in
// (server/payments/local/, the default in development) and Stripe (not wired yet). Calls that
// change a subscription are idempotent: repeating one leaves the provider as the first left it.
import type { DbOrTx } from "../db/types.ts";

export interface NewCheckout {
  userId: string;
  email: string;
  mode: "subscription" | "payment";
  productId: string;
  priceId: string;
  productName: string;
  /** Minor units. */
  amount: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
}

export interface CreatedCheckout {
  id: string;
  url: string;
}

export interface PaymentProvider {
  readonly kind: "local" | "stripe";
  /**
   * Creates a hosted checkout session with `client_reference_id`, session metadata and (in
   * subscription mode) subscription metadata naming the user, for the user's reused customer.
   */
  createCheckoutSession(db: DbOrTx, checkout: NewCheckout): Promise<CreatedCheckout>;
  setCancelAtPeriodEnd(db: DbOrTx, subscriptionId: string, cancelAtPeriodEnd: boolean): Promise<void>;
  /** From the end of the current period, bill `productId` (null: drop a scheduled change). */
  scheduleChange(db: DbOrTx, subscriptionId: string, productId: string | null): Promise<void>;
  /** Ends the subscription now (a second subscription paid by mistake is refunded). */
  cancelNow(db: DbOrTx, subscriptionId: string, refundLatestInvoice: boolean): Promise<void>;
  /**
   * A page where the customer changes their card (Stripe's Billing Portal; the local stand-in's
   * card page), coming back to `returnUrl`. A past-due invoice is paid with the new card.
   */
  createPortalSession(
    db: DbOrTx,
    p: { userId: string; customerId: string; returnUrl: string },
  ): Promise<{ url: string }>;
  /** The invoice (in_…) a payment intent paid, when the provider's events do not say (refunds, disputes). */
  invoiceOfPayment(paymentIntentId: string): Promise<string | null>;
}
