// GET /v1/admin/metrics on PGlite and PostgreSQL: every figure of OPERATIONS.md's dashboard from a
// small, known day of business.
import { describe, expect, it } from "vitest";
import type { MetricsView } from "../../../contract/admin.ts";
import { TIERS } from "../../../contract/catalogue.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { berlinDateOf } from "../../domain/berlin-time.ts";
import { adminCall, adminGet, customerPayments, staffMember } from "../../testing/admin.ts";
import { consumeRequest, createKey, serviceKey } from "../../testing/api-access.ts";
import { getJson, register, verifiedUser } from "../../testing/api-client.ts";
import { subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

const price = (key: string) => TIERS.find((t) => t.key === key)?.unitAmount ?? 0;

describe.each(TEST_DATABASES)("business metrics (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("counts sign-ups, payers, churn, MRR, revenue, refunds and credits per feature", async () => {
    const ada = await staffMember(ctx.t, "ada", "admin");
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    await register(ctx.t, "newbie"); // not verified
    await subscribe(ctx.t, ann.accessToken, "A");
    await subscribe(ctx.t, bob.accessToken, "B");
    const key = await createKey(ctx.t, ann.accessToken);
    const service = await serviceKey(ctx.t);
    for (const [i, feature] of ["comic", "comic", "background-remover"].entries()) {
      const res = await consumeRequest(ctx.t, service, {
        api_key_id: key.id,
        feature,
        people: "one",
        quantity: 1,
        idempotency_key: `job-${i}`,
      });
      expect(res.status).toBe(200);
    }
    // Bob's plan ends now and is refunded.
    const cancel = await adminCall(
      ctx.t,
      `/v1/admin/customers/${bob.id}/subscription/cancel`,
      ada.accessToken,
      {
        at: "now",
        reason: "Moved to another provider",
      },
    );
    expect(cancel.status).toBe(200);
    const [bobPayment] = await customerPayments(ctx.t, bob.id, ada.accessToken);
    await adminCall(ctx.t, `/v1/admin/payments/${bobPayment?.id}/refund`, ada.accessToken, {
      reason: "Goodwill after cancelling",
      idempotency_key: "m-1",
    });
    await ctx.t.local.runJob();
    await ctx.t.tasks.idle();

    const metrics = await adminGet<MetricsView>(ctx.t, "/v1/admin/metrics", ada.accessToken);
    const today = berlinDateOf(ctx.t.clock.now());
    expect(metrics.days).toHaveLength(30);
    expect(metrics.days.at(-1)).toEqual({
      date: today,
      signups: 4,
      verified_signups: 3,
      new_paying_customers: 2,
      churned: 1,
    });
    expect(metrics.days.slice(0, -1).every((d) => d.signups === 0)).toBe(true);
    expect(metrics.now).toEqual({
      paying_customers: [{ tier: "Tier A", customers: 1 }],
      mrr: [{ currency: "eur", net: price("A") }],
      open_failed_renewals: 0,
      open_disputes: 0,
    });
    const [month] = metrics.months;
    expect(month).toMatchObject({ month: today.slice(0, 7), currency: "eur", net: price("A") + price("B") });
    expect(month?.gross).toBe((month?.net ?? 0) + (month?.vat ?? 0));
    expect(month?.refunds).toBe(bobPayment?.total);
    expect(metrics.credits_per_feature).toEqual([
      { date: today, feature: "background-remover", credits: 0.1 },
      { date: today, feature: "comic", credits: 10 },
    ]);

    const bad = await getJson(ctx.t.app, "/v1/admin/metrics?from=2026-01-01&to=2025-01-01", ada.accessToken);
    expect(bad.status).toBe(422);
  });
});
