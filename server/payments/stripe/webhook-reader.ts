// Reads a Stripe webhook request into the event billing understands: the signature is checked on
// the raw bytes before anything is parsed (signature.ts), then the event is read (event-parser.ts).
// Both providers use it: real Stripe's events and the local checkout's have one format.
import { isUtf8 } from "node:buffer";
import type { WebhookRead } from "../../billing/ports/payment-provider.ts";
import { parseStripeEvent } from "./event-parser.ts";
import { verifyWebhook } from "./signature.ts";

/** Whether any string (key or value) in a parsed JSON value contains U+0000. */
function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([key, v]) => key.includes("\u0000") || holdsNul(v));
}

/** A reader for webhooks signed with `secret` (the endpoint's signing secret). */
export function stripeWebhookReader(secret: string) {
  return async (rawBody: Uint8Array, signature: string | undefined, now: Date): Promise<WebhookRead> => {
    const check = await verifyWebhook(rawBody, signature, secret, Math.floor(now.getTime() / 1000));
    if (!check.ok && check.error !== "not_json") {
      return { ok: false, error: "signature", reason: `${check.error}: ${check.reason}` };
    }
    // The SDK reads invalid UTF-8 leniently; an event we would store with replacement characters
    // is not one Stripe sent.
    if (!check.ok || !isUtf8(rawBody)) {
      return { ok: false, error: "unparseable", reason: "a webhook with a valid signature is not JSON" };
    }
    // Stripe never sends a NUL character, and PostgreSQL text cannot hold one: an event with one
    // anywhere is not an event we can record, whatever field it is in.
    if (holdsNul(check.event)) {
      return {
        ok: false,
        error: "unparseable",
        reason: "a webhook with a valid signature holds a NUL character",
      };
    }
    const parsed = parseStripeEvent(check.event);
    if (!parsed.ok) return { ok: false, error: "unparseable", reason: parsed.error };
    return { ok: true, event: parsed.event };
  };
}
