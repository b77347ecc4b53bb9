// The local provider's billing job when more than one runs at a time: every API instance runs it,
// so two runs may list the same subscription as due, or find the same webhook deliveries due. Each
// period must still be billed once (one invoice, one renewal, one retry of a failed charge), and
// each queued event sent once.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { localSubscriptions, webhookDeliveries } from "../../db/schema/index.ts";
import type { Db } from "../../db/types.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { advanceDays, subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_WEBHOOK_SECRET } from "../../testing/test-app.ts";
import { createDeliverer, enqueueEvent } from "./deliveries.ts";

const DAY_MS = 86_400_000;
const DECLINES_RENEWALS = "4000 0000 0000 0341";

/** The invoices the provider sent for a subscription, in order: [billing reason, paid?, attempt]. */
async function invoices(db: Db, subscriptionId: string) {
  const rows = await db.select().from(webhookDeliveries).orderBy(webhookDeliveries.createdAt);
  return rows
    .filter((r) => r.type === "invoice.paid" || r.type === "invoice.payment_failed")
    .map((r) => JSON.parse(r.payload) as { type: string; data: { object: Record<string, unknown> } })
    .filter((e) => JSON.stringify(e.data.object).includes(subscriptionId))
    .map((e) => ({
      type: e.type,
      reason: e.data.object.billing_reason,
      attempt: e.data.object.attempt_count,
    }));
}

async function localSubscriptionOf(db: Db, userId: string) {
  const [sub] = await db.select().from(localSubscriptions).where(eq(localSubscriptions.userId, userId));
  if (!sub) throw new Error("no local subscription");
  return sub;
}

/**
 * Holds a row lock on the subscription from a third connection, starts `runs` billing cycles, and
 * lets go only once every one of them is waiting for that lock: each has listed the subscription as
 * due before any could bill it, which is the race two instances' jobs run into.
 */
async function raceBillingCycles(db: Db, subscriptionId: string, run: () => Promise<number>, runs: number) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let signalLocked = () => {};
  const locked = new Promise<void>((resolve) => {
    signalLocked = resolve;
  });
  const holder = db.transaction(async (tx) => {
    await tx.select().from(localSubscriptions).where(eq(localSubscriptions.id, subscriptionId)).for("update");
    signalLocked();
    await released;
  });
  await locked;
  const cycles = Array.from({ length: runs }, run);
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const result = await db.execute<{ waiting: number }>(
        sql`select count(*)::int as waiting from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`,
      );
      const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
        waiting: number;
      }[];
      if ((rows[0]?.waiting ?? 0) >= runs) break;
      if (Date.now() > deadline) throw new Error("the billing cycles never waited for the subscription");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    release();
    await holder;
  }
  return Promise.all(cycles);
}

describe.each(TEST_DATABASES)("local billing cycle (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("does not bill a renewed subscription again when the cycle runs again at the same time", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, user.accessToken, "C");
    ctx.t.clock.advance(31 * DAY_MS);
    const provider = ctx.t.local.provider;
    expect(await provider.runBillingCycle()).toBe(1);
    expect(await provider.runBillingCycle()).toBe(0);
    const sub = await localSubscriptionOf(ctx.t.deps.db, user.id);
    expect(sub.periodIndex).toBe(1);
    expect(await invoices(ctx.t.deps.db, sub.id)).toEqual([
      { type: "invoice.paid", reason: "subscription_create", attempt: 1 },
      { type: "invoice.paid", reason: "subscription_cycle", attempt: 1 },
    ]);
  });
});

// Concurrency needs connections that really run side by side: PostgreSQL only (.ci/run has it).
describe.skipIf(!TEST_DATABASES.includes("postgres"))(
  `local billing jobs racing on PostgreSQL (TEST_DATABASE_URL ${process.env.TEST_DATABASE_URL ? "set" : "unset: skipped"})`,
  () => {
    const ctx = useTestApp("postgres");

    it("bills a due renewal once when two billing cycles both listed it as due", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "C");
      const { id } = await localSubscriptionOf(ctx.t.deps.db, user.id);
      ctx.t.clock.advance(31 * DAY_MS);
      const provider = ctx.t.local.provider;
      const billed = await raceBillingCycles(ctx.t.deps.db, id, () => provider.runBillingCycle(), 2);
      expect(await invoices(ctx.t.deps.db, id)).toEqual([
        { type: "invoice.paid", reason: "subscription_create", attempt: 1 },
        { type: "invoice.paid", reason: "subscription_cycle", attempt: 1 },
      ]);
      const sub = await localSubscriptionOf(ctx.t.deps.db, user.id);
      expect(sub.periodIndex).toBe(1);
      expect(sub.currentPeriodEnd.getTime()).toBeGreaterThan(ctx.t.clock.now().getTime());
      expect(billed.reduce((a, b) => a + b, 0)).toBe(1);
    });

    it("retries a declined renewal once when two billing cycles both listed the retry as due", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "C", DECLINES_RENEWALS);
      const { id } = await localSubscriptionOf(ctx.t.deps.db, user.id);
      await advanceDays(ctx.t, 31); // the renewal is declined: past due, next attempt in 3 days
      expect(await localSubscriptionOf(ctx.t.deps.db, user.id)).toMatchObject({
        status: "past_due",
        failedAttempts: 1,
      });
      ctx.t.clock.advance(3 * DAY_MS);
      const provider = ctx.t.local.provider;
      const billed = await raceBillingCycles(ctx.t.deps.db, id, () => provider.runBillingCycle(), 2);
      expect(await invoices(ctx.t.deps.db, id)).toEqual([
        { type: "invoice.paid", reason: "subscription_create", attempt: 1 },
        { type: "invoice.payment_failed", reason: "subscription_cycle", attempt: 1 },
        { type: "invoice.payment_failed", reason: "subscription_cycle", attempt: 2 },
      ]);
      expect(await localSubscriptionOf(ctx.t.deps.db, user.id)).toMatchObject({
        status: "past_due",
        failedAttempts: 2,
      });
      expect(billed.reduce((a, b) => a + b, 0)).toBe(1);
    });

    it("sends each queued webhook event once when two instances deliver at the same time", async () => {
      const db = ctx.t.deps.db;
      const ids = Array.from({ length: 30 }, (_, i) => `evt_race_${String(i).padStart(2, "0")}`);
      for (const id of ids) await enqueueEvent(db, { id, type: "invoice.paid" }, ctx.t.clock.now());
      const sent: string[] = [];
      const instance = () =>
        createDeliverer({
          db,
          clock: ctx.t.clock,
          logger: ctx.t.deps.logger,
          secret: TEST_WEBHOOK_SECRET,
          send: async (body) => {
            await new Promise((resolve) => setTimeout(resolve, 2));
            sent.push((JSON.parse(body) as { id: string }).id);
            return 200;
          },
        });
      const [first, second] = await Promise.all([instance().deliverDue(), instance().deliverDue()]);
      expect(sent.sort()).toEqual(ids);
      expect((first ?? 0) + (second ?? 0)).toBe(ids.length);
      expect(Math.min(first ?? 0, second ?? 0)).toBeGreaterThan(0); // both took a share
      const rows = await db.select().from(webhookDeliveries);
      expect(rows.map((r) => [r.attempts, r.lastStatus, r.deliveredAt !== null])).toEqual(
        ids.map(() => [1, 200, true]),
      );
    });
  },
);
