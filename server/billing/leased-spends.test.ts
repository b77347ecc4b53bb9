// Charges through credit leases (decision 051, step 4): the first charge of a key is decided under
// the lock and takes a lease; the next ones are made through it; whatever a lease cannot decide, or
// whose write does not happen, is decided under the lock. Balances, limits and idempotency hold.
import { randomUUID } from "node:crypto";
import { eq, isNotNull, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import {
  apiKeyUsage,
  autoTopUpSettings,
  creditGrants,
  creditLeases,
  creditSpends,
} from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { berlinMonth } from "../domain/berlin-time.ts";
import { toMillicredits } from "../domain/ledger.ts";
import { bearer, createKey } from "../testing/api-access.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { holdGrantRow } from "../testing/held-row.ts";
import { recordingAlerts } from "../testing/latch-alerts.ts";
import { useTestApp } from "../testing/suite.ts";
import { cappedMember, orgKey } from "../testing/team-org.ts";
import { NO_LIMITS, TEST_FREE_CREDITS } from "../testing/test-app.ts";
import { sweepExpiredLeases } from "./lease-sweep.ts";
import { DEFAULT_LEASE_SETTINGS, leasedSpends } from "./leased-spends.ts";
import { type SpendRequest, type SpendResult, spendUnderLock } from "./spends.ts";

const FREE = toMillicredits(TEST_FREE_CREDITS);

/** A comic charge of 1 credit through `apiKeyId`, at `now`. */
function keyCharge(now: Date, apiKeyId: string, over: Partial<SpendRequest> = {}): SpendRequest {
  return {
    userId: undefined,
    amount: 1000,
    reason: "Comic × 1 (one person)",
    idempotencyKey: randomUUID(),
    requestedBy: null,
    now,
    meter: { apiKeyId, feature: "comic", people: "one", quantity: 1, month: berlinMonth(now) },
    ...over,
  };
}

const grantIn = async (db: Db, orgId: string) =>
  (await db.select().from(creditGrants).where(eq(creditGrants.userId, orgId)))[0];

describe.each(TEST_DATABASES)("charges through credit leases (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const db = () => ctx.t.deps.db;
  const settings = { ...DEFAULT_LEASE_SETTINGS, holder: "test" };

  const charge = (apiKeyId: string, over: Partial<SpendRequest> = {}) =>
    keyCharge(ctx.t.clock.now(), apiKeyId, over);
  const leaseCharges = async () =>
    (await db().select().from(creditSpends).where(isNotNull(creditSpends.leaseId))).length;
  const grantOf = (orgId: string) => grantIn(db(), orgId);

  it("takes a lease after a charge under the lock, and charges through it with the same answers", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const leased = leasedSpends(db(), settings);
    expect(await leased.spend(charge(key.id))).toMatchObject({ ok: true, balanceAfter: FREE - 1000 });
    await leased.idle();
    // 49 credits left, none reserved: a lease holds at most half of them.
    const [lease] = await db().select().from(creditLeases);
    expect(lease).toMatchObject({ apiKeyId: key.id, amount: 24_500, endedAt: null });
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 1000, reserved: 24_500 });

    const answers = await Promise.all([1, 2, 3].map(() => leased.spend(charge(key.id))));
    expect(answers.map((a) => a.ok && [a.balanceAfter, a.repeated, a.autoTopUpDue])).toEqual([
      [FREE - 2000, false, false],
      [FREE - 3000, false, false],
      [FREE - 4000, false, false],
    ]);
    expect(await leaseCharges()).toBe(3);
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 4000, reserved: 21_500 });

    await leased.close();
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 4000, reserved: 0 });
    expect((await db().select().from(creditLeases))[0]).toMatchObject({ endedBecause: "released" });
  });

  it("answers a repeated idempotency key as the first charge, once, and writes the rest of its batch", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const leased = leasedSpends(db(), settings);
    await leased.spend(charge(key.id));
    await leased.idle();
    const first = await leased.spend(charge(key.id, { idempotencyKey: "same" }));
    expect(first).toMatchObject({ ok: true, repeated: false });
    // The repeat and two new charges in one batch: the statement fails on the repeat's key, the
    // two are written through the lease all the same, and the lock answers the repeat.
    const [again, one, two] = await Promise.all([
      leased.spend(charge(key.id, { idempotencyKey: "same" })),
      leased.spend(charge(key.id, { idempotencyKey: "new-1" })),
      leased.spend(charge(key.id, { idempotencyKey: "new-2" })),
    ]);
    expect(again).toEqual({ ...first, repeated: true });
    expect([one, two]).toEqual([
      expect.objectContaining({ ok: true, repeated: false }),
      expect.objectContaining({ ok: true, repeated: false }),
    ]);
    expect(
      await db().select().from(creditSpends).where(eq(creditSpends.idempotencyKey, "same")),
    ).toHaveLength(1);
    const [lease] = await db().select().from(creditLeases);
    expect(lease).toMatchObject({ endedAt: null });
    const through = await db()
      .select()
      .from(creditSpends)
      .where(eq(creditSpends.leaseId, lease?.id as string));
    expect(through.map((s) => s.idempotencyKey).sort()).toEqual(["new-1", "new-2", "same"]);
    await leased.close();
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 4000, reserved: 0 });
  });

  it("refuses a key's charges once its revocation has answered", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const leased = leasedSpends(db(), settings);
    await leased.spend(charge(key.id));
    await leased.idle();
    const revoked = await ctx.t.app.request(`/v1/api-keys/${key.id}`, {
      method: "DELETE",
      headers: bearer(ann.accessToken),
    });
    expect(revoked.status).toBe(204);
    expect(await leased.spend(charge(key.id))).toEqual({ ok: false, reason: "no_key" });
    expect(await leaseCharges()).toBe(0);
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 1000, reserved: 0 });
    await leased.close();
  });

  it("forgets a key once its lease is taken, or once it may be tried again", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const refused = leasedSpends(db(), { ...settings, minimum: FREE });
    expect(await refused.spend(charge(key.id))).toMatchObject({ ok: true });
    await refused.idle();
    // No lease: the key waits out its retry time, then its entry goes.
    expect(refused.keysTracked()).toBe(1);
    await vi.waitFor(() => expect(refused.keysTracked()).toBe(0), { timeout: 3000, interval: 50 });
    const leased = leasedSpends(db(), settings);
    expect(await leased.spend(charge(key.id))).toMatchObject({ ok: true });
    await leased.idle();
    expect(await db().select().from(creditLeases)).toHaveLength(1);
    expect(leased.keysTracked()).toBe(0);
    await leased.close();
    await refused.close();
  });

  it("never spends more than the balance, whichever way each charge goes", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const leased = leasedSpends(db(), { ...settings, minimum: 100 });
    const answers: boolean[] = [];
    // 50 credits; 70 charges of 1 in waves, leases taken and given back as they run out.
    for (let wave = 0; wave < 7; wave++) {
      const results = await Promise.all(Array.from({ length: 10 }, () => leased.spend(charge(key.id))));
      answers.push(...results.map((r) => r.ok));
      await leased.idle();
    }
    expect(answers.filter(Boolean)).toHaveLength(50);
    expect(await leaseCharges()).toBeGreaterThan(0);
    await leased.close();
    expect(await grantOf(ann.id)).toMatchObject({ remaining: 0, reserved: 0 });
    const [{ total }] = (await db()
      .select({ total: sql<string>`sum(${creditSpends.amount})` })
      .from(creditSpends)) as [{ total: string }];
    expect(Number(total)).toBe(FREE);
  });

  it("keeps a key within its monthly limit", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken, { monthly_credit_limit: 10 });
    const leased = leasedSpends(db(), settings);
    const outcomes: string[] = [];
    for (let wave = 0; wave < 3; wave++) {
      const results = await Promise.all(Array.from({ length: 5 }, () => leased.spend(charge(key.id))));
      outcomes.push(...results.map((r) => (r.ok ? "ok" : r.reason)));
      await leased.idle();
    }
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(10);
    expect(outcomes.filter((o) => o !== "ok")).toEqual(Array(5).fill("key_limit"));
    await leased.close();
  });

  it("keeps a key's limit and the balance with two instances' leases on the key", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken, { monthly_credit_limit: 10 });
    const a = leasedSpends(db(), { ...settings, holder: "a" });
    const b = leasedSpends(db(), { ...settings, holder: "b" });
    const outcomes: string[] = [];
    for (let wave = 0; wave < 4; wave++) {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).spend(charge(key.id))),
      );
      outcomes.push(...results.map((r) => (r.ok ? "ok" : r.reason)));
      await Promise.all([a.idle(), b.idle()]);
    }
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(10);
    expect(outcomes.filter((o) => o !== "ok")).toEqual(Array(22).fill("key_limit"));
    // Leases were taken (by whichever instance charged first under the lock), and never held more
    // than the limit left: the eleventh charge was refused whichever instance it came to.
    expect((await db().select().from(creditLeases)).length).toBeGreaterThan(0);
    await Promise.all([a.close(), b.close()]);
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 10_000, reserved: 0 });
  });

  it("keeps a member's cap, and warns once at 80 % of it, with charges through leases", async () => {
    const { owner, orgId, key } = await cappedMember(ctx.t, 20_000);
    await db().update(creditGrants).set({ userId: orgId }).where(eq(creditGrants.userId, owner.id));
    const leased = leasedSpends(db(), settings);
    const answers: SpendResult[] = [];
    for (let wave = 0; wave < 6; wave++) {
      answers.push(...(await Promise.all(Array.from({ length: 5 }, () => leased.spend(charge(key.id))))));
      await leased.idle();
    }
    expect(answers.filter((a) => a.ok)).toHaveLength(20);
    expect(answers.filter((a) => !a.ok).map((a) => !a.ok && a.reason)).toEqual(Array(10).fill("member_cap"));
    expect(await leaseCharges()).toBeGreaterThan(0);
    // The mark (16 credits) is crossed once, under the lock, and the warning says what was spent.
    const warnings = answers.flatMap((a) => (a.ok && a.memberCapNearing ? [a.memberCapNearing] : []));
    expect(warnings).toEqual([expect.objectContaining({ cap: 20_000, used: 17_000 })]);
    await leased.close();
  });

  it("checks the alert latches of the leases it gives back at its shutdown", async () => {
    const { owner, member, orgId, key } = await cappedMember(ctx.t, 20_000);
    const other = await orgKey(ctx.t, member.accessToken, member.id, orgId, { name: "Second" });
    await db().update(creditGrants).set({ userId: orgId }).where(eq(creditGrants.userId, owner.id));
    const { alerts, mails } = recordingAlerts(ctx.t.clock);
    const leased = leasedSpends(db(), settings, undefined, alerts);
    await leased.spend(charge(key.id));
    await leased.idle();
    // A lease stops at the 80 % mark (16 credits): it holds half of the 15 left below it.
    expect((await db().select().from(creditLeases))[0]).toMatchObject({ amount: 7500 });
    // The member's other key charges 10 credits under the lock: 11 spent, no warning yet.
    const byOther = await spendUnderLock(db(), charge(other.id, { amount: 10_000 }));
    expect(byOther).toMatchObject({ ok: true, memberCapNearing: null });
    // The lease's charges take what was spent past the mark without the lock: no answer warns.
    const through = [];
    for (let i = 0; i < 7; i++) through.push(await leased.spend(charge(key.id)));
    expect(through.map((r) => r.ok && r.memberCapNearing)).toEqual(Array(7).fill(null));
    expect(await leaseCharges()).toBe(7);
    expect(mails).toEqual([]);
    // The instance stops: no charge of the key comes here again, so the lease's ending decides it.
    await leased.close();
    const month = berlinMonth(ctx.t.clock.now());
    expect(mails).toEqual([{ orgId, memberId: member.id, month, cap: 20_000, used: 18_000 }]);
    expect((await db().select().from(creditLeases))[0]).toMatchObject({ endedBecause: "released" });
  });

  it("asks auto top-up to look when a lease's charge takes the balance below its threshold", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    await db().insert(autoTopUpSettings).values({
      orgId: ann.id,
      enabled: true,
      status: "active",
      threshold: 40,
      productId: "prod_pack",
      monthlyLimit: 10_000,
      currency: "eur",
      updatedAt: ctx.t.clock.now(),
    });
    const leased = leasedSpends(db(), settings);
    expect(await leased.spend(charge(key.id))).toMatchObject({ ok: true, autoTopUpDue: false });
    await leased.idle();
    // 49 credits, 40 kept unreserved: the lease holds half of the 9 above, 4.5.
    expect((await db().select().from(creditLeases))[0]).toMatchObject({ amount: 4500, endedAt: null });
    // A charge under the lock takes what no lease holds below 40 (44.5 - 5): the lock asks auto
    // top-up, which finds 44 in all, not below 40, and does nothing.
    const byUser = await leased.spend(charge(key.id, { userId: ann.id, meter: undefined, amount: 5000 }));
    expect(byUser).toMatchObject({ ok: true, balanceAfter: 44_000, autoTopUpDue: true });
    // The lease's charges then take the whole balance down: the one that leaves it below 40 asks.
    const through = [];
    for (let i = 0; i < 4; i++) through.push(await leased.spend(charge(key.id)));
    expect(through.map((r) => r.ok && [r.balanceAfter, r.autoTopUpDue])).toEqual([
      [43_000, false],
      [42_000, false],
      [41_000, false],
      [40_000, false],
    ]);
    expect(await leased.spend(charge(key.id, { amount: 500 }))).toMatchObject({
      ok: true,
      balanceAfter: 39_500,
      autoTopUpDue: true,
    });
    expect(await leaseCharges()).toBe(5);
    await leased.close();
  });

  it("takes no lease while credits would expire before it ends: the lock spends those first", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const now = ctx.t.clock.now();
    const soon = randomUUID();
    await db()
      .insert(creditGrants)
      .values({
        id: soon,
        userId: ann.id,
        kind: "subscription",
        amount: 3000,
        remaining: 3000,
        grantedAt: now,
        expiresAt: new Date(now.getTime() + 10_000),
        source: "Tier A",
        fulfilmentKey: randomUUID(),
      });
    const leased = leasedSpends(db(), settings);
    for (let i = 0; i < 3; i++) {
      expect(await leased.spend(charge(key.id))).toMatchObject({ ok: true });
      await leased.idle();
      // Not while the grant that ends in 10 s has credits: a lease would spend the free ones.
      expect(await db().select().from(creditLeases)).toEqual([]);
    }
    const [spent] = await db().select().from(creditGrants).where(eq(creditGrants.id, soon));
    expect(spent).toMatchObject({ remaining: 0, reserved: 0 });
    await leased.close();
    // Once it is spent, a charge takes a lease on what lasts (a new holder: this one waits a
    // second before it tries a key again).
    const next = leasedSpends(db(), settings);
    expect(await next.spend(charge(key.id))).toMatchObject({ ok: true });
    await next.idle();
    expect(await db().select().from(creditLeases)).toHaveLength(1);
    await next.close();
  });

  it("gives back what a stopped instance's lease held once its time is up", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const crashed = leasedSpends(db(), settings);
    await crashed.spend(charge(key.id));
    await crashed.idle();
    await crashed.spend(charge(key.id));
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 2000, reserved: 23_500 });
    // The instance is gone (never closed); its lease's end passes.
    await db()
      .update(creditLeases)
      .set({ expiresAt: new Date(Date.now() - 1000) });
    expect(await sweepExpiredLeases(db())).toBe(1);
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 2000, reserved: 0 });
    expect(await db().select().from(apiKeyUsage)).toEqual([
      { apiKeyId: key.id, month: berlinMonth(ctx.t.clock.now()), amount: 2000, reserved: 0 },
    ]);
  });
});

