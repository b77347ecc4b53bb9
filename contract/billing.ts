// Zod schemas of the billing calls (API-CONTRACT.md): the catalogue, checkout, plan changes and the
// credit ledger. The portal checks the server's answers with them; the server validates requests
// and documents them in OpenAPI from the same objects. `zod/mini`, browser-safe, like account.ts.

import * as z from "zod/mini";
import { notPrintable, printable } from "./free-text.ts";
import { inThousandths } from "./money.ts";

/**
 * Why a staff member charges a customer by hand (`POST /v1/credits/consume` with an admin token):
 * the ledger shows it and the audit log keeps it with the staff member's name.
 */
export const staffChargeReasonSchema = z
  .string({ error: "Field required" })
  .check(
    z.trim(),
    z.minLength(1, "Field required"),
    z.maxLength(200),
    printable(notPrintable("The reason"), true),
  );

export const currencySchema = z.enum(["usd", "eur"]);

export const priceSchema = z.object({
  id: z.string(),
  currency: currencySchema,
  /** Minor units (cents). */
  unit_amount: z.number(),
});

/** A subscription tier, Stripe-shaped. */
export const productSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.nullable(z.string()),
  default_price: priceSchema,
});
export type Product = z.infer<typeof productSchema>;

/** A one-time credit pack: a product plus how many credits it grants. */
export const topUpProductSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.nullable(z.string()),
  default_price: priceSchema,
  metadata: z.object({ token_amount: z.enum(["500", "1000"]) }),
});

export const productListSchema = z.object({ data: z.array(productSchema) });
export const topUpProductListSchema = z.object({ data: z.array(topUpProductSchema) });

/** A product or price id as the provider writes them: short, printable, no spaces. */
const idSchema = z.string().check(z.trim(), z.minLength(1, "Field required"), z.maxLength(255));

/** `POST /v1/create-checkout-session`: a tier and its price id. */
export const checkoutSessionRequestSchema = z.object({ product: idSchema, price: idSchema });

/** `POST /v1/create-top-up-checkout`. */
export const topUpCheckoutRequestSchema = z.object({ product_id: idSchema });

/** `POST /v1/update-subscription`: the tier to move to at the end of the current period. */
export const updateSubscriptionRequestSchema = z.object({ product_id: idSchema });

/** Answer of both checkout calls: where the browser goes next (the hosted checkout). */
export const checkoutUrlSchema = z.object({ url: z.string() });

export const grantKindSchema = z.enum(["subscription", "topup", "free"]);

/** The source of every grant staff make in the console (kind "free"): /profile lists each apart. */
export const GOODWILL_SOURCE = "Goodwill credits";

/** One grant (bucket) of credits in `GET /v1/credits/ledger`, newest first. */
export const ledgerEntrySchema = z.object({
  kind: grantKindSchema,
  /** Credits granted. */
  amount: z.number(),
  /** Credits not yet spent (a grant past its expiry still shows what it had left). */
  remaining: z.number(),
  /** ISO-8601; a renewal's credits are granted at the next midnight Europe/Berlin after payment. */
  granted_at: z.iso.datetime({ offset: true }),
  /** ISO-8601, or null for credits that never expire. */
  expires_at: z.nullable(z.iso.datetime({ offset: true })),
  /** Where the credits came from, e.g. "Tier B subscription" or "500 credit pack". */
  source: z.string(),
  /** What support told the customer about a goodwill grant; absent when they wrote nothing. */
  note: z.optional(z.string()),
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;
export const ledgerSchema = z.object({
  data: z.array(ledgerEntrySchema),
  /**
   * The server's time of the answer: which grants are live is judged by it, as the balance is, not
   * by the reader's clock (which may be wrong). Absent from servers older than this field.
   */
  as_of: z.optional(z.iso.datetime({ offset: true })),
});

/** `POST /v1/credits/consume` (admin): spend a user's credits once per idempotency key. */
export const consumeRequestSchema = z.object({
  user_id: z.string().check(z.minLength(1, "Field required"), z.maxLength(64)),
  /** Credits, positive, at most three decimals (the background remover costs 0.1). */
  amount: z.number().check(
    z.positive("Amount must be greater than 0"),
    z.refine(inThousandths, {
      error: "Amount can have at most three decimals",
    }),
    z.lte(1_000_000, "Amount is too large"),
  ),
  reason: staffChargeReasonSchema,
  idempotency_key: z
    .string()
    .check(
      z.minLength(1, "Field required"),
      z.maxLength(200),
      printable(notPrintable("The idempotency key")),
    ),
});
