// Auto top-up's saved cards (AUTO-TOP-UP.md): a card saved through a setup page (setup intents, and
// setup-mode sessions, whose reading is checkout-events.ts's), a saved card's changes
// (payment_method.*), and a payment method as Stripe answers it.
import * as z from "zod";
import type { SavedCardFacts } from "../../billing/ports/events.ts";
import type { RetrievedCard } from "../../billing/ports/payment-provider.ts";
import {
  describeIssues,
  fromSeconds,
  idRef,
  metadataSchema,
  type ParseResult,
  type Reading,
  seconds,
  uuidSchema,
} from "./event-reading.ts";
import { METADATA } from "./format.ts";

/** A SetupIntent, in its own event or expanded on its setup-mode session. */
export const setupIntentSchema = z.object({
  id: z.string().min(1),
  created: seconds,
  customer: idRef.nullish(),
  payment_method: idRef.nullish(),
  metadata: metadataSchema,
});

/** A saved card (payment_method.*; PaymentMethodResource.retrieve). */
const paymentMethodSchema = z.object({
  id: z.string().min(1),
  type: z.string(),
  customer: idRef.nullish(),
  card: z
    .object({
      brand: z.string(),
      last4: z.string(),
      exp_month: z.number().int(),
      exp_year: z.number().int(),
    })
    .nullish(),
});

/**
 * setup_intent.succeeded: a card saved. Only SetupIntents our setup pages made carry
 * metadata.org_id (setup_intent_data.metadata); Stripe's own (a subscription's card, the billing
 * portal's) are ignored.
 */
export function readSetupIntentEvent(reading: Reading, object: unknown): ParseResult {
  const parsed = setupIntentSchema.safeParse(object);
  if (!parsed.success) return reading.fail(describeIssues(parsed.error));
  const intent = parsed.data;
  const orgId = intent.metadata?.[METADATA.orgId];
  if (orgId === undefined) return reading.ignored("setup intent without metadata.org_id: not auto top-up's");
  return cardSaved(reading, orgId, intent.customer ?? null, intent, null);
}

export function cardSaved(
  { ref, fail }: Reading,
  orgId: string,
  customerId: string | null,
  intent: z.infer<typeof setupIntentSchema>,
  checkoutSessionId: string | null,
): ParseResult {
  if (!uuidSchema.safeParse(orgId).success)
    return fail(`metadata.org_id is not an organisation id: ${JSON.stringify(orgId)}`);
  if (!intent.payment_method) return fail(`setup intent ${intent.id} without a payment_method`);
  // Who opened the page: a value that is no user id (not ours) names nobody, rather than failing.
  const openedBy = intent.metadata?.[METADATA.openedBy];
  return {
    ok: true,
    event: {
      ...ref,
      kind: "card_saved",
      orgId,
      customerId,
      setupIntentId: intent.id,
      setupAt: fromSeconds(intent.created),
      checkoutSessionId,
      paymentMethodId: intent.payment_method,
      openedBy: openedBy !== undefined && uuidSchema.safeParse(openedBy).success ? openedBy : null,
    },
  };
}

function cardFacts(pm: z.infer<typeof paymentMethodSchema>): SavedCardFacts | null {
  if (!pm.card) return null;
  const { brand, last4, exp_month, exp_year } = pm.card;
  return { paymentMethodId: pm.id, brand, last4, expMonth: exp_month, expYear: exp_year };
}

/**
 * payment_method.detached, .updated and .automatically_updated: a saved card removed, or its new
 * details (the bank's new expiry or number). A detached payment method names its customer no more:
 * the one it had is in `previous_attributes`.
 */
export function readPaymentMethodEvent(
  { ref, ignored, fail }: Reading,
  object: unknown,
  previous: Record<string, unknown> | null,
): ParseResult {
  const parsed = paymentMethodSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const pm = parsed.data;
  if (ref.eventType === "payment_method.detached") {
    const before = previousCustomerSchema.safeParse(previous);
    if (!before.success) return fail(`previous_attributes: ${describeIssues(before.error)}`);
    const customerId = before.data?.customer ?? pm.customer ?? null;
    return { ok: true, event: { ...ref, kind: "card_detached", customerId, paymentMethodId: pm.id } };
  }
  const card = cardFacts(pm);
  if (card === null) return ignored(`payment method of type ${pm.type}, not a card`);
  return { ok: true, event: { ...ref, kind: "card_updated", customerId: pm.customer ?? null, card } };
}

const previousCustomerSchema = z.object({ customer: idRef.nullish() }).nullish();

/**
 * A payment method retrieved from Stripe: its card and the customer it is attached to (`customer`,
 * null once detached), null when it is not a card.
 */
export function parseStripeCard(
  object: unknown,
): { ok: true; card: RetrievedCard | null } | { ok: false; error: string } {
  const parsed = paymentMethodSchema.safeParse(object);
  if (!parsed.success) return { ok: false, error: `payment method: ${describeIssues(parsed.error)}` };
  const card = cardFacts(parsed.data);
  return { ok: true, card: card && { ...card, customerId: parsed.data.customer ?? null } };
}