// Two sessions at once: PostgreSQL only (PGlite is one session).
describe.runIf(TEST_DATABASES.includes("postgres"))("a lease write under way (postgres)", () => {
  const ctx = useTestApp("postgres", { limits: NO_LIMITS });
  const db = () => ctx.t.deps.db;
  const settings = { ...DEFAULT_LEASE_SETTINGS, holder: "test" };
  const charge = (apiKeyId: string, over: Partial<SpendRequest> = {}) =>
    keyCharge(ctx.t.clock.now(), apiKeyId, over);
  const grantOf = (orgId: string) => grantIn(db(), orgId);

  it("ends a lease whose write waited past its lock timeout, and decides its charge under the lock", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const leased = leasedSpends(db(), { ...settings, writeLockTimeoutMs: 200 });
    await leased.spend(charge(key.id));
    await leased.idle();
    const grant = await grantOf(ann.id);
    const [lease] = await db().select().from(creditLeases);
    const held = await holdGrantRow(ctx.database.url as string, grant?.id as string);
    try {
      const stuck = leased.spend(charge(key.id, { idempotencyKey: "stuck" }));
      // Past the write's timeout: it failed, and ending its lease waits for the grant's row.
      await new Promise((r) => setTimeout(r, 600));
      held.release();
      expect(await stuck).toMatchObject({ ok: true, repeated: false, balanceAfter: FREE - 2000 });
      const [spent] = await db().select().from(creditSpends).where(eq(creditSpends.idempotencyKey, "stuck"));
      expect(spent?.leaseId).toBeNull();
      const [ended] = await db()
        .select()
        .from(creditLeases)
        .where(eq(creditLeases.id, lease?.id as string));
      expect(ended?.endedAt).not.toBeNull();
      await leased.idle();
    } finally {
      await held.end();
      await leased.close();
    }
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 2000, reserved: 0 });
  });

  it("answers a revocation only after a lease write under way, and refuses every charge after it", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    // The write must still be waiting when the row is released, on a slow machine too.
    const leased = leasedSpends(db(), { ...settings, writeLockTimeoutMs: 10_000 });
    await leased.spend(charge(key.id));
    await leased.idle();
    const grant = await grantOf(ann.id);
    // Another session holds the grant's row: the next lease write takes its lease FOR SHARE,
    // then waits here.
    const held = await holdGrantRow(ctx.database.url as string, grant?.id as string);
    try {
      const inFlight = leased.spend(charge(key.id, { idempotencyKey: "in-flight" }));
      await new Promise((r) => setTimeout(r, 300));
      let revokedAt = 0;
      const revocation = Promise.resolve(
        ctx.t.app.request(`/v1/api-keys/${key.id}`, { method: "DELETE", headers: bearer(ann.accessToken) }),
      ).then((res) => {
        revokedAt = Date.now();
        return res.status;
      });
      await new Promise((r) => setTimeout(r, 300));
      // The revocation waits for the write that holds the lease.
      expect(revokedAt).toBe(0);
      held.release();
      expect(await inFlight).toMatchObject({ ok: true, repeated: false });
      expect(await revocation).toBe(204);
      // Sent after the revocation answered: refused, whichever way it goes.
      expect(await leased.spend(charge(key.id))).toEqual({ ok: false, reason: "no_key" });
      expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 2000, reserved: 0 });
    } finally {
      await held.end();
      await leased.close();
    }
  });
});
