// What our Stripe objects and events have in common, whichever side builds or reads them: the API
// version, the metadata keys the checkout-session creator sets and the event parser reads back,
// and Stripe-looking ids.
import { randomBytes } from "node:crypto";

/** The API version of the installed SDK (checked by a test). Events we build say they are this version. */
export const STRIPE_API_VERSION = "2026-10-28.endive";

/** Metadata keys we set on checkout sessions and subscriptions and read back from events. */
export const METADATA = {
  /**
   * The paying organisation: a personal one's id is its user's, so objects made before
   * organisations name their payer here too. New objects carry org_id as well.
   */
  userId: "user_id",
  orgId: "org_id",
  productId: "product_id",
  priceId: "price_id",
  kind: "kind",
  /**
   * On a card-setup page's SetupIntent: the member who opened it, the card's saver (their leaving
   * pauses auto top-up). Stripe's setup_intent.succeeded names no Checkout Session to look them up by.
   */
  openedBy: "opened_by",
  /** On an auto top-up's invoice: the attempt it charges (AUTO-TOP-UP.md). */
  autoTopUpAttemptId: "auto_top_up_attempt_id",
} as const;

export type PurchaseKind = "subscription" | "topup";

export function checkoutSessionMetadata(p: {
  userId: string;
  productId: string;
  priceId: string;
  kind: PurchaseKind;
}): Record<string, string> {
  return {
    [METADATA.userId]: p.userId,
    [METADATA.orgId]: p.userId,
    [METADATA.productId]: p.productId,
    [METADATA.priceId]: p.priceId,
    [METADATA.kind]: p.kind,
  };
}

export function subscriptionMetadata(p: { userId: string; productId: string }): Record<string, string> {
  return { [METADATA.userId]: p.userId, [METADATA.orgId]: p.userId, [METADATA.productId]: p.productId };
}

/**
 * The paying organisation a Stripe object names: metadata.org_id, or for an object made before
 * organisations its user (client_reference_id or metadata.user_id), whose personal organisation
 * has the same id. Null when it names none.
 */
export function payerOf(
  metadata: Record<string, string> | null | undefined,
  clientReferenceId: string | null = null,
): string | null {
  return metadata?.[METADATA.orgId] ?? clientReferenceId ?? metadata?.[METADATA.userId] ?? null;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A Stripe-looking id: `evt_…`, `cs_test_…`, `sub_…`, `in_…` (24 random base62 characters). */
export function newStripeId(prefix: string, random: (size: number) => Uint8Array = randomBytes): string {
  // 248 is the largest multiple of 62 below 256: rejecting bytes above it keeps every character
  // equally likely.
  let id = "";
  while (id.length < 24) {
    for (const byte of random(32)) {
      if (byte < 248 && id.length < 24) id += BASE62[byte % 62];
    }
  }
  return `${prefix}_${id}`;
}
