// The smallest Stripe events for the parser's tests (server/payments/stripe/*-events.test.ts and
// event-parser.test.ts): an event of a type around an object, what its reference reads as, and
// the objects more than one family's tests read.
import { parseStripeEvent } from "../payments/stripe/event-parser.ts";

export const T = 1_736_499_600; // 2025-01-10T09:00:00Z
export const at = (seconds: number) => new Date(seconds * 1000);

export function event(type: string, object: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { id: "evt_1", object: "event", type, created: T, data: { object }, ...extra };
}
export const REF = (type: string) => ({ eventId: "evt_1", eventType: type, created: at(T), livemode: false });

export function parsed(raw: unknown) {
  const result = parseStripeEvent(raw);
  if (!result.ok) throw new Error(result.error);
  return result.event;
}

export const SESSION = { id: "cs_1", mode: "payment", payment_status: "paid", client_reference_id: "user_1" };
export const topUpSession = (extra: Record<string, unknown> = {}) => ({
  ...SESSION,
  metadata: { product_id: "prod_500" },
  ...extra,
});

export const INVOICE = {
  id: "in_1",
  currency: "eur",
  amount_paid: 9401,
  billing_reason: "subscription_cycle",
  parent: { subscription_details: { subscription: "sub_1", metadata: { user_id: "user_1" } } },
  lines: {
    data: [
      {
        period: { start: T, end: T + 2_678_400 },
        pricing: { price_details: { product: "prod_a", price: "price_a" } },
      },
    ],
  },
};
export const invoice = (extra: Record<string, unknown> = {}) => ({ ...INVOICE, ...extra });

// Auto top-up (AUTO-TOP-UP.md): saved cards and the one-off invoices that charge them.
export const ORG = "0b7f3a52-5d2e-4c61-9a43-8f0c2d9e1a11";
export const ATTEMPT = "6a1d9c0e-2b3f-4e57-8a19-c4d5e6f70812";
