// Checkout sessions (checkout.session.*): a top-up paid, a subscription started, or (setup mode) a
// card saved for auto top-up.
import * as z from "zod";
import type { PaymentFacts } from "../../billing/ports/events.ts";
import { firstPaymentKey, topUpKey } from "../../billing/ports/fulfilment-keys.ts";
import { cardSaved, setupIntentSchema } from "./card-events.ts";
import {
  addressSchema,
  amountsRefusal,
  currencySchema,
  describeIssues,
  euVatIdOf,
  idRef,
  metadataSchema,
  type ParseResult,
  type Reading,
  taxIdsSchema,
} from "./event-reading.ts";
import { METADATA, payerOf } from "./format.ts";

const sessionSchema = z.object({
  id: z.string().min(1),
  mode: z.string(),
  payment_status: z.string(),
  client_reference_id: z.string().nullish(),
  customer: idRef.nullish(),
  metadata: metadataSchema,
  subscription: idRef.nullish(),
  invoice: idRef.nullish(),
  payment_intent: idRef.nullish(),
  /** Setup mode: the SetupIntent's id, or the SetupIntent when the session was expanded. */
  setup_intent: z.union([z.string().min(1), setupIntentSchema]).nullish(),
  amount_subtotal: z.number().int().nullish(),
  amount_total: z.number().int().nullish(),
  total_details: z.object({ amount_tax: z.number().int().nullish() }).nullish(),
  currency: currencySchema.nullish(),
  customer_details: z
    .object({
      address: addressSchema,
      email: z.string().nullish(),
      name: z.string().nullish(),
      tax_exempt: z.string().nullish(),
      tax_ids: taxIdsSchema,
    })
    .nullish(),
});

function sessionPayment(s: z.infer<typeof sessionSchema>): PaymentFacts | null {
  if (s.amount_total == null || !s.currency) return null;
  const tax = s.total_details?.amount_tax ?? 0;
  const d = s.customer_details;
  return {
    net: s.amount_subtotal ?? s.amount_total - tax,
    tax,
    total: s.amount_total,
    currency: s.currency,
    reverseCharge: d?.tax_exempt === "reverse",
    buyer: {
      name: d?.name ?? null,
      email: d?.email ?? null,
      country: d?.address?.country ?? null,
      vatId: euVatIdOf(d?.tax_ids),
    },
  };
}

/** checkout.session.completed and .async_payment_succeeded: a top-up paid, or a subscription started. */
export function readSessionEvent(reading: Reading, object: unknown): ParseResult {
  const { ref, ignored, fail } = reading;
  const parsed = sessionSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const s = parsed.data;
  if (s.mode === "setup") return readSetupSession(reading, s);
  if (s.payment_status !== "paid")
    return ignored(`checkout session not paid yet (payment_status ${s.payment_status})`);
  const userId = payerOf(s.metadata, s.client_reference_id ?? null);
  const productId = s.metadata?.[METADATA.productId] ?? null;
  if (userId === null) return fail("no client_reference_id or user_id metadata");
  if (productId === null) return fail("no product_id metadata");
  const payment = sessionPayment(s);
  const refusal = amountsRefusal(payment);
  if (refusal) return fail(refusal);
  const common = { userId, customerId: s.customer ?? null, productId, paidAt: ref.created, payment };
  if (s.mode === "payment") {
    return {
      ok: true,
      event: {
        ...ref,
        ...common,
        kind: "topup_paid",
        checkoutSessionId: s.id,
        invoiceId: s.invoice ?? null,
        paymentIntentId: s.payment_intent ?? null,
        fulfilmentKey: topUpKey(s.id),
      },
    };
  }
  if (s.mode === "subscription") {
    if (!s.subscription) return fail("subscription-mode session without a subscription");
    return {
      ok: true,
      event: {
        ...ref,
        ...common,
        kind: "subscription_started",
        subscriptionId: s.subscription,
        period: null,
        checkoutSessionId: s.id,
        invoiceId: s.invoice ?? null,
        document: null,
        fulfilmentKey: firstPaymentKey(s.subscription),
      },
    };
  }
  return ignored(`checkout session in ${s.mode} mode`);
}

/**
 * A setup-mode session completed: a card saved for auto top-up. Stripe's session names its
 * SetupIntent by id only, and neither it nor the event carries the card (pm_…): then the event is
 * ignored, because setup_intent.succeeded, which Stripe sends for the same SetupIntent, carries it
 * and saves the card. We do not ask Stripe for the SetupIntent here, so the parser stays a pure
 * reading of what was sent. A session whose SetupIntent is expanded (a sender that includes it) is
 * read like that event: either way the card is saved once per SetupIntent (card_saved).
 */
function readSetupSession(reading: Reading, s: z.infer<typeof sessionSchema>): ParseResult {
  const orgId = s.metadata?.[METADATA.orgId];
  if (orgId === undefined) return reading.ignored("setup-mode checkout session without metadata.org_id");
  const intent = s.setup_intent;
  if (!intent) return reading.fail("setup-mode session without a setup_intent");
  if (typeof intent === "string")
    return reading.ignored(
      `setup-mode session names its setup intent only: setup_intent.succeeded carries the card`,
    );
  return cardSaved(reading, orgId, s.customer ?? intent.customer ?? null, intent, s.id);
}
