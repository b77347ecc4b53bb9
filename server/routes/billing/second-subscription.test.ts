// A second subscription while another is live. Once a subscription starts, the organisation's other
// subscription checkouts are closed. One paid all the same (the provider had completed it, or two
// paid at once) grants nothing, is cancelled at once, and its payment goes back in full, once
// however many of its events arrive; its invoice shows the refund and its credit note. Found by a
// QA walk: such a checkout could be paid, and the refund waited for an operator.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import {
  checkoutSessions,
  creditGrants,
  creditNotes,
  invoices,
  localSubscriptions,
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

  it("refunds it once whichever of its events comes first, and a redelivery refunds nothing more", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, ann.accessToken, "B");
    const before = await me(ctx.t, ann.accessToken);
    const second = subscriptionPurchase(ann.id, ctx.t.clock.now(), "A");
    for (const event of [second.events.invoice(), second.events.checkout(), second.events.invoice()]) {
      expect((await sendWebhook(ctx.t, event)).status).toBe(200);
    }
    await ctx.t.local.deliverer.deliverDue();
    await ctx.t.tasks.idle();
    expect(await refundsSent(ctx.t)).toHaveLength(1);
    const after = await me(ctx.t, ann.accessToken);
    expect(after.credit_balance).toBe(before.credit_balance);
    expect(after.subscription).toEqual(before.subscription);
  });
});
