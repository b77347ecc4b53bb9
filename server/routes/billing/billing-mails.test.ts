// The billing e-mails through the API and the local provider: a receipt with the invoice link, a
// failed renewal (at once and after each retry, with the update link), plan change scheduled and
// applied, cancellation confirmed, subscription ended, top-up credits about to expire; each sent
// once however often the provider redelivers its webhooks.
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { createBillingMailSender, queueExpiringTopUpMails } from "../../billing/billing-mails.ts";
import { billingMails, webhookDeliveries } from "../../db/schema/index.ts";
import { RENEWAL_RETRY_DELAYS_MS } from "../../payments/local/billing-cycle.ts";
import { postJson, verifiedUser } from "../../testing/api-client.ts";
import {
  advanceDays,
  openSubscriptionCheckout,
  openTopUpCheckout,
  payAndSettle,
  sendWebhook,
  TIER,
  tokenFor,
} from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("billing e-mails (%s)", (kind) => {
  const ctx = useTestApp(kind);

  /** The mails sent to `email` with a subject matching `subject`, oldest first. */
  const mailsTo = async (email: string, subject: RegExp) =>
    (await ctx.t.mails()).filter((m) => m.to === email && subject.test(m.subject)).reverse();

  const redeliverEverything = async () => {
    for (const delivery of await ctx.t.deps.db.select().from(webhookDeliveries)) {
      expect((await sendWebhook(ctx.t, delivery.payload)).status).toBe(200);
    }
    await ctx.t.tasks.idle();
  };

  it("a payment sends one receipt with its invoice, whatever the provider redelivers", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    await payAndSettle(ctx.t, await openSubscriptionCheckout(ctx.t, user.accessToken, "A"));
    await redeliverEverything();
    await redeliverEverything();
    const receipts = await mailsTo(user.email, /receipt/);
    expect(receipts).toHaveLength(1);
    const [receipt] = receipts;
    // The first month's invoice gives its period, as a renewal's does (the time of supply).
    expect(receipt?.subject).toMatch(
      /^Your GenAI Studio receipt: €94\.01 for Tier A monthly subscription, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/,
    );
    expect(receipt?.text).toContain("net €79.00, VAT 19 % €15.01");
    expect(receipt?.text).toMatch(/Your invoice number is INV-\d{4}-000001\./);
    expect(receipt?.links[0]).toMatch(
      new RegExp(`^${TEST_PORTAL_URL}/profile/billing/invoice\\?id=[0-9a-f-]{36}$`),
    );
    // A personal invoice's link names no organisation: the personal one is read without one.
    const rows = await ctx.t.deps.db.select().from(billingMails);
    expect(rows.map((r) => r.kind)).toEqual(["receipt"]);
    expect(rows[0]?.sentAt).not.toBeNull();
  });

  it("a declined renewal mails the update link at once and after each retry, then says the plan ended", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    await payAndSettle(
      ctx.t,
      await openSubscriptionCheckout(ctx.t, user.accessToken, "A"),
      "4000 0000 0000 0341",
    );
    await advanceDays(ctx.t, 32);
    let failed = await mailsTo(user.email, /payment of €94\.01 failed/);
    expect(failed).toHaveLength(1);
    expect(failed[0]?.subject).toBe("Your GenAI Studio payment of €94.01 failed: update your card");
    expect(failed[0]?.text).toMatch(/We will try again on \d{4}-\d{2}-\d{2}\. Update your payment method/);
    expect(failed[0]?.links[0]).toBe(`${TEST_PORTAL_URL}/profile/billing`);
    await redeliverEverything();
    expect(await mailsTo(user.email, /failed/)).toHaveLength(1);
    // Each retry that fails mails again, before the next one.
    for (const [i, delay] of RENEWAL_RETRY_DELAYS_MS.entries()) {
      await advanceDays(ctx.t, delay / 86_400_000);
      failed = await mailsTo(user.email, /failed/);
      expect(failed).toHaveLength(i + 2);
    }
    expect(failed.at(-1)?.subject).toBe("Your GenAI Studio payment of €94.01 failed again: your plan ends");
    const ended = await mailsTo(user.email, /subscription has ended/);
    expect(ended).toHaveLength(1);
    expect(ended[0]?.subject).toBe("Your GenAI Studio Tier A subscription has ended");
  });

  it("a plan change mails when scheduled and when applied; a cancellation is confirmed; the end is told", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const auth = { Authorization: `Bearer ${user.accessToken}` };
    await payAndSettle(ctx.t, await openSubscriptionCheckout(ctx.t, user.accessToken, "A"));
    expect(
      (await postJson(ctx.t.app, "/v1/update-subscription", { product_id: TIER("C").product }, auth)).status,
    ).toBe(200);
    await ctx.t.tasks.idle();
    const scheduled = await mailsTo(user.email, /plan changes to Tier C/);
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]?.text).toMatch(/from Tier A to Tier C\. Tier A stays active until \d{4}-\d{2}-\d{2}/);

    await advanceDays(ctx.t, 32);
    const token = await tokenFor(ctx.t, "ann");
    expect(await mailsTo(user.email, /You are now on Tier C/)).toHaveLength(1);
    expect(await mailsTo(user.email, /receipt/)).toHaveLength(2);

    const cancel = await postJson(
      ctx.t.app,
      "/v1/cancel-subscription",
      {},
      { Authorization: `Bearer ${token}` },
    );
    expect(cancel.status).toBe(200);
    await ctx.t.tasks.idle();
    await redeliverEverything();
    const cancelled = await mailsTo(user.email, /subscription is cancelled/);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]?.text).toMatch(/Your Tier C subscription is cancelled\. It stays active until/);

    await advanceDays(ctx.t, 32);
    expect(await mailsTo(user.email, /Tier C subscription has ended/)).toHaveLength(1);
  });

  it("tells once per pack when top-up credits expire within 7 days", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    await payAndSettle(ctx.t, await openSubscriptionCheckout(ctx.t, user.accessToken, "A"));
    await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, user.accessToken, "500"));
    const sweep = () => queueExpiringTopUpMails(ctx.t.deps.db, ctx.t.clock.now(), TEST_PORTAL_URL);
    expect(await sweep()).toBe(0);
    // Top-ups expire 6 months after purchase: a week before, the mail is due.
    ctx.t.clock.advance(176 * 86_400_000);
    expect(await sweep()).toBe(1);
    expect(await sweep()).toBe(0);
    await createBillingMailSender({
      db: ctx.t.deps.db,
      clock: ctx.t.clock,
      mailer: ctx.t.deps.mailer,
      tasks: ctx.t.tasks,
      logger: ctx.t.deps.logger,
    }).sendPending();
    const expiring = await mailsTo(user.email, /top-up credits expire on/);
    expect(expiring).toHaveLength(1);
    expect(expiring[0]?.subject).toMatch(/^500 top-up credits expire on \d{4}-\d{2}-\d{2}$/);
  });
});
