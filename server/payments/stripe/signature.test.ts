import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { signPayload, verifyWebhook } from "./signature.ts";

const SECRET = "whsec_test_0123456789abcdef";
const T = 1_750_000_000;
const EVENT = { id: "evt_1", object: "event", type: "invoice.paid", data: { object: { amount: 7900 } } };
const BODY = JSON.stringify(EVENT);

// The reference value, computed independently of the module and the SDK (Stripe's documented scheme:
// v1 = hex HMAC-SHA256 keyed with the secret string, over "<t>.<raw body>").
const REFERENCE = createHmac("sha256", SECRET).update(`${T}.${BODY}`).digest("hex");
const otherSig = createHmac("sha256", "whsec_other").update(`${T}.${BODY}`).digest("hex");

describe("signPayload (the SDK's generateTestHeaderString)", () => {
  it("is t=<seconds>,v1=<hex HMAC-SHA256 of '<t>.<body>'> keyed with the secret string", () => {
    expect(signPayload(BODY, SECRET, T)).toBe(`t=${T},v1=${REFERENCE}`);
  });

  it.each([[""], ["   "]])("refuses a blank secret %j", (secret) => {
    expect(() => signPayload(BODY, secret, T)).toThrow(new Error("Webhook signing secret is empty"));
  });

  it.each([[-1], [0], [1.5], [Number.NaN]])("refuses the timestamp %d", (t) => {
    expect(() => signPayload(BODY, SECRET, t)).toThrow(
      new RangeError(`Timestamp must be whole unix seconds: ${t}`),
    );
  });
});

