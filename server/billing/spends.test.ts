// One batch of spends decided together: each request gets the answer it would have had on its own,
// in arrival order, and only the spends that succeeded are written.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { revokeApiKey } from "../api-access/api-keys.ts";
import { apiKeyUsage, autoTopUpSettings, creditSpends, organizations } from "../db/schema/index.ts";
import { toMillicredits } from "../domain/ledger.ts";
import { createKey } from "../testing/api-access.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { useTestApp } from "../testing/suite.ts";
import { NO_LIMITS, TEST_FREE_CREDITS } from "../testing/test-app.ts";
import { type SpendRequest, spendBatch, spendCredits, spender } from "./spends.ts";

describe.each(TEST_DATABASES)("spendBatch (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const FREE = toMillicredits(TEST_FREE_CREDITS);

  function request(over: Partial<SpendRequest>): SpendRequest {
    return {
      userId: undefined,
      amount: 1000,
      reason: "test",
      idempotencyKey: "k",
      requestedBy: null,
      now: ctx.t.clock.now(),
      ...over,
    };
  }
  const meter = (apiKeyId: string, feature = "comic") => ({
    apiKeyId,
    feature,
    people: "one" as const,
    quantity: 1,
    month: "2026-11-01",
  });

  it("answers every request of a batch as if it had come alone, in arrival order", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const limited = await createKey(ctx.t, ann.accessToken, { monthly_credit_limit: 2, features: ["comic"] });
    const revoked = await createKey(ctx.t, bob.accessToken);
    await revokeApiKey(ctx.t.deps.db, bob.id, revoked.id, ctx.t.clock.now());
    const db = ctx.t.deps.db;

    const answers = await spendBatch(db, [
      request({ userId: ann.id, idempotencyKey: "a1" }),
      request({ userId: ann.id, idempotencyKey: "a1" }),
      request({ userId: "00000000-0000-4000-8000-000000000000", idempotencyKey: "nobody" }),
      request({ userId: "not-a-uuid", idempotencyKey: "nobody" }),
      request({ idempotencyKey: "k1", meter: meter(limited.id) }),
      request({ idempotencyKey: "k2", meter: meter(limited.id) }),
      request({ idempotencyKey: "k3", meter: meter(limited.id) }),
      request({ idempotencyKey: "k4", meter: meter(limited.id, "filters") }),
      request({ idempotencyKey: "r1", meter: meter(revoked.id) }),
      request({ idempotencyKey: "u1", meter: meter("nosuchkey123") }),
      request({ userId: bob.id, idempotencyKey: "b1", amount: FREE + 1 }),
      request({ userId: bob.id, idempotencyKey: "b2", amount: FREE }),
    ]);

    const first = answers[0];
    expect(first).toEqual({
      ok: true,
      userId: ann.id,
      lowBalanceCrossed: null,
      memberCapNearing: null,
      autoTopUpDue: false,
      balanceAfter: FREE - 1000,
      repeated: false,
      spendId: expect.any(String),
      amount: 1000,
    });
    // The same request with its idempotency key later in the batch: the first answer, nothing spent.
    expect(answers[1]).toEqual({ ...first, repeated: true });
    expect(answers.slice(2, 4)).toEqual([
      { ok: false, reason: "no_user" },
      { ok: false, reason: "no_user" },
    ]);
    // The key's limit of 2 credits: two charges of 1 fit, the third does not; a feature it may not use.
    expect(answers.slice(4, 8).map((a) => (a.ok ? a.balanceAfter : a.reason))).toEqual([
      FREE - 2000,
      FREE - 3000,
      "key_limit",
      "feature_not_allowed",
    ]);
    expect(answers.slice(8, 10)).toEqual([
      { ok: false, reason: "no_key" },
      { ok: false, reason: "no_key" },
    ]);
    // More than the balance is refused whole; the whole balance is then still there to spend.
    expect(answers[10]).toEqual({ ok: false, reason: "insufficient" });
    expect(answers[11]).toMatchObject({ ok: true, balanceAfter: 0 });

    const spends = await db.select().from(creditSpends);
    expect(spends.map((s) => s.idempotencyKey).sort()).toEqual(["a1", "b2", "k1", "k2"]);
    expect(await db.select().from(apiKeyUsage).where(eq(apiKeyUsage.apiKeyId, limited.id))).toEqual([
      { apiKeyId: limited.id, month: "2026-11-01", amount: 2000, reserved: 0 },
    ]);
  });

  it("says when auto top-up is due: active, and the balance below its threshold, or refused for credits", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const db = ctx.t.deps.db;
    const now = ctx.t.clock.now();
    const settings = (orgId: string, status: "active" | "paused") => ({
      orgId,
      enabled: true,
      status,
      threshold: TEST_FREE_CREDITS - 10,
      productId: "prod_pack",
      monthlyLimit: 10_000,
      currency: "eur",
      updatedAt: now,
    });
    await db.insert(autoTopUpSettings).values([settings(ann.id, "active"), settings(bob.id, "paused")]);
    const answers = await spendBatch(db, [
      // 50 → 41: not below 40 yet.
      request({ userId: ann.id, idempotencyKey: "a1", amount: 9000 }),
      // 41 → 40: at the threshold is not below it.
      request({ userId: ann.id, idempotencyKey: "a2", amount: 1000 }),
      request({ userId: ann.id, idempotencyKey: "a3", amount: 1 }),
      request({ userId: ann.id, idempotencyKey: "a4", amount: FREE }),
      // Paused: never due.
      request({ userId: bob.id, idempotencyKey: "b1", amount: 20_000 }),
      request({ userId: bob.id, idempotencyKey: "b2", amount: FREE }),
      // A repeat is never due again.
      request({ userId: ann.id, idempotencyKey: "a3", amount: 1 }),
    ]);
    expect(answers.map((a) => (a.ok ? a.autoTopUpDue : a.autoTopUpOrg))).toEqual([
      false,
      false,
      true,
      ann.id,
      false,
      undefined,
      false,
    ]);
  });

  it("runs concurrent calls together and still answers a repeat from an earlier batch", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const db = ctx.t.deps.db;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        spendCredits(db, request({ userId: ann.id, idempotencyKey: `c${i}` })),
      ),
    );
    expect(
      answers.map((a) => (a.ok ? a.balanceAfter : a.reason)).sort((x, y) => Number(y) - Number(x)),
    ).toEqual(Array.from({ length: 30 }, (_, i) => FREE - 1000 * (i + 1)));
    const again = await spendCredits(db, request({ userId: ann.id, idempotencyKey: "c7" }));
    expect(again).toEqual({ ...answers[7], repeated: true });
  });

  it("lets a batch sent behind another's COMMIT see what that one wrote", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const db = ctx.t.deps.db;
    // 64 make the first batch; the 6 after it, repeats of its keys and new ones, make the second,
    // which on PostgreSQL goes out with the first one's writes and COMMIT.
    const keys = [
      ...Array.from({ length: 64 }, (_, i) => `p${i}`),
      ...["p3", "p63", "q1", "p10", "q2", "q1"],
    ];
    const answers = await Promise.all(
      keys.map((idempotencyKey) =>
        spendCredits(db, request({ userId: ann.id, idempotencyKey, amount: 500 })),
      ),
    );
    const first = answers.slice(0, 64);
    expect(first.map((a) => a.ok && a.balanceAfter)).toEqual(
      Array.from({ length: 64 }, (_, i) => FREE - 500 * (i + 1)),
    );
    const [p3, p63, q1, p10, q2, q1Again] = answers.slice(64);
    expect(p3).toEqual({ ...first[3], repeated: true });
    expect(p63).toEqual({ ...first[63], repeated: true });
    expect(p10).toEqual({ ...first[10], repeated: true });
    expect(q1).toMatchObject({ ok: true, repeated: false, balanceAfter: FREE - 32_500 });
    expect(q2).toMatchObject({ ok: true, repeated: false, balanceAfter: FREE - 33_000 });
    expect(q1Again).toEqual({ ...q1, repeated: true });
    const rows = await db.select().from(creditSpends).where(eq(creditSpends.userId, ann.id));
    expect(rows).toHaveLength(66);
  });

  it("keeps idempotency keys apart per user: the same key charges each user once", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const bobsKey = await createKey(ctx.t, bob.accessToken);
    const db = ctx.t.deps.db;
    // Earlier spends are looked up by key alone: bob's "shared" must not answer for ann, nor ann's for bob.
    const first = await spendBatch(db, [request({ userId: ann.id, idempotencyKey: "shared" })]);
    const [forBob, forAnnAgain, forBobAgain, forBobByUser] = await spendBatch(db, [
      request({ idempotencyKey: "shared", amount: 2000, meter: meter(bobsKey.id) }),
      request({ userId: ann.id, idempotencyKey: "shared" }),
      request({ idempotencyKey: "shared", amount: 2000, meter: meter(bobsKey.id) }),
      request({ userId: bob.id, idempotencyKey: "shared", amount: 2000 }),
    ]);
    expect(forBob).toMatchObject({ ok: true, userId: bob.id, repeated: false, balanceAfter: FREE - 2000 });
    expect(forAnnAgain).toEqual({ ...first[0], repeated: true });
    expect(forBobAgain).toEqual({ ...forBob, repeated: true });
    // Bob's key reused by user id instead of through his API key: another request.
    expect(forBobByUser).toEqual({ ok: false, reason: "idempotency_mismatch" });
    const spends = await db.select().from(creditSpends).where(eq(creditSpends.idempotencyKey, "shared"));
    expect(spends.map((s) => [s.userId, s.amount]).sort()).toEqual(
      [
        [ann.id, 1000],
        [bob.id, 2000],
      ].sort(),
    );
  });

  it("refuses an idempotency key reused with a different request, earlier or in the same batch", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const db = ctx.t.deps.db;
    await spendBatch(db, [request({ userId: ann.id, idempotencyKey: "manual", amount: 100 })]);
    const answers = await spendBatch(db, [
      request({ userId: ann.id, idempotencyKey: "manual", amount: 40_000 }),
      request({ idempotencyKey: "job-1", amount: 100, meter: meter(key.id) }),
      request({ idempotencyKey: "job-1", amount: 40_000, meter: { ...meter(key.id), quantity: 4 } }),
      request({ idempotencyKey: "job-1", amount: 100, meter: meter(key.id) }),
    ]);
    expect(answers.map((a) => (a.ok ? (a.repeated ? "replayed" : "charged") : a.reason))).toEqual([
      "idempotency_mismatch",
      "charged",
      "idempotency_mismatch",
      "replayed",
    ]);
    const spends = await db.select().from(creditSpends).where(eq(creditSpends.userId, ann.id));
    expect(spends.map((s) => s.amount).sort()).toEqual([100, 100]);
  });
});

