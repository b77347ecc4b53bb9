// A payment that completes for an organisation deleted meanwhile (ORGANISATIONS.md: "a payment
// arriving for it is refunded automatically"): it grants nothing, a subscription is ended at once,
// and the payment is refunded in full at the provider, once however many events describe it. The
// refund's own charge.refunded then finds nothing to take back.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import {
  billingCustomers,
  creditAdjustments,
  creditGrants,
  invoices,
  localSubscriptions,
  organizations,
  subscriptions,
  webhookEvents,
} from "../../db/schema/index.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { checkoutPath, payAndSettle, refundsSent, sendWebhook, TIER } from "../../testing/billing.ts";
import { subscriptionPurchase, topUpPurchase } from "../../testing/purchase-events.ts";
import { useTestApp } from "../../testing/suite.ts";
import { teamOrg } from "../../testing/team-org.ts";
import { callAs } from "../../testing/two-factor.ts";

describe.each(TEST_DATABASES)("payments for a deleted organisation (%s)", (kind) => {
  const ctx = useTestApp(kind);

  const deleteOrg = (org: string) =>
    ctx.t.deps.db
      .update(organizations)
      .set({ deletedAt: ctx.t.clock.now() })
      .where(eq(organizations.id, org));

  async function openCheckout(path: string, body: unknown) {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await teamOrg(ctx.t, "Acme", [{ id: ann.id, role: "owner" }]);
    const res = await ctx.t.app.request(path, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${ann.accessToken}`,
        "Content-Type": "application/json",
        "X-Organization": org,
      },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    // Deleted while the buyer was on the checkout page.
    await deleteOrg(org);
    return { org, page: checkoutPath(((await res.json()) as { url: string }).url) };
  }

  /** The refunds' own charge.refunded events that the webhook recorded (a rolled-back one is not). */
  async function refundEventsRecorded() {
    const events = await ctx.t.deps.db
      .select()
      .from(webhookEvents)
      .where(eq(webhookEvents.type, "charge.refunded"));
    return events.map((e) => e.eventId);
  }

  async function nothingGranted(org: string) {
    const db = ctx.t.deps.db;
    expect(await db.select().from(creditGrants).where(eq(creditGrants.userId, org))).toEqual([]);
    expect(await db.select().from(invoices).where(eq(invoices.userId, org))).toEqual([]);
    expect(await db.select().from(creditAdjustments)).toEqual([]);
  }

  it("ends a subscription paid for it at once, refunds its payment in full, and grants nothing", async () => {
    const { org, page } = await openCheckout("/v1/create-checkout-session", {
      product: TIER("A").product,
      price: TIER("A").price,
    });
    await payAndSettle(ctx.t, page);
    const db = ctx.t.deps.db;
    await nothingGranted(org);
    const live = (await db.select().from(subscriptions).where(eq(subscriptions.userId, org))).filter(
      (s) => s.status !== "ended",
    );
    expect(live).toEqual([]);
    const atProvider = await db.select().from(localSubscriptions).where(eq(localSubscriptions.userId, org));
    expect(atProvider.map((s) => s.status)).toEqual(["canceled"]);
    // The checkout and the first invoice both describe the payment: one refund, of all of it
    // (Tier A with German VAT), answered 200 by the webhook, which found nothing to take back.
    expect(await refundsSent(ctx.t)).toEqual([{ amount: 9401, refunded: 9401, delivered: 200 }]);
    expect(await refundEventsRecorded()).toHaveLength(1);
  });

  it("refunds nothing of a payment granted before the deletion, whichever of its events comes last", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await teamOrg(ctx.t, "Acme", [{ id: ann.id, role: "owner" }]);
    const purchase = subscriptionPurchase(org, ctx.t.clock.now(), "A");
    expect((await sendWebhook(ctx.t, purchase.events.checkout())).status).toBe(200);
    const grants = () => ctx.t.deps.db.select().from(creditGrants).where(eq(creditGrants.userId, org));
    expect(await grants()).toHaveLength(1);
    // The plan was used, then the organisation deleted; the first invoice's event arrives late.
    await deleteOrg(org);
    expect((await sendWebhook(ctx.t, purchase.events.invoice())).status).toBe(200);
    await ctx.t.local.deliverer.deliverDue();
    expect(await refundsSent(ctx.t)).toEqual([]);
    expect(await grants()).toHaveLength(1);
    // The payment was kept, so its invoice is owed: one, with the period, made by the late event.
    const rows = await ctx.t.deps.db.select().from(invoices).where(eq(invoices.userId, org));
    expect(rows.map((r) => [r.kind, r.number !== null, r.description])).toEqual([
      ["subscription", true, expect.stringMatching(/^Tier A monthly subscription, \d{4}-\d\d-\d\d to /)],
    ]);
  });

  it("refunds a pack paid for an account deleted meanwhile, and grants its personal organisation nothing", async () => {
    // The account was deleted (its checkouts closed) while the provider was taking the payment.
    const dan = await verifiedUser(ctx.t, "dan");
    const purchase = topUpPurchase(dan.id, ctx.t.clock.now());
    await ctx.t.deps.db
      .insert(billingCustomers)
      .values({ userId: dan.id, customerId: purchase.session.customerId, createdAt: ctx.t.clock.now() });
    const deleted = await callAs(ctx.t, "/v1/users/me", dan.accessToken, { confirm: "dan" }, "DELETE");
    expect(deleted.status).toBe(200);
    const before = await ctx.t.deps.db.select().from(creditGrants).where(eq(creditGrants.userId, dan.id));
    expect((await sendWebhook(ctx.t, purchase.checkout())).status).toBe(200);
    await ctx.t.local.deliverer.deliverDue();
    expect(await ctx.t.deps.db.select().from(creditGrants).where(eq(creditGrants.userId, dan.id))).toEqual(
      before,
    );
    expect(await refundsSent(ctx.t)).toEqual([
      { amount: purchase.session.amountSubtotal, refunded: purchase.session.amountSubtotal, delivered: 200 },
    ]);
    // The refund's own charge.refunded finds the account deleted: recorded, nothing for an operator.
    expect(await refundEventsRecorded()).toHaveLength(1);
    expect(ctx.t.logs.filter((line) => line.includes("needs attention"))).toEqual([]);
  });

  it("records the event of a refunded top-up, and a second event of the same payment refunds nothing more", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await teamOrg(ctx.t, "Acme", [{ id: ann.id, role: "owner" }]);
    await deleteOrg(org);
    const purchase = topUpPurchase(org, ctx.t.clock.now());
    await ctx.t.deps.db
      .insert(billingCustomers)
      .values({ userId: org, customerId: purchase.session.customerId, createdAt: ctx.t.clock.now() });
    const first = purchase.checkout();
    expect((await sendWebhook(ctx.t, first)).status).toBe(200);
    // Another event describing the same payment (a redelivery under a new id).
    expect((await sendWebhook(ctx.t, purchase.checkout())).status).toBe(200);
    await ctx.t.local.deliverer.deliverDue();
    await nothingGranted(org);
    expect(await refundEventsRecorded()).toHaveLength(1);
    const recorded = (await ctx.t.deps.db.select().from(webhookEvents)).map((e) => e.eventId);
    expect(recorded).toContain(first.id);
    expect(await refundsSent(ctx.t)).toEqual([
      { amount: purchase.session.amountSubtotal, refunded: purchase.session.amountSubtotal, delivered: 200 },
    ]);
  });
});
