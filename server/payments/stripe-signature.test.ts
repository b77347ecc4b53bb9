import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { computeSignature, parseSignatureHeader, signPayload, verifySignature } from "./stripe-signature.ts";

const SECRET = "whsec_test_0123456789abcdef";
const T = 1_750_000_000;
const BODY = JSON.stringify({
  id: "evt_1",
  object: "event",
  type: "invoice.paid",
  data: { object: { amount: 7900 } },
});

// The reference value, computed independently of the module under test.
const REFERENCE = createHmac("sha256", SECRET).update(`${T}.${BODY}`).digest("hex");

describe("signPayload", () => {
  it("is t=<seconds>,v1=<hex HMAC-SHA256 of '<t>.<body>'> keyed with the secret string", () => {
    expect(signPayload(BODY, SECRET, T)).toBe(`t=${T},v1=${REFERENCE}`);
  });

  it("signs bytes and the same string alike", () => {
    expect(computeSignature(new TextEncoder().encode(BODY), SECRET, T)).toBe(REFERENCE);
  });

  it.each([[""], ["   "]])("refuses a blank secret %j", (secret) => {
    expect(() => signPayload(BODY, secret, T)).toThrow();
  });

  it.each([[-1], [1.5], [Number.NaN]])("refuses the timestamp %d", (t) => {
    expect(() => signPayload(BODY, SECRET, t)).toThrow(RangeError);
  });
});

describe("verifySignature", () => {
  const valid = signPayload(BODY, SECRET, T);
  const otherSig = computeSignature(BODY, "whsec_other", T);

  it.each([
    ["a valid header", BODY, valid, T, { ok: true, timestamp: T }],
    ["a valid header as bytes", new TextEncoder().encode(BODY), valid, T, { ok: true, timestamp: T }],
    ["299 s old", BODY, valid, T + 299, { ok: true, timestamp: T }],
    ["exactly at the tolerance (300 s old)", BODY, valid, T + 300, { ok: true, timestamp: T }],
    ["301 s old", BODY, valid, T + 301, { ok: false, error: "stale" }],
    ["a day old", BODY, valid, T + 86_400, { ok: false, error: "stale" }],
    ["300 s in the future", BODY, valid, T - 300, { ok: true, timestamp: T }],
    ["301 s in the future", BODY, valid, T - 301, { ok: false, error: "stale" }],
    ["a tampered body", BODY.replace("7900", "1"), valid, T, { ok: false, error: "bad_signature" }],
    ["a body with a trailing newline", `${BODY}\n`, valid, T, { ok: false, error: "bad_signature" }],
    ["signed with another secret", BODY, `t=${T},v1=${otherSig}`, T, { ok: false, error: "bad_signature" }],
    [
      "a valid signature moved to another timestamp",
      BODY,
      `t=${T + 1},v1=${REFERENCE}`,
      T,
      { ok: false, error: "bad_signature" },
    ],
    [
      "several v1 entries, one valid (secret roll-over)",
      BODY,
      `t=${T},v1=${otherSig},v1=${REFERENCE}`,
      T,
      { ok: true, timestamp: T },
    ],
    ["v0 entries are ignored", BODY, `t=${T},v0=${REFERENCE},v1=${REFERENCE}`, T, { ok: true, timestamp: T }],
    ["only a v0 entry", BODY, `t=${T},v0=${REFERENCE}`, T, { ok: false, error: "no_signature" }],
    [
      "unknown schemes next to v1 are ignored",
      BODY,
      `t=${T},v2=abc,v1=${REFERENCE}`,
      T,
      { ok: true, timestamp: T },
    ],
    ["spaces after commas are tolerated", BODY, `t=${T}, v1=${REFERENCE}`, T, { ok: true, timestamp: T }],
    [
      "an upper-case hex signature",
      BODY,
      `t=${T},v1=${REFERENCE.toUpperCase()}`,
      T,
      { ok: true, timestamp: T },
    ],
    [
      "a truncated signature",
      BODY,
      `t=${T},v1=${REFERENCE.slice(0, 63)}`,
      T,
      { ok: false, error: "bad_signature" },
    ],
    ["a non-hex signature", BODY, `t=${T},v1=${"z".repeat(64)}`, T, { ok: false, error: "bad_signature" }],
    ["no header", BODY, undefined, T, { ok: false, error: "no_signature" }],
    ["a null header", BODY, null, T, { ok: false, error: "no_signature" }],
    ["an empty header", BODY, "", T, { ok: false, error: "no_signature" }],
    ["garbage", BODY, "garbage", T, { ok: false, error: "no_signature" }],
    ["no timestamp", BODY, `v1=${REFERENCE}`, T, { ok: false, error: "no_signature" }],
    ["a non-numeric timestamp", BODY, `t=abc,v1=${REFERENCE}`, T, { ok: false, error: "no_signature" }],
    ["a negative timestamp", BODY, `t=-5,v1=${REFERENCE}`, T, { ok: false, error: "no_signature" }],
    ["two timestamps", BODY, `t=${T},t=${T},v1=${REFERENCE}`, T, { ok: false, error: "no_signature" }],
    ["no v1", BODY, `t=${T}`, T, { ok: false, error: "no_signature" }],
    ["an empty v1", BODY, `t=${T},v1=`, T, { ok: false, error: "no_signature" }],
  ])("%s", (_case, body, header, now, expected) => {
    expect(verifySignature(body, header, SECRET, now)).toEqual(expected);
  });

  it("takes a custom tolerance", () => {
    expect(verifySignature(BODY, valid, SECRET, T + 61, 60)).toEqual({ ok: false, error: "stale" });
    expect(verifySignature(BODY, valid, SECRET, T + 60, 60)).toEqual({ ok: true, timestamp: T });
  });

  it("refuses a blank secret and a non-positive tolerance as configuration bugs", () => {
    expect(() => verifySignature(BODY, valid, "", T)).toThrow();
    expect(() => verifySignature(BODY, valid, SECRET, T, 0)).toThrow(RangeError);
  });

  it("verifies non-ASCII bodies byte for byte", () => {
    const body = JSON.stringify({ name: "Müller 💳" });
    expect(verifySignature(new TextEncoder().encode(body), signPayload(body, SECRET, T), SECRET, T).ok).toBe(
      true,
    );
  });
});

