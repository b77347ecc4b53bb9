import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { PRODUCT_IDS, type TierKey, type TopUpKey } from "../../contract/product-ids.ts";
import { webhookDeliveries } from "../db/schema/index.ts";
import { signPayload } from "../payments/stripe/signature.ts";
import { getJson, login, postJson } from "./api-client.ts";
import { TEST_WEBHOOK_SECRET, type TestApp } from "./test-app.ts";

export const TIER = (key: TierKey) => PRODUCT_IDS.test.tiers[key];
export const TOP_UP = (key: TopUpKey) => PRODUCT_IDS.test.topUps[key];

/** The path of a checkout URL (tests call the app in-process). */
export function checkoutPath(url: string): string {
  return new URL(url).pathname;
}

export async function openSubscriptionCheckout(t: TestApp, token: string, tier: TierKey): Promise<string> {
  const res = await postJson(
    t.app,
    "/v1/create-checkout-session",
    { product: TIER(tier).product, price: TIER(tier).price },
    { Authorization: `Bearer ${token}` },
  );
  expect(res.status).toBe(200);
  return checkoutPath(((await res.json()) as { url: string }).url);
}

/** POST /v1/create-checkout-session for `tier` as the member with `token`, for organisation `orgId`. */
export function requestOrgCheckout(t: TestApp, token: string, orgId: string, tier: TierKey = "A") {
  return postJson(
    t.app,
    "/v1/create-checkout-session",
    { product: TIER(tier).product, price: TIER(tier).price },
    { Authorization: `Bearer ${token}`, "X-Organization": orgId },
  );
}

export async function openTopUpCheckout(t: TestApp, token: string, pack: TopUpKey): Promise<string> {
  const res = await postJson(
    t.app,
    "/v1/create-top-up-checkout",
    { product_id: TOP_UP(pack).product },
    { Authorization: `Bearer ${token}` },
  );
  expect(res.status).toBe(200);
  return checkoutPath(((await res.json()) as { url: string }).url);
}

export interface TestBuyer {
  name: string;
  country: string;
  vat_id: string;
}

/** A consumer in Germany, the seller's country: 19 % VAT. */
export const GERMAN_CONSUMER: TestBuyer = { name: "Erika Mustermann", country: "DE", vat_id: "" };

const postForm = (t: TestApp, path: string, fields: Record<string, string>) =>
  t.app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });

/** Submits the hosted page's details step (its answer: 303 to the card step, or the form again). */
export const giveDetails = (t: TestApp, path: string, buyer: TestBuyer = GERMAN_CONSUMER) =>
  postForm(t, `${path}/details`, { ...buyer });

/** Submits the hosted page's two steps: the billing details, then the card. */
export async function payAt(
  t: TestApp,
  path: string,
  card = "4242 4242 4242 4242",
  buyer: TestBuyer = GERMAN_CONSUMER,
) {
  await (await giveDetails(t, path, buyer)).arrayBuffer();
  return postForm(t, path, { card_number: card });
}

/** Pays and waits until the provider's webhook events were delivered. */
export async function payAndSettle(t: TestApp, path: string, card?: string, buyer?: TestBuyer) {
  const res = await payAt(t, path, card, buyer);
  expect(res.status).toBe(303);
  await t.tasks.idle();
  return res;
}

/**
 * The path of a card page (the local Billing Portal, /_checkout/billing/{id}) the member with
 * `token` opens for organisation `orgId`, which must have a subscription.
 */
export async function openCardPage(t: TestApp, token: string, orgId: string): Promise<string> {
  const res = await postJson(
    t.app,
    "/v1/billing-portal-session",
    {},
    { Authorization: `Bearer ${token}`, "X-Organization": orgId },
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return checkoutPath(((await res.json()) as { url: string }).url);
}

/** Gives a new card on a card page: 303 back to the billing page, or the page refusing it. */
export const giveCardAt = (t: TestApp, path: string, card = "4242 4242 4242 4242") =>
  postForm(t, path, { card_number: card });

export async function subscribe(t: TestApp, token: string, tier: TierKey, card?: string) {
  await payAndSettle(t, await openSubscriptionCheckout(t, token, tier), card);
}

export async function me(t: TestApp, token: string) {
  const res = await getJson(t.app, "/v1/users/me", token);
  expect(res.status).toBe(200);
  return (await res.json()) as {
    id: string;
    credit_balance: number;
    subscription: {
      plan: string;
      product_id: string | null;
      status: string;
      expires_at: string | null;
      cancel_at_period_end: boolean;
      scheduled_plan: string | null;
    };
  };
}

export async function ledger(t: TestApp, token: string) {
  const res = await getJson(t.app, "/v1/credits/ledger", token);
  expect(res.status).toBe(200);
  return (
    (await res.json()) as {
      data: {
        kind: string;
        amount: number;
        remaining: number;
        granted_at: string;
        expires_at: string | null;
        source: string;
      }[];
    }
  ).data;
}

/** A fresh access token (after the clock moved past the old one's lifetime). */
export async function tokenFor(t: TestApp, username: string): Promise<string> {
  const res = await login(t, username);
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Moves the test clock and runs the local provider's billing job (renewals, then deliveries). */
export async function advanceDays(t: TestApp, days: number) {
  t.clock.advance(days * 86_400_000);
  await t.local.runJob();
  await t.tasks.idle();
}

/** POSTs `event` to the webhook with a signature made now (or as told). */
export function sendWebhook(
  t: TestApp,
  event: unknown,
  options: { secret?: string; timestamp?: number; header?: string } = {},
) {
  const body = typeof event === "string" ? event : JSON.stringify(event);
  const timestamp = options.timestamp ?? Math.floor(t.clock.now().getTime() / 1000);
  const header = options.header ?? signPayload(body, options.secret ?? TEST_WEBHOOK_SECRET, timestamp);
  return t.app.request("/v1/webhooks/stripe", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Stripe-Signature": header },
    body,
  });
}

/** The charge.refunded events the local provider sent: what each refunded, and the webhook's answer. */
export async function refundsSent(t: TestApp) {
  const rows = await t.deps.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.type, "charge.refunded"));
  return rows.map((r) => {
    const charge = (JSON.parse(r.payload) as { data: { object: Record<string, unknown> } }).data.object;
    return { amount: charge.amount, refunded: charge.amount_refunded, delivered: r.lastStatus };
  });
}
