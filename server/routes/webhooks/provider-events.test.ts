// What real Stripe sends besides a plain card payment: a delayed payment method (the session
// completes unpaid, the money arrives in a later event), and changes made outside the portal (the
// Stripe Dashboard or the Billing Portal cancels, resumes or switches the plan).
import { describe, expect, it } from "vitest";
import type { InvoiceSummary } from "../../../contract/invoices.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import { ledger, me, sendWebhook, TIER } from "../../testing/billing.ts";
import { subscriptionPurchase, topUpPurchase } from "../../testing/purchase-events.ts";
import { useTestApp } from "../../testing/suite.ts";

describe.each(TEST_DATABASES)("provider events beyond a card payment (%s)", (kind) => {
  const ctx = useTestApp(kind);

  const send = async (event: unknown) => {
    const res = await sendWebhook(ctx.t, event);
    expect(res.status).toBe(200);
    await ctx.t.tasks.idle();
  };
  const topUpGrants = async (token: string) => (await ledger(ctx.t, token)).filter((g) => g.kind === "topup");

  describe("a delayed payment method", () => {
    it("grants nothing while the session is unpaid, then once when the payment succeeds", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const purchase = topUpPurchase(user.id, ctx.t.clock.now(), "500");
      await send(purchase.completedUnpaid());
      expect(await topUpGrants(user.accessToken)).toEqual([]);
      const succeeded = purchase.asyncSucceeded();
      await send(succeeded);
      await send(succeeded);
      await send(purchase.asyncSucceeded());
      const grants = await topUpGrants(user.accessToken);
      expect(grants).toHaveLength(1);
      expect(grants[0]?.amount).toBe(500);
      const history = (await (await getJson(ctx.t.app, "/v1/billing/invoices", user.accessToken)).json()) as {
        data: InvoiceSummary[];
      };
      expect(history.data.map((r) => [r.kind, r.status])).toEqual([["topup", "paid"]]);
      expect((await ctx.t.mails()).filter((m) => /receipt/.test(m.subject))).toHaveLength(1);
    });

    it("grants nothing when the delayed payment fails", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const purchase = topUpPurchase(user.id, ctx.t.clock.now(), "500");
      await send(purchase.completedUnpaid());
      await send(purchase.asyncFailed());
      expect(await topUpGrants(user.accessToken)).toEqual([]);
    });
  });

  describe("changes made outside the portal (customer.subscription.updated)", () => {
    const subscribed = async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const purchase = subscriptionPurchase(user.id, ctx.t.clock.now(), "B");
      await send(purchase.events.checkout());
      await send(purchase.events.invoice());
      return { user, purchase };
    };
    const later = (ms: number) => new Date(ctx.t.clock.now().getTime() + ms);

    it("a cancellation in the Billing Portal shows on the profile and is confirmed by mail; resuming undoes it", async () => {
      const { user, purchase } = await subscribed();
      await send(purchase.events.updated({ cancelAtPeriodEnd: true }, later(60_000)));
      expect((await me(ctx.t, user.accessToken)).subscription).toMatchObject({
        plan: "Tier B",
        cancel_at_period_end: true,
      });
      expect((await ctx.t.mails()).filter((m) => /subscription is cancelled/.test(m.subject))).toHaveLength(
        1,
      );
      await send(purchase.events.updated({ cancelAtPeriodEnd: false }, later(120_000)));
      expect((await me(ctx.t, user.accessToken)).subscription.cancel_at_period_end).toBe(false);
    });

    it("a switch of price in the Dashboard makes the user's plan that tier", async () => {
      const { user, purchase } = await subscribed();
      await send(
        purchase.events.updated({ productId: TIER("D").product, priceId: TIER("D").price }, later(60_000)),
      );
      expect((await me(ctx.t, user.accessToken)).subscription).toMatchObject({
        plan: "Tier D",
        product_id: TIER("D").product,
      });
    });

    it("a snapshot older than the user's own later command does not undo it", async () => {
      const { user, purchase } = await subscribed();
      // Stripe made this snapshot (not cancelled) before the user cancelled in the portal, and
      // delivers it after.
      const old = purchase.events.updated({ cancelAtPeriodEnd: false }, later(1_000));
      ctx.t.clock.advance(5_000);
      const cancel = await postJson(
        ctx.t.app,
        "/v1/cancel-subscription",
        {},
        {
          Authorization: `Bearer ${user.accessToken}`,
        },
      );
      expect(cancel.status).toBe(200);
      await send(old);
      expect((await me(ctx.t, user.accessToken)).subscription.cancel_at_period_end).toBe(true);
    });
  });
});