describe("parseSignatureHeader", () => {
  it("collects the timestamp and every v1", () => {
    expect(parseSignatureHeader("t=12,v1=aa,v0=bb,v1=cc")).toEqual({
      timestamp: 12,
      signatures: ["aa", "cc"],
    });
  });
});

describe("compatibility with the official stripe SDK", () => {
  it("the SDK's constructEvent accepts what signPayload signs", () => {
    const now = Math.floor(Date.now() / 1000);
    const event = Stripe.webhooks.constructEvent(BODY, signPayload(BODY, SECRET, now), SECRET);
    expect(event.id).toBe("evt_1");
  });

  it("the SDK refuses what signPayload signs for another body", () => {
    const now = Math.floor(Date.now() / 1000);
    expect(() => Stripe.webhooks.constructEvent(`${BODY} `, signPayload(BODY, SECRET, now), SECRET)).toThrow(
      /No signatures found matching/,
    );
  });

  it("verifySignature accepts the SDK's generateTestHeaderString", () => {
    const header = Stripe.webhooks.generateTestHeaderString({ payload: BODY, secret: SECRET, timestamp: T });
    expect(header).toBe(signPayload(BODY, SECRET, T));
    expect(verifySignature(BODY, header, SECRET, T + 10)).toEqual({ ok: true, timestamp: T });
  });

  it("both refuse the same stale header", () => {
    const header = signPayload(BODY, SECRET, T);
    const receivedAtMs = (T + 301) * 1000;
    expect(() => Stripe.webhooks.constructEvent(BODY, header, SECRET, 300, undefined, receivedAtMs)).toThrow(
      /tolerance/,
    );
    expect(verifySignature(BODY, header, SECRET, T + 301)).toEqual({ ok: false, error: "stale" });
  });
});
