// Auto top-up's provider events arriving late, through the webhook (the local checkout sends them as
// Stripe does, from webhook_deliveries): a card's save event after the card was removed at the
// provider.
import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { auditLog, localPaymentMethods, savedCards, webhookDeliveries } from "../../db/schema/index.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { AUTO_TOP_UP_CARDS, openCardSetup, settleAll } from "../../testing/auto-top-up.ts";
import { useTestApp } from "../../testing/suite.ts";
import type { TestApp } from "../../testing/test-app.ts";

const HOUR_MS = 3_600_000;

/** Holds back the deliveries still queued (their first delivery failed, say) until `release`. */
async function holdQueued(t: TestApp, types: string[]) {
  const held = await t.deps.db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date(t.clock.now().getTime() + HOUR_MS) })
    .where(isNull(webhookDeliveries.deliveredAt))
    .returning({ id: webhookDeliveries.id, type: webhookDeliveries.type });
  expect(held.map((d) => d.type).sort()).toEqual([...types].sort());
  return async function release() {
    for (const { id } of held)
      await t.deps.db
        .update(webhookDeliveries)
        .set({ nextAttemptAt: t.clock.now() })
        .where(eq(webhookDeliveries.id, id));
  };
}

/** What the webhook answered each delivery of `type`. */
async function answersTo(t: TestApp, type: string) {
  const rows = await t.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.type, type));
  return rows.map((r) => ({ delivered: r.deliveredAt !== null, status: r.lastStatus }));
}

describe.each(TEST_DATABASES)("auto top-up's events arriving late (%s)", (kind) => {
  const ctx = useTestApp(kind);

  // The card removed in Stripe's Billing Portal while the save events wait: payment_method.detached
  // is processed first and finds no saved card; saving it after would show a card every charge is
  // refused on.
  it("a card removed at the provider before its save event arrives is not saved", async () => {
    const t = ctx.t;
    const ann = await verifiedUser(t, "ann");
    const setup = await openCardSetup(t, ann.id, ann.id);
    expect(await t.local.provider.submitCard(setup.id, AUTO_TOP_UP_CARDS.pays, true)).toMatchObject({
      ok: true,
    });
    const release = await holdQueued(t, ["checkout.session.completed", "setup_intent.succeeded"]);
    const [pm] = await t.deps.db
      .select()
      .from(localPaymentMethods)
      .where(eq(localPaymentMethods.orgId, ann.id));
    await t.local.provider.detachCard(t.deps.db, pm?.id ?? "");
    await settleAll(t);
    expect(await answersTo(t, "payment_method.detached")).toEqual([{ delivered: true, status: 200 }]);

    await release();
    await settleAll(t);
    expect(await answersTo(t, "setup_intent.succeeded")).toEqual([{ delivered: true, status: 200 }]);
    expect(await answersTo(t, "checkout.session.completed")).toEqual([{ delivered: true, status: 200 }]);
    expect(await t.deps.db.select().from(savedCards).where(eq(savedCards.orgId, ann.id))).toEqual([]);
    const saved = await t.deps.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subjectOrgId, ann.id), eq(auditLog.action, "auto_top_up.card_saved")));
    expect(saved).toEqual([]);
    expect(t.logs.some((l) => l.includes("no longer attached to the organisation's customer"))).toBe(true);
    // Billing shows no card, so auto top-up cannot be turned on with it.
    const res = await getJson(t.app, "/v1/billing/auto-top-up", ann.accessToken);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ card: null });
  });

  it("a card still attached when its late save event arrives is saved", async () => {
    const t = ctx.t;
    const ann = await verifiedUser(t, "ann");
    const setup = await openCardSetup(t, ann.id, ann.id);
    expect(await t.local.provider.submitCard(setup.id, AUTO_TOP_UP_CARDS.pays, true)).toMatchObject({
      ok: true,
    });
    const release = await holdQueued(t, ["checkout.session.completed", "setup_intent.succeeded"]);
    t.clock.advance(HOUR_MS);
    await release();
    await settleAll(t);
    const [card] = await t.deps.db.select().from(savedCards).where(eq(savedCards.orgId, ann.id));
    expect(card).toMatchObject({ last4: "4242", savedBy: ann.id });
  });
});
