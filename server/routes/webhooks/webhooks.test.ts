// POST /v1/webhooks/stripe: signatures (bad, wrong secret, stale), duplicates and redeliveries,
// and every order of a purchase's events: a purchase is granted exactly once.
import { count } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { checkoutSessions, creditGrants, webhookEvents } from "../../db/schema/index.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { ledger, me, sendWebhook, TIER } from "../../testing/billing.ts";
import { subscriptionPurchase, topUpPurchase } from "../../testing/purchase-events.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_FREE_CREDITS } from "../../testing/test-app.ts";

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

const ORDERS = permutations(["checkout", "invoice", "updated"] as const);

describe.each(TEST_DATABASES)("POST /v1/webhooks/stripe (%s)", (kind) => {
  const ctx = useTestApp(kind);

  async function counts() {
    const db = ctx.t.deps.db;
    const [events] = await db.select({ n: count() }).from(webhookEvents);
    const [grants] = await db.select({ n: count() }).from(creditGrants);
    return { events: events?.n, grants: grants?.n };
  }

  it.each([
    ["no signature header", { header: "" }],
    ["a malformed header", { header: "garbage" }],
    ["a wrong signature", { header: `t=NOW,v1=${"0".repeat(64)}` }],
    ["another secret", { secret: "whsec_someone_else_entirely" }],
    ["a stale timestamp (6 minutes old)", { timestampOffset: -360 }],
    ["a timestamp from the future (6 minutes ahead)", { timestampOffset: 360 }],
  ])("refuses %s with 400 and changes nothing", async (_label, options) => {
    const user = await verifiedUser(ctx.t, "ann");
    const before = await counts();
    const { events } = subscriptionPurchase(user.id, ctx.t.clock.now());
    const now = Math.floor(ctx.t.clock.now().getTime() / 1000);
    const o = options as { header?: string; secret?: string; timestampOffset?: number };
    const res = await sendWebhook(ctx.t, events.checkout(), {
      ...(o.header !== undefined ? { header: o.header.replace("NOW", String(now)) } : {}),
      ...(o.secret ? { secret: o.secret } : {}),
      ...(o.timestampOffset ? { timestamp: now + o.timestampOffset } : {}),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: "Invalid or expired webhook signature" });
    expect(await counts()).toEqual(before);
    expect((await me(ctx.t, user.accessToken)).subscription.plan).toBe("FREE");
  });

  it("refuses a signed body that is not an event with 400, and records nothing", async () => {
    const before = await counts();
    const res = await sendWebhook(ctx.t, "{not json");
    expect(res.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it("answers a duplicate with 200 and does nothing the second time", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const event = subscriptionPurchase(user.id, ctx.t.clock.now()).events.checkout();
    for (let i = 0; i < 3; i++) {
      const res = await sendWebhook(ctx.t, event);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true });
    }
    expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS + 10000);
  });

  it.each(ORDERS.map((order) => [order.join(" → "), order]))(
    "grants a subscription purchase once when its events arrive as %s, each redelivered",
    async (_label, order) => {
      const user = await verifiedUser(ctx.t, "ann");
      const purchase = subscriptionPurchase(user.id, ctx.t.clock.now());
      for (const name of order) {
        const event = purchase.events[name]();
        expect((await sendWebhook(ctx.t, event)).status).toBe(200);
        // A redelivery of the same event, and the same fact again under a new event id.
        expect((await sendWebhook(ctx.t, event)).status).toBe(200);
        expect((await sendWebhook(ctx.t, purchase.events[name]())).status).toBe(200);
      }
      const u = await me(ctx.t, user.accessToken);
      expect(u.credit_balance).toBe(TEST_FREE_CREDITS + 10000);
      expect(u.subscription).toMatchObject({ plan: "Tier C", status: "active" });
      const grants = (await ledger(ctx.t, user.accessToken)).filter((g) => g.kind === "subscription");
      expect(grants).toHaveLength(1);
    },
  );

  it("marks our record of a checkout session complete when its payment arrives", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const purchase = subscriptionPurchase(user.id, ctx.t.clock.now());
    const now = ctx.t.clock.now();
    await ctx.t.deps.db.insert(checkoutSessions).values({
      id: purchase.ids.session,
      provider: "stripe",
      userId: user.id,
      mode: "subscription",
      productId: TIER("C").product,
      priceId: TIER("C").price,
      amount: 9900,
      currency: "eur",
      status: "open",
      url: "https://checkout.stripe.com/c/pay/x",
      successUrl: "s",
      cancelUrl: "c",
      customerId: purchase.ids.customer,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 86_400_000),
    });
    await sendWebhook(ctx.t, purchase.events.checkout());
    const [session] = await ctx.t.deps.db.select().from(checkoutSessions);
    expect(session).toMatchObject({
      status: "complete",
      subscriptionId: purchase.ids.subscription,
      invoiceId: purchase.ids.invoice,
    });
  });

  it("every grant names the payment that carried it", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const purchase = subscriptionPurchase(user.id, ctx.t.clock.now());
    await sendWebhook(ctx.t, purchase.events.invoice());
    const rows = await ctx.t.deps.db.select().from(creditGrants);
    const paid = rows.find((r) => r.kind === "subscription");
    expect(paid?.paymentReference).toBe(purchase.ids.invoice);
    expect(paid?.eventId).toMatch(/^evt_/);
    expect(paid?.fulfilmentKey).toBe(`subscription:${purchase.ids.subscription}:first`);
  });

  it("grants a top-up once per checkout session, whatever the number of events", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const purchase = topUpPurchase(user.id, ctx.t.clock.now(), "1000");
    for (let i = 0; i < 3; i++) {
      expect((await sendWebhook(ctx.t, purchase.checkout())).status).toBe(200);
    }
    expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS + 1000);
  });

  it("refuses a signed event holding a NUL character with 400 and records nothing (PostgreSQL text cannot hold one)", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const event = subscriptionPurchase(user.id, ctx.t.clock.now()).events.checkout();
    const before = await counts();
    const res = await sendWebhook(ctx.t, { ...event, id: `${event.id}\u0000` });
    expect(res.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it.each([["not-a-uuid"], ["1; drop table users"], ["00000000-0000-4000-8000-00000000000g"]])(
    "answers an event whose user id %j cannot be one of ours like an unknown user: 200, nothing recorded",
    async (userId) => {
      const before = await counts();
      const res = await sendWebhook(ctx.t, topUpPurchase(userId, ctx.t.clock.now()).checkout());
      expect(res.status).toBe(200);
      expect(await counts()).toEqual(before);
    },
  );

  it("an event for a user nobody knows is answered 200, grants nothing and is not recorded (so it can be replayed)", async () => {
    const before = await counts();
    const event = subscriptionPurchase(
      "00000000-0000-4000-8000-000000000000",
      ctx.t.clock.now(),
    ).events.checkout();
    const res = await sendWebhook(ctx.t, event);
    expect(res.status).toBe(200);
    expect(await counts()).toEqual(before);
    expect(ctx.t.logs.some((l) => l.includes("webhook for an unknown user"))).toBe(true);
  });
});