describe("verifyWebhook", () => {
  const valid = `t=${T},v1=${REFERENCE}`;
  const accepted = { ok: true, timestamp: T, event: EVENT };
  const refused = (error: string) => ({ ok: false, error, reason: expect.any(String) });

  it.each([
    ["a valid header", BODY, valid, T, accepted],
    ["a valid header as bytes", new TextEncoder().encode(BODY), valid, T, accepted],
    ["299 s old", BODY, valid, T + 299, accepted],
    ["exactly at the tolerance (300 s old)", BODY, valid, T + 300, accepted],
    ["301 s old", BODY, valid, T + 301, refused("stale")],
    ["a day old", BODY, valid, T + 86_400, refused("stale")],
    ["300 s in the future", BODY, valid, T - 300, accepted],
    ["301 s in the future", BODY, valid, T - 301, refused("stale")],
    ["a tampered body", BODY.replace("7900", "1"), valid, T, refused("invalid")],
    ["a body with a trailing newline", `${BODY}\n`, valid, T, refused("invalid")],
    ["signed with another secret", BODY, `t=${T},v1=${otherSig}`, T, refused("invalid")],
    [
      "a valid signature moved to another timestamp",
      BODY,
      `t=${T + 1},v1=${REFERENCE}`,
      T,
      refused("invalid"),
    ],
    [
      "several v1 entries, one valid (secret roll-over)",
      BODY,
      `t=${T},v1=${otherSig},v1=${REFERENCE}`,
      T,
      accepted,
    ],
    ["v0 entries are ignored", BODY, `t=${T},v0=${REFERENCE},v1=${REFERENCE}`, T, accepted],
    ["only a v0 entry", BODY, `t=${T},v0=${REFERENCE}`, T, refused("invalid")],
    ["unknown schemes next to v1 are ignored", BODY, `t=${T},v2=abc,v1=${REFERENCE}`, T, accepted],
    ["a truncated signature", BODY, `t=${T},v1=${REFERENCE.slice(0, 63)}`, T, refused("invalid")],
    ["a non-hex signature", BODY, `t=${T},v1=${"z".repeat(64)}`, T, refused("invalid")],
    ["no header", BODY, undefined, T, refused("invalid")],
    ["a null header", BODY, null, T, refused("invalid")],
    ["an empty header", BODY, "", T, refused("invalid")],
    ["garbage", BODY, "garbage", T, refused("invalid")],
    ["no timestamp", BODY, `v1=${REFERENCE}`, T, refused("invalid")],
    ["a non-numeric timestamp", BODY, `t=abc,v1=${REFERENCE}`, T, refused("invalid")],
    ["a negative timestamp", BODY, `t=-5,v1=${REFERENCE}`, T, refused("invalid")],
    [
      "a far-future timestamp before the signed one",
      BODY,
      `t=${T + 9999},t=${T},v1=${REFERENCE}`,
      T,
      accepted,
    ],
    ["no v1", BODY, `t=${T}`, T, refused("invalid")],
    ["an empty v1", BODY, `t=${T},v1=`, T, refused("invalid")],
    ["an empty body", "", valid, T, refused("invalid")],
  ])("%s", async (_case, body, header, now, expected) => {
    expect(await verifyWebhook(body, header, SECRET, now)).toEqual(expected);
  });

  it("says not_json for a signed body that is not JSON", async () => {
    const body = "not json";
    expect(await verifyWebhook(body, signPayload(body, SECRET, T), SECRET, T)).toEqual(refused("not_json"));
  });

  it("takes a custom tolerance, in both directions", async () => {
    expect(await verifyWebhook(BODY, valid, SECRET, T + 61, 60)).toEqual(refused("stale"));
    expect(await verifyWebhook(BODY, valid, SECRET, T + 60, 60)).toEqual(accepted);
    expect(await verifyWebhook(BODY, valid, SECRET, T - 61, 60)).toEqual(refused("stale"));
    expect(await verifyWebhook(BODY, valid, SECRET, T - 60, 60)).toEqual(accepted);
  });

  it("refuses a blank secret and a non-positive tolerance as configuration bugs", async () => {
    await expect(verifyWebhook(BODY, valid, "", T)).rejects.toThrow(
      new Error("Webhook signing secret is empty"),
    );
    await expect(verifyWebhook(BODY, valid, SECRET, T, 0)).rejects.toThrow(
      new RangeError("Tolerance must be positive: 0"),
    );
  });

  it.each([
    ["no header", BODY, undefined, "No stripe-signature header value was provided."],
    ["an empty header", BODY, "", "No stripe-signature header value was provided."],
    [
      "a header without a timestamp",
      BODY,
      `v1=${REFERENCE}`,
      "Unable to extract timestamp and signatures from header",
    ],
    [
      "a tampered body",
      `${BODY} `,
      valid,
      "No signatures found matching the expected signature for payload. Are you passing the raw request body you received from Stripe? ",
    ],
  ])("gives the SDK's reason, first line only, for %s", async (_case, body, header, reason) => {
    expect(await verifyWebhook(body, header, SECRET, T)).toEqual({ ok: false, error: "invalid", reason });
  });

  it("says why a header from the future is refused", async () => {
    expect(await verifyWebhook(BODY, valid, SECRET, T - 301)).toEqual({
      ok: false,
      error: "stale",
      reason: "Timestamp too far in the future",
    });
    expect(await verifyWebhook(BODY, valid, SECRET, T + 301)).toEqual({
      ok: false,
      error: "stale",
      reason: "Timestamp outside the tolerance zone",
    });
  });

  it("verifies non-ASCII bodies byte for byte", async () => {
    const body = JSON.stringify({ name: "Müller 💳" });
    const check = await verifyWebhook(
      new TextEncoder().encode(body),
      signPayload(body, SECRET, T),
      SECRET,
      T,
    );
    expect(check).toEqual({ ok: true, timestamp: T, event: { name: "Müller 💳" } });
  });

  it("accepts what the SDK's constructEvent accepts, and the SDK accepts what signPayload signs", async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = signPayload(BODY, SECRET, now);
    expect(Stripe.webhooks.constructEvent(BODY, header, SECRET).id).toBe("evt_1");
    expect((await verifyWebhook(BODY, header, SECRET, now)).ok).toBe(true);
  });
});
