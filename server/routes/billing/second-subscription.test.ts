// A second subscription while another is live. Once a subscription starts, the organisation's other
// subscription checkouts are closed. One paid all the same (the provider had completed it, or two
// paid at once) grants nothing, is cancelled at once, and its payment goes back in full, once
// however many of its events arrive; its invoice shows the refund and its credit note. Found by a
// QA walk: such a checkout could be paid, and the refund waited for an operator.
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import {
  checkoutSessions,
  creditGrants,
  creditNotes,
  invoices,
  localSubscriptions,
  subscriptions,
} from "../../db/schema/index.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import {
  me,
  openSubscriptionCheckout,
  payAndSettle,
  payAt,
  refundsSent,
  sendWebhook,
  subscribe,
} from "../../testing/billing.ts";
import { subscriptionPurchase } from "../../testing/purchase-events.ts";
import { useTestApp } from "../../testing/suite.ts";

describe.each(TEST_DATABASES)("a second subscription (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("is not possible through a checkout opened before the first: that checkout is closed", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const stale = await openSubscriptionCheckout(ctx.t, ann.accessToken, "A");
    const another = await openSubscriptionCheckout(ctx.t, ann.accessToken, "C");
    await subscribe(ctx.t, ann.accessToken, "B");
    const subscribed = await me(ctx.t, ann.accessToken);
    for (const page of [stale, another]) {
      const shown = await ctx.t.app.request(page);
      expect(shown.status).toBe(410);
      expect(await shown.text()).toContain("This checkout session has expired");
      expect((await payAt(ctx.t, page)).status).toBe(410);
    }
    await ctx.t.tasks.idle();
    expect(await me(ctx.t, ann.accessToken)).toEqual(subscribed);
    expect(await refundsSent(ctx.t)).toEqual([]);
    const sessions = await ctx.t.deps.db
      .select({ status: checkoutSessions.status })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.userId, ann.id));
    expect(sessions.map((r) => r.status).sort()).toEqual(["complete", "expired", "expired"]);
  });

  it("starts the paid plan even when the other checkouts cannot be closed (the provider unreachable)", async () => {
    const provider = ctx.t.deps.payments.provider;
    const expire = vi
      .spyOn(provider, "expireSubscriptionCheckouts")
      .mockRejectedValue(new Error("Stripe unreachable"));
    try {
      const ann = await verifiedUser(ctx.t, "ann");
      const stale = await openSubscriptionCheckout(ctx.t, ann.accessToken, "A");
      await subscribe(ctx.t, ann.accessToken, "B");
      expect(expire).toHaveBeenCalled();
      expect((await me(ctx.t, ann.accessToken)).subscription.plan).toBe("Tier B");
      expect(ctx.t.logs.some((l) => l.includes("Other subscription checkouts could not be closed"))).toBe(
        true,
      );
      // Left open, it can still be paid: that payment goes back (below).
      expect((await ctx.t.app.request(stale)).status).toBe(200);
    } finally {
      expire.mockRestore();
    }
  });

  it("paid all the same (the provider had completed it), is cancelled and refunded in full", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const stale = await openSubscriptionCheckout(ctx.t, ann.accessToken, "A");
    await subscribe(ctx.t, ann.accessToken, "B");
    const subscribed = await me(ctx.t, ann.accessToken);
    expect(subscribed.subscription.plan).toBe("Tier B");
    // As when Stripe had completed it before it could be expired: paid after the first.
    const db = ctx.t.deps.db;
    await db
      .update(checkoutSessions)
      .set({ status: "open" })
      .where(eq(checkoutSessions.id, stale.split("/").at(-1) ?? ""));

    await payAndSettle(ctx.t, stale);
    // Nothing granted for it, and the plan is the first one's.
    const after = await me(ctx.t, ann.accessToken);
    expect(after.credit_balance).toBe(subscribed.credit_balance);
    expect(after.subscription).toEqual(subscribed.subscription);
    expect(await db.select().from(creditGrants).where(eq(creditGrants.userId, ann.id))).toHaveLength(2);
    const atProvider = await db
      .select()
      .from(localSubscriptions)
      .where(eq(localSubscriptions.userId, ann.id));
    expect(atProvider.map((s) => s.status).sort()).toEqual(["active", "canceled"]);
    // Its checkout and its first invoice both describe the payment: one refund, of all of it (Tier A
    // with German VAT), which the webhook applied to the invoice with a credit note.
    expect(await refundsSent(ctx.t)).toEqual([{ amount: 9401, refunded: 9401, delivered: 200 }]);
    const rows = await db.select().from(invoices).where(eq(invoices.userId, ann.id));
    const second = rows.find((r) => r.total === 9401);
    expect(second).toMatchObject({ status: "refunded", refunded: 9401 });
    const notes = await db.select().from(creditNotes).where(eq(creditNotes.userId, ann.id));
    expect(notes.map((n) => n.invoiceId)).toEqual([second?.id]);
    expect(ctx.t.logs.some((l) => l.includes("its payment refunded in full"))).toBe(true);
  });

  it("is refunded from its invoice's event only, once, and the refund finds that invoice", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, ann.accessToken, "B");
    const before = await me(ctx.t, ann.accessToken);
    const second = subscriptionPurchase(ann.id, ctx.t.clock.now(), "A");
    // The checkout's event first (Stripe keeps no order): cancelled, but not refunded before the
    // invoice row the refund is applied to exists.
    expect((await sendWebhook(ctx.t, second.events.checkout())).status).toBe(200);
    expect(await refundsSent(ctx.t)).toEqual([]);
    for (const event of [second.events.invoice(), second.events.invoice()]) {
      expect((await sendWebhook(ctx.t, event)).status).toBe(200);
    }
    await ctx.t.local.deliverer.deliverDue();
    await ctx.t.tasks.idle();
    const [refund, ...more] = await refundsSent(ctx.t);
    expect(more).toEqual([]);
    expect(refund).toMatchObject({ delivered: 200 });
    expect(refund?.refunded).toBe(refund?.amount);
    const rows = await ctx.t.deps.db.select().from(invoices).where(eq(invoices.userId, ann.id));
    expect(rows.find((r) => r.providerInvoiceId === second.ids.invoice)).toMatchObject({
      status: "refunded",
    });
    const after = await me(ctx.t, ann.accessToken);
    expect(after.credit_balance).toBe(before.credit_balance);
    expect(after.subscription).toEqual(before.subscription);
  });

  it("never refunds a payment that was granted, when a late event of its ended subscription comes", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const first = subscriptionPurchase(ann.id, ctx.t.clock.now(), "A");
    expect((await sendWebhook(ctx.t, first.events.invoice())).status).toBe(200);
    // Ended (by staff, or at Stripe), and another bought since.
    await ctx.t.deps.db
      .update(subscriptions)
      .set({ status: "ended" })
      .where(eq(subscriptions.userId, ann.id));
    await subscribe(ctx.t, ann.accessToken, "B");
    const before = await me(ctx.t, ann.accessToken);
    expect(before.subscription.plan).toBe("Tier B");
    // The first subscription's events, retried late or sent again from the dashboard.
    for (const event of [first.events.checkout(), first.events.invoice()]) {
      expect((await sendWebhook(ctx.t, event)).status).toBe(200);
    }
    await ctx.t.local.deliverer.deliverDue();
    await ctx.t.tasks.idle();
    expect(await refundsSent(ctx.t)).toEqual([]);
    expect(ctx.t.logs.some((l) => l.includes("whose payment was granted: not refunded"))).toBe(true);
    expect(await me(ctx.t, ann.accessToken)).toEqual(before);
  });
});
