// What real Stripe sends besides a plain card payment: a delayed payment method (the session
// completes unpaid, the money arrives in a later event), and changes made outside the portal (the
// Stripe Dashboard or the Billing Portal cancels, resumes or switches the plan), refunds and disputes.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TOP_UPS } from "../../../contract/catalogue.ts";
import type { InvoiceSummary } from "../../../contract/invoices.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { customerStore } from "../../billing/subscription-store.ts";
import {
  checkoutSessions,
  creditAdjustments,
  type LocalSubscriptionRow,
  localSubscriptions,
  organizations,
  webhookEvents,
} from "../../db/schema/index.ts";
import {
  chargeRefundedEvent,
  type DisputeInput,
  disputeEvent,
  subscriptionUpdatedEvent,
} from "../../payments/local/event-builders.ts";
import { localStripeObjects } from "../../payments/local/stripe-objects.ts";
import { newStripeId } from "../../payments/stripe/format.ts";
import { auditRowsAbout, staffMember } from "../../testing/admin.ts";
import { getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import {
  ledger,
  me,
  openSubscriptionCheckout,
  openTopUpCheckout,
  payAndSettle,
  sendWebhook,
  subscribe,
  TIER,
} from "../../testing/billing.ts";
import { subscriptionPurchase, topUpPurchase } from "../../testing/purchase-events.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_FREE_CREDITS } from "../../testing/test-app.ts";

const packPrice = TOP_UPS.find((t) => t.key === "500")?.unitAmount ?? 0;

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

  describe("a snapshot of the same second as our own change (Stripe's `created` is in whole seconds)", () => {
    // A plan bought at the local checkout, which then answers for Stripe: it sends the events and
    // answers the retrieve of the subscription. Our changes are made at .600 of a second.
    const subscribedLocally = async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "B");
      const [sub] = await ctx.t.deps.db
        .select()
        .from(localSubscriptions)
        .where(eq(localSubscriptions.userId, user.id));
      if (!sub) throw new Error("no local subscription");
      const second = Math.floor(ctx.t.clock.now().getTime() / 1000) * 1000 + 60_000;
      ctx.t.clock.set(new Date(second + 600));
      return { user, subscriptionId: sub.id, second };
    };
    const cancelInPortal = async (token: string) => {
      const res = await postJson(
        ctx.t.app,
        "/v1/cancel-subscription",
        {},
        { Authorization: `Bearer ${token}` },
      );
      expect(res.status).toBe(200);
      await ctx.t.tasks.idle();
    };
    const objects = () =>
      localStripeObjects({ catalogue: ctx.t.catalogue, sellerCountry: "DE", customers: customerStore });
    /** Stripe's customer.subscription.updated of the subscription as the local checkout has it, with `change`, created at `at`. */
    const snapshot = async (subscriptionId: string, change: Partial<LocalSubscriptionRow>, at: Date) => {
      const [row] = await ctx.t.deps.db
        .select()
        .from(localSubscriptions)
        .where(eq(localSubscriptions.id, subscriptionId));
      if (!row) throw new Error("no local subscription");
      const o = objects();
      return subscriptionUpdatedEvent(
        o.meta(at),
        o.subscriptionObjectInput({ ...row, ...change }, "active"),
        {},
      );
    };
    const retrievedFor = (eventId: string) =>
      ctx.t.logs.some((line) => line.includes(eventId) && line.includes("the subscription was retrieved"));

    it("our API cancellation, then a Dashboard resume in the same second: the resume is applied", async () => {
      const { user, subscriptionId } = await subscribedLocally();
      await cancelInPortal(user.accessToken);
      expect((await me(ctx.t, user.accessToken)).subscription.cancel_at_period_end).toBe(true);
      // The resume in the Stripe Dashboard, 200 ms after our cancellation: its event's `created`
      // is the whole second, 600 ms before our change.
      ctx.t.clock.advance(200);
      await ctx.t.local.provider.setCancelAtPeriodEnd(ctx.t.deps.db, subscriptionId, false);
      ctx.t.local.deliverSoon();
      await ctx.t.tasks.idle();
      expect((await me(ctx.t, user.accessToken)).subscription.cancel_at_period_end).toBe(false);
    });

    it("a snapshot from before our cancellation, in the same second, does not undo it", async () => {
      const { user, subscriptionId, second } = await subscribedLocally();
      // Stripe made this snapshot (not cancelled) at .100, before our cancellation at .600, and
      // delivers it after.
      const stale = await snapshot(subscriptionId, { cancelAtPeriodEnd: false }, new Date(second + 100));
      await cancelInPortal(user.accessToken);
      await send(stale);
      expect(retrievedFor(stale.id)).toBe(true);
      expect((await me(ctx.t, user.accessToken)).subscription.cancel_at_period_end).toBe(true);
    });

    it("a snapshot of the second before our change is dropped, one of the second after applied, unasked", async () => {
      const { user, subscriptionId, second } = await subscribedLocally();
      await cancelInPortal(user.accessToken);
      const older = await snapshot(subscriptionId, { cancelAtPeriodEnd: false }, new Date(second - 1000));
      await send(older);
      expect((await me(ctx.t, user.accessToken)).subscription.cancel_at_period_end).toBe(true);
      // Newer: applied as it says, though the local checkout still has the subscription cancelled.
      const newer = await snapshot(subscriptionId, { cancelAtPeriodEnd: false }, new Date(second + 1000));
      await send(newer);
      expect((await me(ctx.t, user.accessToken)).subscription.cancel_at_period_end).toBe(false);
      expect([retrievedFor(older.id), retrievedFor(newer.id)]).toEqual([false, false]);
    });
  });

  describe("refunds and disputes", () => {
    /** A Tier A subscriber who bought a 500-credit pack through the local checkout. */
    const withTopUp = async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await payAndSettle(ctx.t, await openSubscriptionCheckout(ctx.t, user.accessToken, "A"));
      const path = await openTopUpCheckout(ctx.t, user.accessToken, "500");
      await payAndSettle(ctx.t, path);
      const id = path.split("/").pop() ?? "";
      const [session] = await ctx.t.deps.db
        .select()
        .from(checkoutSessions)
        .where(eq(checkoutSessions.id, id));
      const paymentIntentId = session?.paymentIntentId ?? "";
      expect(paymentIntentId).toMatch(/^pi_/);
      const total = packPrice + Math.floor((packPrice * 1900 + 5000) / 10_000);
      return { user, paymentIntentId, total };
    };
    const meta = () => ({
      eventId: newStripeId("evt"),
      created: Math.floor(ctx.t.clock.now().getTime() / 1000),
    });
    const refund = (p: { paymentIntentId: string; total: number }, amountRefunded: number) =>
      chargeRefundedEvent(meta(), {
        id: "ch_topup",
        paymentIntentId: p.paymentIntentId,
        customerId: "cus_x",
        amount: p.total,
        amountRefunded,
        currency: "eur",
        created: meta().created,
      });
    const dispute = (
      p: { paymentIntentId: string; total: number },
      type: "created" | "closed",
      status: DisputeInput["status"],
      id = "dp_1",
    ) =>
      disputeEvent(meta(), type, {
        id,
        chargeId: "ch_topup",
        paymentIntentId: p.paymentIntentId,
        amount: p.total,
        currency: "eur",
        status,
        created: meta().created,
      });
    const topUpRow = async (token: string) => {
      const res = await getJson(ctx.t.app, "/v1/billing/invoices", token);
      const { data } = (await res.json()) as { data: InvoiceSummary[] };
      return data.find((r) => r.kind === "topup" && r.document !== "credit_note");
    };
    const creditNotesOf = async (token: string) => {
      const res = await getJson(ctx.t.app, "/v1/billing/invoices", token);
      const { data } = (await res.json()) as { data: InvoiceSummary[] };
      return data.filter((r) => r.document === "credit_note").reverse();
    };
    const topUpRemaining = async (token: string) =>
      (await ledger(ctx.t, token)).filter((g) => g.kind === "topup").reduce((sum, g) => sum + g.remaining, 0);

    it("a partial refund takes back that share of the pack's credits, a full one the rest; redeliveries do nothing", async () => {
      const purchase = await withTopUp();
      const token = purchase.user.accessToken;
      const half = Math.floor(purchase.total / 2);
      const partial = refund(purchase, half);
      await send(partial);
      await send(partial);
      expect(await topUpRemaining(token)).toBe(500 - Math.floor((500 * half) / purchase.total));
      expect(await topUpRow(token)).toMatchObject({ status: "paid", refunded: half });
      await send(refund(purchase, purchase.total));
      await send(refund(purchase, half)); // a late event of the earlier partial refund
      expect(await topUpRemaining(token)).toBe(0);
      expect(await topUpRow(token)).toMatchObject({ status: "refunded", refunded: purchase.total });
      const adjustments = await ctx.t.deps.db.select().from(creditAdjustments);
      expect(adjustments.map((a) => a.kind)).toEqual(["refund", "refund"]);

      // One credit note per refund, numbered in its own series, reversing net and VAT in the
      // invoice's proportions: together exactly the invoice's.
      const invoice = await topUpRow(token);
      const notes = await creditNotesOf(token);
      expect(notes.map((n) => n.number)).toEqual(["CN-2026-000001", "CN-2026-000002"]);
      expect(notes.map((n) => n.refers_to)).toEqual([invoice?.number, invoice?.number]);
      expect(notes.map((n) => n.total)).toEqual([half, purchase.total - half]);
      expect(notes.reduce((sum, n) => sum + n.net, 0)).toBe(invoice?.net);
      expect(notes.reduce((sum, n) => sum + n.tax, 0)).toBe(invoice?.tax);
      const document = await getJson(ctx.t.app, `/v1/billing/invoices/${notes[0]?.id}`, token);
      expect(await document.json()).toMatchObject({
        document: "credit_note",
        number: "CN-2026-000001",
        refers_to: invoice?.number,
        buyer: { country: "DE" },
        tax_rate: 19,
      });
      const pdf = await getJson(ctx.t.app, `/v1/billing/invoices/${notes[0]?.id}/pdf`, token);
      expect(pdf.headers.get("content-type")).toBe("application/pdf");
      expect(pdf.headers.get("content-disposition")).toContain("CN-2026-000001.pdf");
    });

    it("never drives the balance below zero: credits already spent stay spent", async () => {
      const purchase = await withTopUp();
      const token = purchase.user.accessToken;
      const adminToken = (await staffMember(ctx.t, "boss", "admin")).accessToken;
      // 1,000 subscription credits, then 300 of the pack's 500.
      const spend = await postJson(
        ctx.t.app,
        "/v1/credits/consume",
        { user_id: purchase.user.id, amount: 1300, reason: "test", idempotency_key: "spend-1" },
        { Authorization: `Bearer ${adminToken}` },
      );
      expect(spend.status).toBe(200);
      await send(refund(purchase, purchase.total));
      expect(await topUpRemaining(token)).toBe(0);
      expect((await me(ctx.t, token)).credit_balance).toBe(TEST_FREE_CREDITS);
    });

    it("a dispute freezes the pack's credits; won, they come back; lost, they are taken", async () => {
      const purchase = await withTopUp();
      const token = purchase.user.accessToken;
      const before = (await me(ctx.t, token)).credit_balance;
      await send(dispute(purchase, "created", "needs_response"));
      expect((await me(ctx.t, token)).credit_balance).toBe(before - 500);
      expect((await topUpRow(token))?.status).toBe("disputed");
      await send(dispute(purchase, "closed", "won"));
      expect((await me(ctx.t, token)).credit_balance).toBe(before);
      expect((await topUpRow(token))?.status).toBe("paid");

      await send(dispute(purchase, "created", "needs_response", "dp_2"));
      await send(dispute(purchase, "closed", "lost", "dp_2"));
      expect((await me(ctx.t, token)).credit_balance).toBe(before - 500);
      // The history says the bank took it back, not that it was refunded; its page says the same.
      const lost = await topUpRow(token);
      expect(lost).toMatchObject({ status: "dispute_lost", refunded: purchase.total });
      const page = await getJson(ctx.t.app, `/v1/billing/invoices/${lost?.id}`, token);
      expect(await page.json()).toMatchObject({ status: "dispute_lost" });
    });

    it("an inquiry closed (warning_closed) or a prevented dispute gives the credits back; an unknown end keeps them frozen", async () => {
      const purchase = await withTopUp();
      const token = purchase.user.accessToken;
      const before = (await me(ctx.t, token)).credit_balance;
      // An inquiry withdraws no money, and closes without taking any (review 88, L1).
      await send(dispute(purchase, "created", "warning_needs_response"));
      expect((await me(ctx.t, token)).credit_balance).toBe(before - 500);
      await send(dispute(purchase, "closed", "warning_closed"));
      expect((await me(ctx.t, token)).credit_balance).toBe(before);
      expect(await topUpRow(token)).toMatchObject({ status: "paid", refunded: 0 });
      await send(dispute(purchase, "created", "needs_response", "dp_2"));
      await send(dispute(purchase, "closed", "prevented", "dp_2"));
      expect((await me(ctx.t, token)).credit_balance).toBe(before);
      // A status this code does not know is neither: frozen until someone looks, and logged.
      await send(dispute(purchase, "created", "needs_response", "dp_3"));
      await send(dispute(purchase, "closed", "charge_refunded", "dp_3"));
      expect((await me(ctx.t, token)).credit_balance).toBe(before - 500);
      expect(await topUpRow(token)).toMatchObject({ status: "disputed", refunded: 0 });
      const logged = ctx.t.logs.map((line) => JSON.parse(line) as { msg: string; status?: string });
      expect(logged).toContainEqual(
        expect.objectContaining({
          status: "charge_refunded",
          msg: expect.stringContaining("a dispute closed with a status we do not know"),
        }),
      );
    });

    it("an inquiry answered with a refund and then closed gives nothing back twice", async () => {
      const purchase = await withTopUp();
      const token = purchase.user.accessToken;
      const before = (await me(ctx.t, token)).credit_balance;
      // Stripe allows refunding during an inquiry (review 91, H1: the frozen credits came back on
      // top of the refund once warning_closed read as won).
      await send(dispute(purchase, "created", "warning_needs_response"));
      await send(refund(purchase, purchase.total));
      await send(dispute(purchase, "closed", "warning_closed"));
      expect((await me(ctx.t, token)).credit_balance).toBe(before - 500);
      expect(await topUpRow(token)).toMatchObject({ status: "refunded", refunded: purchase.total });
      expect(await topUpRemaining(token)).toBe(0);
    });

    it("a dispute lost after the pack's credits were spent puts the account on hold until an admin clears it", async () => {
      const purchase = await withTopUp();
      const token = purchase.user.accessToken;
      const adminToken = (await staffMember(ctx.t, "boss", "admin")).accessToken;
      const charge = (key: string) =>
        postJson(
          ctx.t.app,
          "/v1/credits/consume",
          { user_id: purchase.user.id, amount: 1, reason: "test", idempotency_key: key },
          { Authorization: `Bearer ${adminToken}` },
        );
      // All the subscription's credits and 300 of the pack's 500.
      const spend = await postJson(
        ctx.t.app,
        "/v1/credits/consume",
        { user_id: purchase.user.id, amount: 1300, reason: "test", idempotency_key: "spend-1" },
        { Authorization: `Bearer ${adminToken}` },
      );
      expect(spend.status).toBe(200);
      await send(dispute(purchase, "created", "needs_response"));
      expect((await charge("before-loss")).status).toBe(200);
      await send(dispute(purchase, "closed", "lost"));
      const held = await charge("after-loss");
      expect(held.status).toBe(402);
      expect(await held.json()).toEqual({ detail: DETAIL.paymentDisputed });
      // A repeat of a charge made before the hold still answers what it answered.
      expect((await charge("before-loss")).status).toBe(200);
      const customer = await getJson(ctx.t.app, `/v1/admin/customers/${purchase.user.id}`, adminToken);
      expect(((await customer.json()) as { dispute_hold_at: string | null }).dispute_hold_at).not.toBeNull();
      const trail = await auditRowsAbout(ctx.t, purchase.user.id);
      // The admin's two charges are operator actions (credits.charge); then the hold, by the system.
      expect(trail.map((r) => [r.action, r.actorLabel])).toEqual([
        ["credits.charge", "boss"],
        ["credits.charge", "boss"],
        ["account.dispute_hold", "system"],
      ]);

      const clear = await postJson(
        ctx.t.app,
        `/v1/admin/customers/${purchase.user.id}/dispute-hold/clear`,
        { reason: "The customer paid by bank transfer" },
        { Authorization: `Bearer ${adminToken}` },
      );
      expect(clear.status).toBe(200);
      expect((await charge("after-clear")).status).toBe(200);
      expect((await me(ctx.t, token)).credit_balance).toBeGreaterThanOrEqual(0);
    });

    it("a dispute lost with nothing of the pack spent takes the credits and puts no hold", async () => {
      const purchase = await withTopUp();
      await send(dispute(purchase, "created", "needs_response"));
      await send(dispute(purchase, "closed", "lost"));
      const [org] = await ctx.t.deps.db
        .select()
        .from(organizations)
        .where(eq(organizations.id, purchase.user.id));
      expect(org?.disputeHoldAt).toBeNull();
    });

    it("a refund of a payment nobody knows is not recorded (an operator looks), and changes nothing", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const event = refund({ paymentIntentId: "pi_unknown", total: 100 }, 100);
      await send(event);
      expect((await ctx.t.deps.db.select().from(webhookEvents)).map((e) => e.eventId)).not.toContain(
        event.id,
      );
      expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS);
    });
  });
});