describe.each(TEST_DATABASES.filter((kind) => kind === "postgres"))(
  "a charge whose COMMIT went through with no answer back (%s)",
  (kind) => {
    const ctx = useTestApp(kind, { limits: NO_LIMITS });

    it("is answered as the charge it made, with its alert, not as a replay nor an error", async () => {
      const db = ctx.t.deps.db;
      const ann = await verifiedUser(ctx.t, "ann");
      const bob = await verifiedUser(ctx.t, "bob");
      const FREE = toMillicredits(TEST_FREE_CREDITS);
      // Ann's charge takes her below her low-balance alert: the alert is part of the answer.
      await db
        .update(organizations)
        .set({ lowBalanceThreshold: FREE - 500 })
        .where(eq(organizations.id, ann.id));
      // The COMMIT of a transaction with a1 or b2 takes 0.6 s, past the pipeline's 400 ms of
      // silence: the connection is taken for gone while PostgreSQL commits, and each charge runs
      // again alone (waiting at most 0.2 s for the lock the commit holds).
      await db.execute(sql`
        create function slow_commit() returns trigger language plpgsql as $$
        begin
          if new.idempotency_key in ('a1', 'b2') then perform pg_sleep(0.6); end if;
          return null;
        end $$`);
      await db.execute(sql`
        create constraint trigger slow_commit after insert on credit_spends
        deferrable initially deferred for each row execute function slow_commit()`);
      try {
        const spend = spender(db, 400);
        const request = (userId: string, idempotencyKey: string): SpendRequest => ({
          userId,
          amount: 1000,
          reason: "test",
          idempotencyKey,
          requestedBy: null,
          now: ctx.t.clock.now(),
        });
        // Two in one batch, then one alone.
        const [a, b] = await Promise.all([spend(request(ann.id, "a1")), spend(request(bob.id, "b1"))]);
        const lone = await spend(request(bob.id, "b2"));
        expect(a).toMatchObject({
          ok: true,
          repeated: false,
          balanceAfter: FREE - 1000,
          lowBalanceCrossed: FREE - 500,
        });
        expect(b).toMatchObject({
          ok: true,
          repeated: false,
          balanceAfter: FREE - 1000,
          lowBalanceCrossed: null,
        });
        expect(lone).toMatchObject({ ok: true, repeated: false, balanceAfter: FREE - 2000 });
        const rows = await db.select().from(creditSpends);
        expect(rows.map((r) => r.idempotencyKey).sort()).toEqual(["a1", "b1", "b2"]);
        expect(rows.find((r) => r.idempotencyKey === "a1")?.id).toBe(a.ok ? a.spendId : "");
        // A real repeat is still a replay.
        expect(await spend(request(ann.id, "a1"))).toMatchObject({ ok: true, repeated: true });
      } finally {
        await db.execute(sql`drop trigger slow_commit on credit_spends`);
        await db.execute(sql`drop function slow_commit()`);
      }
    }, 20_000);
  },
);
