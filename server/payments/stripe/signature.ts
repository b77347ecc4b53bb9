// Stripe's webhook signatures, both ways, through the stripe SDK: the local checkout signs the
// events it sends with the SDK's own helper, and the webhook endpoint verifies whatever arrives
// (from the local checkout or from real Stripe) with `Stripe.webhooks.constructEventAsync`.
//
// One check sits on top of the SDK's: it refuses a timestamp too old, and we also refuse one too
// far in the FUTURE, so a header signed with a wrong clock cannot be replayed later.
import Stripe from "stripe";

export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * - invalid: no header, a malformed one, or no v1 signature matching this body and secret.
 * - stale: the signature matches, but `t` is outside the tolerance window around now.
 * - not_json: signed, but the body is not JSON (a bug at the sender; logged as an error).
 */
export type SignatureError = "invalid" | "stale" | "not_json";

export type VerifiedWebhook =
  | { ok: true; timestamp: number; event: unknown }
  | { ok: false; error: SignatureError; reason: string };

function assertSecret(secret: string): void {
  // A blank secret would make every signature forgeable: that is a configuration bug, not a 400.
  if (secret.trim() === "") throw new Error("Webhook signing secret is empty");
}

/** The `Stripe-Signature` header value for `rawBody` at `timestampSeconds`, as Stripe sends it. */
export function signPayload(rawBody: string, secret: string, timestampSeconds: number): string {
  assertSecret(secret);
  // The SDK reads a timestamp of 0 as "now": only a positive whole second is a timestamp.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds <= 0) {
    throw new RangeError(`Timestamp must be whole unix seconds: ${timestampSeconds}`);
  }
  return Stripe.webhooks.generateTestHeaderString({ payload: rawBody, secret, timestamp: timestampSeconds });
}

/**
 * The signed timestamp of a header the SDK has verified: its last `t`, the one the SDK checked the
 * signature with (so there is one).
 */
function signedTimestamp(header: string): number {
  let timestamp = Number.NaN;
  for (const item of header.split(",")) {
    const [key, value] = item.split("=");
    if (key === "t") timestamp = Number.parseInt(String(value), 10);
  }
  return timestamp;
}

/**
 * Verifies a webhook request and returns its event (parsed JSON, not yet checked for shape).
 * `nowSeconds` comes from the injected clock.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  nowSeconds: number,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
): Promise<VerifiedWebhook> {
  assertSecret(secret);
  if (!(toleranceSeconds > 0)) throw new RangeError(`Tolerance must be positive: ${toleranceSeconds}`);
  const signature = header ?? "";
  let event: unknown;
  try {
    event = await Stripe.webhooks.constructEventAsync(
      rawBody,
      signature,
      secret,
      toleranceSeconds,
      undefined,
      nowSeconds * 1000,
    );
  } catch (error) {
    // The SDK's message, without the advice it adds on further lines.
    const reason = String(error instanceof Error ? error.message : error).replace(/\n[\s\S]*/, "");
    // JSON is parsed only once the signature has matched.
    if (error instanceof SyntaxError) return { ok: false, error: "not_json", reason };
    // Anything else comes from the request's header or body (the secret was checked above): most are
    // StripeSignatureVerificationError, but an empty `v1=` makes the SDK throw a plain Error.
    const stale =
      error instanceof Stripe.errors.StripeSignatureVerificationError && /tolerance/i.test(reason);
    return { ok: false, error: stale ? "stale" : "invalid", reason };
  }
  const timestamp = signedTimestamp(signature);
  if (timestamp - nowSeconds > toleranceSeconds) {
    return { ok: false, error: "stale", reason: "Timestamp too far in the future" };
  }
  return { ok: true, timestamp, event };
}
