// The local checkout's disputes as events: what charge.dispute.created and .closed carry (Stripe's
// dispute object, read back by the Stripe parser as billing reads Stripe's), their order behind the
// payment's own event, and a close that names an unknown or a closed dispute.
import { asc } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import { useTestApp } from "../../testing/suite.ts";
import { parseStripeEventJson } from "../stripe/event-parser.ts";
import { enqueueEvent } from "./deliveries.ts";
import { closeDispute, openDispute } from "./disputes.ts";
import { unclaimedChargeId } from "./refunds.ts";
import { seconds } from "./stripe-objects.ts";

describe.each(TEST_DATABASES)("the local checkout's disputes (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const meta = (id: string) => ({ eventId: id, created: seconds(ctx.t.clock.now()) });
  const payment = { paymentIntentId: "pi_ABC123", amount: 5950, currency: "eur" };
  const queued = async () =>
    (await ctx.t.deps.db.select().from(webhookDeliveries).orderBy(asc(webhookDeliveries.createdAt))).map(
      (r) => ({
        ...r,
        event: JSON.parse(r.payload) as { type: string; data: { object: Record<string, unknown> } },
      }),
    );

  it("opens a dispute of the whole payment, due at once and queued behind the payment's event", async () => {
    const now = ctx.t.clock.now();
    await enqueueEvent(ctx.t.deps.db, { id: "evt_paid", type: "checkout.session.completed" }, now);
    const opened = await openDispute(ctx.t.deps.db, meta("evt_dispute"), payment, now);
    const id = opened.disputeId;
    expect(opened.ok).toBe(true);
    expect(id).toMatch(/^du_[A-Za-z0-9]{24}$/);
    const [first, second] = await queued();
    expect(first?.eventId).toBe("evt_paid");
    expect(second?.nextAttemptAt?.getTime()).toBe(now.getTime());
    expect(second?.event.type).toBe("charge.dispute.created");
    expect(second?.event.data.object).toMatchObject({
      id,
      object: "dispute",
      amount: 5950,
      currency: "eur",
      charge: unclaimedChargeId("pi_ABC123"),
      payment_intent: "pi_ABC123",
      reason: "fraudulent",
      status: "needs_response",
      is_charge_refundable: false,
      created: seconds(now),
    });
    expect(unclaimedChargeId("pi_ABC123")).toBe("ch_ABC123");
    const parsed = parseStripeEventJson(second?.payload ?? "");
    expect(parsed).toMatchObject({
      ok: true,
      event: {
        kind: "dispute",
        disputeId: id,
        chargeId: "ch_ABC123",
        paymentIntentId: "pi_ABC123",
        phase: "created",
        status: "needs_response",
      },
    });
  });

  it("closes it once, won or lost, as the same dispute; an unknown id is not found", async () => {
    const opened = ctx.t.clock.now();
    const { disputeId: id } = await openDispute(ctx.t.deps.db, meta("evt_open"), payment, opened);
    ctx.t.clock.advance(3_600_000);
    const now = ctx.t.clock.now();
    expect(await closeDispute(ctx.t.deps.db, meta("evt_lost"), id, "lost", now)).toEqual({
      ok: true,
      disputeId: id,
    });
    const again = await closeDispute(ctx.t.deps.db, meta("evt_won"), id, "won", now);
    expect(again).toEqual({ ok: false, reason: "already_closed" });
    for (const unknown of ["du_unknown", "INV-1999-000001"])
      expect(await closeDispute(ctx.t.deps.db, meta("evt_x"), unknown, "won", now)).toEqual({
        ok: false,
        reason: "not_found",
      });
    const closed = (await queued()).filter((r) => r.type === "charge.dispute.closed");
    expect(closed).toHaveLength(1);
    expect(closed[0]?.event.data.object).toMatchObject({
      id,
      amount: 5950,
      charge: "ch_ABC123",
      payment_intent: "pi_ABC123",
      status: "lost",
      created: seconds(opened),
    });
    expect(parseStripeEventJson(closed[0]?.payload ?? "")).toMatchObject({
      ok: true,
      event: { kind: "dispute", disputeId: id, phase: "closed", status: "lost" },
    });
  });

  it("never opens a second dispute of a payment, open or closed, as Stripe never does", async () => {
    const now = ctx.t.clock.now();
    const first = await openDispute(ctx.t.deps.db, meta("evt_first"), payment, now);
    expect(first.ok).toBe(true);
    const whileOpen = await openDispute(ctx.t.deps.db, meta("evt_second"), payment, now);
    expect(whileOpen).toEqual({ ok: false, reason: "already_disputed", disputeId: first.disputeId });
    await closeDispute(ctx.t.deps.db, meta("evt_won"), first.disputeId, "won", now);
    const afterWon = await openDispute(ctx.t.deps.db, meta("evt_third"), payment, now);
    expect(afterWon).toEqual({ ok: false, reason: "already_disputed", disputeId: first.disputeId });
    // Another payment is disputed as usual.
    const other = await openDispute(
      ctx.t.deps.db,
      meta("evt_other"),
      { ...payment, paymentIntentId: "pi_XYZ" },
      now,
    );
    expect(other.ok).toBe(true);
    const created = (await queued()).filter((r) => r.type === "charge.dispute.created");
    expect(created.map((r) => r.event.data.object.payment_intent)).toEqual(["pi_ABC123", "pi_XYZ"]);
  });
});
