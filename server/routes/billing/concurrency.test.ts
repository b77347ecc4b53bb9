// Two hundred requests at once for one user: spends, subscription checkouts paid side by side,
// top-up checkouts, plan changes, cancellations and balance reads, all in flight together. The
// books must hold whatever the interleaving: the balance is never negative, every credit spent
// came out of a grant, each purchase is granted once, and the user never has two live
// subscriptions. PostgreSQL runs them truly concurrently (several connections, row locks); PGlite
// has one connection and takes them in turn, so there it checks the same rules without races.
import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { TierKey } from "../../../contract/product-ids.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { creditGrants, creditSpends, localSubscriptions, subscriptions } from "../../db/schema/index.ts";
import { fromMillicredits } from "../../domain/ledger.ts";
import { staffMember } from "../../testing/admin.ts";
import { getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import { checkoutPath, payAt, TIER, TOP_UP } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS, TEST_FREE_CREDITS } from "../../testing/test-app.ts";

const TIERS: TierKey[] = ["A", "B", "C", "D", "E"];
const TIER_CREDITS: Record<TierKey, number> = { A: 1000, B: 5000, C: 10000, D: 25000, E: 50000 };

/** A deterministic sequence of small integers, so a failing mix can be replayed. */
function sequence(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
}

describe.each(TEST_DATABASES)("200 concurrent requests for one user (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("never drive the balance negative, never double-grant, never leave two live subscriptions, and the ledger adds up", async () => {
    const t = ctx.t;
    const user = await verifiedUser(t, "busy");
    const adminToken = (await staffMember(t, "admin", "admin")).accessToken;
    const bearer = { Authorization: `Bearer ${user.accessToken}` };
    const next = sequence(kind === "postgres" ? 7 : 11);

    const balances: number[] = [];
    const spent: number[] = [];
    const paidTopUps: number[] = [];
    const statuses = new Map<string, number[]>();
    const note = (op: string, status: number) => statuses.set(op, [...(statuses.get(op) ?? []), status]);
    let spendKey = 0;
    /** Subscription checkouts opened and not paid yet. */
    const opened: string[] = [];

    const operations = {
      async spend() {
        const amount = 1 + next(400);
        const res = await postJson(
          t.app,
          "/v1/credits/consume",
          { user_id: user.id, amount, reason: "load", idempotency_key: `k${spendKey++}` },
          { Authorization: `Bearer ${adminToken}` },
        );
        note("spend", res.status);
        if (res.status === 200) {
          spent.push(amount);
          balances.push(((await res.json()) as { credit_balance: number }).credit_balance);
        }
      },
      async openCheckout() {
        const tier = TIERS[next(TIERS.length)] as TierKey;
        const res = await postJson(
          t.app,
          "/v1/create-checkout-session",
          { product: TIER(tier).product, price: TIER(tier).price },
          bearer,
        );
        note("checkout", res.status);
        if (res.status === 200) opened.push(checkoutPath(((await res.json()) as { url: string }).url));
      },
      async subscribe() {
        const path = opened.pop();
        if (path) note("pay", (await payAt(t, path)).status);
        else await operations.openCheckout();
      },
      async topUp() {
        const pack = next(2) === 0 ? "500" : "1000";
        const res = await postJson(
          t.app,
          "/v1/create-top-up-checkout",
          { product_id: TOP_UP(pack).product },
          bearer,
        );
        note("top-up", res.status);
        if (res.status !== 200) return;
        const pay = await payAt(t, checkoutPath(((await res.json()) as { url: string }).url));
        note("pay", pay.status);
        if (pay.status === 303) paidTopUps.push(Number(pack));
      },
      async change() {
        const tier = TIERS[next(TIERS.length)] as TierKey;
        const res = await postJson(
          t.app,
          "/v1/update-subscription",
          { product_id: TIER(tier).product },
          bearer,
        );
        note("change", res.status);
      },
      async cancel() {
        const res = await t.app.request("/v1/cancel-subscription", { method: "POST", headers: bearer });
        note("cancel", res.status);
      },
      async read() {
        const res = await getJson(t.app, "/v1/users/me", user.accessToken);
        note("read", res.status);
        balances.push(((await res.json()) as { credit_balance: number }).credit_balance);
      },
    };
    type Op = keyof typeof operations;
    // Weighted mix: spends and reads most, a burst of subscription checkouts up front while FREE.
    const mix: Op[] = [
      "spend",
      "spend",
      "spend",
      "read",
      "read",
      "topUp",
      "topUp",
      "change",
      "cancel",
      "subscribe",
    ];

    // Round 1, FREE: 40 subscription checkouts opened side by side (all allowed: the user is FREE),
    // then paid side by side among 160 other requests.
    await Promise.all(Array.from({ length: 40 }, () => operations.openCheckout()));
    expect(opened).toHaveLength(40);
    const round1: Op[] = [
      ...Array.from({ length: 40 }, () => "subscribe" as const),
      ...Array.from({ length: 160 }, () => mix[next(mix.length)] as Op),
    ];
    await Promise.all(round1.map((op) => operations[op]()));
    await t.tasks.idle();
    await t.local.runJob();
    // Round 2, on a paid plan: 200 more of the mix.
    await Promise.all(Array.from({ length: 200 }, () => operations[mix[next(mix.length)] as Op]()));
    await t.tasks.idle();
    await t.local.runJob();
    await t.tasks.idle();

    // Every answer is one the contract allows: nothing failed for the load itself.
    const allowed: Record<string, number[]> = {
      spend: [200, 402],
      checkout: [200, 409],
      pay: [303],
      "top-up": [200, 403],
      change: [200, 400],
      cancel: [200, 400],
      read: [200],
    };
    for (const [op, seen] of statuses) {
      expect(
        seen.filter((s) => !allowed[op]?.includes(s)),
        op,
      ).toEqual([]);
    }
    // Many subscriptions got paid side by side: the race this test is about did happen.
    expect(statuses.get("pay")?.filter((s) => s === 303).length).toBeGreaterThan(10);
    expect(spent.length).toBeGreaterThan(0);
    expect(Math.min(...balances)).toBeGreaterThanOrEqual(0);

    const db = t.deps.db;
    // Never more than one live subscription, at the provider and in our books; the rest of the
    // checkouts that got paid side by side were cancelled, and granted nothing.
    const live = await db
      .select()
      .from(localSubscriptions)
      .where(
        and(
          eq(localSubscriptions.userId, user.id),
          inArray(localSubscriptions.status, ["active", "past_due"]),
        ),
      );
    expect(live).toHaveLength(1);
    const ours = await db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.userId, user.id), inArray(subscriptions.status, ["active", "past_due"])));
    expect(ours).toHaveLength(1);
    expect(ours[0]?.providerSubscriptionId).toBe(live[0]?.id);

    // The ledger adds up: every grant once, every spend taken from grants, nothing negative.
    const grants = await db.select().from(creditGrants).where(eq(creditGrants.userId, user.id));
    const spends = await db.select().from(creditSpends).where(eq(creditSpends.userId, user.id));
    const tierKey = TIERS.find(
      (k) => TIER(k).product === live[0]?.productId || TIER(k).product === ours[0]?.productId,
    );
    const firstTier = grants.find((g) => g.kind === "subscription");
    expect(grants.filter((g) => g.kind === "subscription")).toHaveLength(1);
    expect(grants.filter((g) => g.kind === "free")).toHaveLength(1);
    expect(
      grants
        .filter((g) => g.kind === "topup")
        .map((g) => fromMillicredits(g.amount))
        .sort(),
    ).toEqual([...paidTopUps].sort());
    expect(Object.values(TIER_CREDITS)).toContain(fromMillicredits(firstTier?.amount ?? 0));
    expect(tierKey).toBeDefined();
    for (const g of grants) {
      expect(g.remaining).toBeGreaterThanOrEqual(0);
      expect(g.remaining).toBeLessThanOrEqual(g.amount);
    }
    const granted = grants.reduce((s, g) => s + g.amount, 0);
    const left = grants.reduce((s, g) => s + g.remaining, 0);
    const spentMilli = spends.reduce((s, x) => s + x.amount, 0);
    expect(fromMillicredits(spentMilli)).toBe(spent.reduce((s, a) => s + a, 0));
    expect(granted - left).toBe(spentMilli);
    expect(spends.flatMap((s) => s.takes).reduce((s, x) => s + x.amount, 0)).toBe(spentMilli);
    const me = (await (await getJson(t.app, "/v1/users/me", user.accessToken)).json()) as {
      credit_balance: number;
    };
    expect(me.credit_balance).toBe(fromMillicredits(left));
    expect(me.credit_balance).toBe(
      TEST_FREE_CREDITS +
        fromMillicredits(firstTier?.amount ?? 0) +
        paidTopUps.reduce((s, a) => s + a, 0) -
        spent.reduce((s, a) => s + a, 0),
    );
  }, 180_000);

  it("a checkout paid ten times at once (a double-clicked Pay) is paid and granted once", async () => {
    const t = ctx.t;
    const user = await verifiedUser(t, "clicky");
    const path = checkoutPath(
      (
        (await (
          await postJson(
            t.app,
            "/v1/create-checkout-session",
            { product: TIER("B").product, price: TIER("B").price },
            { Authorization: `Bearer ${user.accessToken}` },
          )
        ).json()) as { url: string }
      ).url,
    );
    const answers = await Promise.all(Array.from({ length: 10 }, () => payAt(t, path)));
    await t.tasks.idle();
    expect(answers.map((r) => r.status).sort()).toEqual([303, ...Array(9).fill(409)]);
    const grants = await t.deps.db.select().from(creditGrants).where(eq(creditGrants.userId, user.id));
    expect(grants.map((g) => g.kind).sort()).toEqual(["free", "subscription"]);
    expect(
      await t.deps.db.select().from(localSubscriptions).where(eq(localSubscriptions.userId, user.id)),
    ).toHaveLength(1);
  });

  it("twenty spends with one idempotency key at once spend once and all answer the same balance", async () => {
    const t = ctx.t;
    const user = await verifiedUser(t, "spender");
    const adminToken = (await staffMember(t, "admin", "admin")).accessToken;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        postJson(
          t.app,
          "/v1/credits/consume",
          { user_id: user.id, amount: 7, reason: "retry storm", idempotency_key: "same-job" },
          { Authorization: `Bearer ${adminToken}` },
        ),
      ),
    );
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(bodies.map(({ replayed: _, ...answer }) => answer)).toEqual(
      Array(20).fill({
        credit_balance: TEST_FREE_CREDITS - 7,
        charged: 7,
        ledger_entry_id: expect.any(String),
      }),
    );
    // One charge; the other nineteen say they repeat it.
    expect(bodies.filter((b) => b.replayed === false)).toHaveLength(1);
    expect(new Set(bodies.map((b) => (b as { ledger_entry_id: string }).ledger_entry_id)).size).toBe(1);
    expect(await t.deps.db.select().from(creditSpends).where(eq(creditSpends.userId, user.id))).toHaveLength(
      1,
    );
  });
});
