// Stripe's webhook signature scheme, both ways: the local checkout signs the events it sends, and
// the webhook endpoint verifies whatever arrives (from the local checkout or from real Stripe).
//
// The scheme (https://docs.stripe.com/webhooks#verify-manually):
//   Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=...][,v0=...]
// The key is the endpoint secret string as is ("whsec_..." included, no base64 decoding). Several
// v1 entries appear while a secret is being rolled; any one matching is enough. v0 entries are
// test-mode signatures with another scheme and are ignored. The signature covers the raw bytes:
// verify before parsing JSON, never on a re-serialised body.
//
// Differences from the official SDK's verifyHeader, on purpose: a timestamp too far in the FUTURE
// is refused as well as one too old (the SDK only checks age), so a header signed with a wrong
// clock cannot be replayed later; and a header with more than one `t` is refused as malformed.

import { createHmac, timingSafeEqual } from "node:crypto";

export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * - no_signature: no header, or no usable `t` and `v1` in it (malformed).
 * - bad_signature: well formed, but no v1 matches this body and secret.
 * - stale: matches, but `t` is outside the tolerance window around now (replay protection).
 */
export type SignatureError = "no_signature" | "bad_signature" | "stale";

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; error: SignatureError };

type RawBody = string | Uint8Array;

function hmacHex(rawBody: RawBody, secret: string, timestampSeconds: number): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${timestampSeconds}.`, "utf8");
  if (typeof rawBody === "string") hmac.update(rawBody, "utf8");
  else hmac.update(rawBody);
  return hmac.digest("hex");
}

function assertSecret(secret: string): void {
  // A blank secret would make every signature forgeable: that is a configuration bug, not a 400.
  if (secret.trim() === "") throw new Error("Webhook signing secret is empty");
}

/** The v1 signature (hex) of `rawBody` at `timestampSeconds`. */
export function computeSignature(rawBody: RawBody, secret: string, timestampSeconds: number): string {
  assertSecret(secret);
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`Timestamp must be whole unix seconds: ${timestampSeconds}`);
  }
  return hmacHex(rawBody, secret, timestampSeconds);
}

/** The `Stripe-Signature` header value for `rawBody`, as Stripe sends it. */
export function signPayload(rawBody: RawBody, secret: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${computeSignature(rawBody, secret, timestampSeconds)}`;
}

/** The header's timestamp and v1 signatures, or null when it has no single valid `t` or no v1. */
export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | null = null;
  let timestamps = 0;
  const signatures: string[] = [];
  for (const item of header.split(",")) {
    const eq = item.indexOf("=");
    if (eq <= 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === "t") {
      timestamps++;
      timestamp = /^\d{1,15}$/.test(value) ? Number(value) : null;
    } else if (key === "v1" && value !== "") {
      signatures.push(value);
    }
  }
  if (timestamps !== 1 || timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

/**
 * Verifies a webhook request. `nowSeconds` comes from the injected clock. Compares in constant
 * time (timingSafeEqual on equal-length buffers), and checks every v1 entry so the time taken
 * does not reveal which one matched.
 */
export function verifySignature(
  rawBody: RawBody,
  header: string | null | undefined,
  secret: string,
  nowSeconds: number,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
): SignatureCheck {
  assertSecret(secret);
  if (!(toleranceSeconds > 0)) throw new RangeError(`Tolerance must be positive: ${toleranceSeconds}`);
  if (!header) return { ok: false, error: "no_signature" };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, error: "no_signature" };

  const expected = Buffer.from(hmacHex(rawBody, secret, parsed.timestamp), "hex");
  let matched = false;
  for (const candidate of parsed.signatures) {
    const given = /^[0-9a-f]+$/i.test(candidate) ? Buffer.from(candidate, "hex") : Buffer.alloc(0);
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) return { ok: false, error: "bad_signature" };
  if (Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) return { ok: false, error: "stale" };
  return { ok: true, timestamp: parsed.timestamp };
}
