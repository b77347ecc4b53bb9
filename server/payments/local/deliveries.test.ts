// The local provider's webhook deliveries: signed like Stripe, retried on Stripe's schedule when
// the endpoint does not answer 2xx, and given up after the last attempt.
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_WEBHOOK_SECRET } from "../../testing/test-app.ts";
import { verifyWebhook } from "../stripe/signature.ts";
import { createDeliverer, enqueueEvent } from "./deliveries.ts";
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MS } from "./retry-schedule.ts";

describe.each(TEST_DATABASES)("local webhook deliveries (%s)", (kind) => {
  const ctx = useTestApp(kind);

  function deliverer(statuses: number[], seen: { body: string; signature: string }[]) {
    return createDeliverer({
      db: ctx.t.deps.db,
      clock: ctx.t.clock,
      logger: ctx.t.deps.logger,
      secret: TEST_WEBHOOK_SECRET,
      send: async (body, headers) => {
        seen.push({ body, signature: headers["Stripe-Signature"] ?? "" });
        const status = statuses.shift();
        if (status === undefined) throw new Error("connection refused");
        return status;
      },
    });
  }

  it("signs each attempt like Stripe and retries after 1 and 5 minutes until a 2xx", async () => {
    await enqueueEvent(ctx.t.deps.db, { id: "evt_1", type: "invoice.paid" }, ctx.t.clock.now());
    const seen: { body: string; signature: string }[] = [];
    const d = deliverer([500, 302, 200], seen);
    expect(await d.deliverDue()).toBe(1);
    expect(await d.deliverDue()).toBe(0); // not due yet
    ctx.t.clock.advance(RETRY_DELAYS_MS[0] ?? 0);
    expect(await d.deliverDue()).toBe(1); // a redirect is a failure too
    ctx.t.clock.advance(RETRY_DELAYS_MS[1] ?? 0);
    expect(await d.deliverDue()).toBe(1);
    const [row] = await ctx.t.deps.db.select().from(webhookDeliveries);
    expect(row).toMatchObject({ attempts: 3, lastStatus: 200 });
    expect(row?.deliveredAt).not.toBeNull();
    const now = Math.floor(ctx.t.clock.now().getTime() / 1000);
    const last = seen.at(-1);
    expect((await verifyWebhook(last?.body ?? "", last?.signature, TEST_WEBHOOK_SECRET, now)).ok).toBe(true);
    expect(JSON.parse(last?.body ?? "{}")).toEqual({ id: "evt_1", type: "invoice.paid" });
  });

  it("gives up after the last attempt", async () => {
    await enqueueEvent(ctx.t.deps.db, { id: "evt_2", type: "invoice.paid" }, ctx.t.clock.now());
    const d = deliverer([], []);
    for (let i = 0; i < MAX_DELIVERY_ATTEMPTS; i++) {
      expect(await d.deliverDue()).toBe(1);
      ctx.t.clock.advance(25 * 3_600_000);
    }
    expect(await d.deliverDue()).toBe(0);
    const [row] = await ctx.t.deps.db.select().from(webhookDeliveries);
    expect(row?.attempts).toBe(MAX_DELIVERY_ATTEMPTS);
    expect(row?.gaveUpAt).not.toBeNull();
  });

  it("the development clock endpoint refuses callers that are not on this machine", async () => {
    const res = await ctx.t.app.request("/_dev/billing/advance", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ days: 1 }),
    });
    expect(res.status).toBe(403);
  });
});
