// Stripe's webhook events, from real Stripe or from the local checkout (which sends the same
// format), read into the BillingEvent that billing understands (billing/ports/events.ts). Only
// the events we act on are read field by field; any other type is "ignored" with its reason.
//
// Shapes follow the API version the installed `stripe` SDK pins (STRIPE_API_VERSION). Since API
// version 2025-03-31 ("basil") an invoice names its subscription under
// `parent.subscription_details.subscription`, an invoice line its price under
// `pricing.price_details`, and a subscription's current period lives on its items; the parser also
// reads the older places (`invoice.subscription`, `line.price`, `subscription.current_period_*`)
// so a Stripe webhook endpoint left on an older version still works.
//
// Auto top-up (AUTO-TOP-UP.md) adds saved cards (setup-mode sessions, setup intents, payment
// methods) and its one-off invoices, told apart from every other invoice by
// `metadata.auto_top_up_attempt_id` before anything else is read of them.
//
// This module reads the envelope and hands each event type to its family's reader:
// checkout-events.ts, card-events.ts, invoice-events.ts (with auto-top-up-invoices.ts),
// customer-events.ts and charge-events.ts; event-reading.ts holds what they share.
import * as z from "zod";
import type { EventRef } from "../../billing/ports/events.ts";
import { readPaymentMethodEvent, readSetupIntentEvent } from "./card-events.ts";
import { readChargeRefunded, readDisputeEvent } from "./charge-events.ts";
import { readSessionEvent } from "./checkout-events.ts";
import { readSubscriptionEvent, readTaxIdEvent } from "./customer-events.ts";
import { describeIssues, fromSeconds, type ParseResult, type Reading, seconds } from "./event-reading.ts";
import { readInvoiceEvent } from "./invoice-events.ts";

/** Stripe's ids and event types are short; the API's document allows 255 characters of each. */
const ENVELOPE_TEXT_MAX = 255;

const envelopeSchema = z.object({
  id: z.string().min(1).max(ENVELOPE_TEXT_MAX),
  object: z.literal("event"),
  type: z.string().min(1).max(ENVELOPE_TEXT_MAX),
  created: seconds,
  livemode: z.boolean().optional(),
  data: z.object({
    object: z.record(z.string(), z.unknown()),
    /** What an update changed, as it was before (payment_method.detached: the customer). */
    previous_attributes: z.record(z.string(), z.unknown()).nullish(),
  }),
});

/**
 * Reduces a verified webhook event (its JSON already parsed) to a BillingEvent. Event types and
 * variants we do not act on come back as kind "ignored" (answer 200, nothing to do). `ok: false`
 * means an event we act on is missing what we need: log it as an error; whether to answer 4xx (so
 * the provider retries) or 200 is the route's call.
 */
export function parseStripeEvent(input: unknown): ParseResult {
  const env = envelopeSchema.safeParse(input);
  if (!env.success) return { ok: false, error: `not a Stripe event: ${describeIssues(env.error)}` };
  const ref: EventRef = {
    eventId: env.data.id,
    eventType: env.data.type,
    created: fromSeconds(env.data.created),
    livemode: env.data.livemode ?? false,
  };
  const object = env.data.data.object;
  const previous = env.data.data.previous_attributes ?? null;
  const reading: Reading = {
    ref,
    ignored: (reason) => ({ ok: true, event: { ...ref, kind: "ignored", reason } }),
    fail: (error) => ({ ok: false, error: `${ref.eventType} ${ref.eventId}: ${error}` }),
  };

  switch (ref.eventType) {
    // A delayed payment method (SEPA Direct Debit, where the account allows it despite our
    // card-only sessions) completes the session unpaid, then pays it days later: the second event
    // carries the same session, now paid, and is fulfilled exactly like a paid completion (the
    // same fulfilment key, so a session is granted once whichever events arrive).
    case "checkout.session.async_payment_failed":
      return reading.ignored("delayed payment of a checkout session failed: nothing was granted");
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return readSessionEvent(reading, object);
    case "setup_intent.succeeded":
      return readSetupIntentEvent(reading, object);
    case "invoice.paid":
    case "invoice.payment_failed":
    case "invoice.payment_action_required":
    case "invoice.voided":
      return readInvoiceEvent(reading, object);
    case "payment_method.detached":
    case "payment_method.updated":
    case "payment_method.automatically_updated":
      return readPaymentMethodEvent(reading, object, previous);
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      return readSubscriptionEvent(reading, object);
    case "charge.refunded":
      return readChargeRefunded(reading, object);
    case "charge.dispute.created":
    case "charge.dispute.closed":
      return readDisputeEvent(reading, object);
    case "customer.tax_id.created":
    case "customer.tax_id.updated":
      return readTaxIdEvent(reading, object);
    // payment_intent.* never grants (AUTO-TOP-UP.md): they fire for every checkout top-up and
    // renewal too, and an auto top-up is granted from its invoice alone.
    default:
      return reading.ignored(`event type ${ref.eventType} is not used`);
  }
}

/** parseStripeEvent for the raw body (after the signature check). */
export function parseStripeEventJson(rawBody: string): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return { ok: false, error: "body is not JSON" };
  }
  return parseStripeEvent(json);
}
