// Credit leases in the database (decision 051): what taking one reserves, how a charge decided under
// the lock counts what leases hold, and what ending leases gives back. No charge is made through a
// lease yet (step 4); a lease's charge is written here as its statement will write it.
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import {
  apiKeyUsage,
  autoTopUpSettings,
  creditGrants,
  creditLeases,
  creditSpends,
  memberCreditUsage,
  organizations,
} from "../db/schema/index.ts";
import { toMillicredits } from "../domain/ledger.ts";
import { createKey } from "../testing/api-access.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { useTestApp } from "../testing/suite.ts";
import { cappedMember, orgKey, teamOrg } from "../testing/team-org.ts";
import { NO_LIMITS, TEST_FREE_CREDITS } from "../testing/test-app.ts";
import { endLeases, type NewLease, takeLease } from "./credit-leases.ts";
import { type SpendRequest, spendBatch } from "./spends.ts";

const MONTH = "2026-11-01";
const FREE = toMillicredits(TEST_FREE_CREDITS);

describe.each(TEST_DATABASES)("credit leases (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const db = () => ctx.t.deps.db;

  const charge = (over: Partial<SpendRequest>): SpendRequest => ({
    userId: undefined,
    amount: 1000,
    reason: "test",
    idempotencyKey: randomUUID(),
    requestedBy: null,
    now: ctx.t.clock.now(),
    ...over,
  });
  const meter = (apiKeyId: string) => ({
    apiKeyId,
    feature: "comic",
    people: "one" as const,
    quantity: 1,
    month: MONTH,
  });

  async function grantOf(orgId: string) {
    const [grant] = await db().select().from(creditGrants).where(eq(creditGrants.userId, orgId));
    if (!grant) throw new Error("no grant");
    return grant;
  }

  async function lease(over: Partial<NewLease> & Pick<NewLease, "orgId" | "apiKeyId" | "takes">) {
    const now = ctx.t.clock.now();
    return db().transaction((tx) =>
      takeLease(tx, {
        memberId: null,
        month: MONTH,
        amount: over.takes.reduce((sum, t) => sum + t.amount, 0),
        holder: "test",
        now,
        expiresAt: new Date(Date.now() + 60_000),
        ...over,
      }),
    );
  }

  /** A charge made through a lease, written as step 4's statement will write it. */
  async function chargeThrough(
    leaseId: string,
    orgId: string,
    keyId: string,
    grantId: string,
    amount: number,
  ) {
    await db().transaction(async (tx) => {
      await tx.insert(creditSpends).values({
        id: randomUUID(),
        userId: orgId,
        amount,
        reason: "comic",
        idempotencyKey: randomUUID(),
        balanceAfter: 0,
        takes: [{ grantId, amount }],
        apiKeyId: keyId,
        createdAt: ctx.t.clock.now(),
        leaseId,
      });
      await tx
        .update(creditGrants)
        .set({
          remaining: sql`${creditGrants.remaining} - ${amount}`,
          reserved: sql`${creditGrants.reserved} - ${amount}`,
        })
        .where(eq(creditGrants.id, grantId));
      await tx
        .update(apiKeyUsage)
        .set({
          amount: sql`${apiKeyUsage.amount} + ${amount}`,
          reserved: sql`${apiKeyUsage.reserved} - ${amount}`,
        })
        .where(and(eq(apiKeyUsage.apiKeyId, keyId), eq(apiKeyUsage.month, MONTH)));
    });
  }

  const keyMonth = async (keyId: string) =>
    (await db().select().from(apiKeyUsage).where(eq(apiKeyUsage.apiKeyId, keyId)))[0];

  it("reserves a lease on its grants and the key's month; a charge under the lock takes only the rest", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const grant = await grantOf(ann.id);
    await lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: grant.id, amount: FREE - 3000 }] });

    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE, reserved: FREE - 3000 });
    expect(await keyMonth(key.id)).toEqual({
      apiKeyId: key.id,
      month: MONTH,
      amount: 0,
      reserved: FREE - 3000,
    });
    const [answer, refused, last] = await spendBatch(db(), [
      charge({ userId: ann.id, amount: 2000 }),
      charge({ userId: ann.id, amount: 1001 }),
      charge({ userId: ann.id, amount: 1000 }),
    ]);
    // The balance answered is the customer's: what the lease holds is still theirs.
    expect(answer).toMatchObject({ ok: true, balanceAfter: FREE - 2000 });
    // Refused for what the lease holds: the answer says which leases to end to decide it again.
    expect(refused).toEqual({ ok: false, reason: "insufficient", leasesInTheWay: { orgId: ann.id } });
    expect(last).toMatchObject({ ok: true, balanceAfter: FREE - 3000 });
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 3000, reserved: FREE - 3000 });
  });

  it("counts what a key's leases hold against its monthly limit", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken, { monthly_credit_limit: 5 });
    const grant = await grantOf(ann.id);
    await lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: grant.id, amount: 3000 }] });
    const answers = await spendBatch(db(), [
      charge({ meter: meter(key.id), amount: 2001 }),
      charge({ meter: meter(key.id), amount: 2000 }),
    ]);
    expect(answers.map((a) => (a.ok ? a.balanceAfter : a.reason))).toEqual(["key_limit", FREE - 2000]);
    expect(answers[0]).toMatchObject({ leasesInTheWay: { apiKeyId: key.id } });
    expect(await keyMonth(key.id)).toEqual({ apiKeyId: key.id, month: MONTH, amount: 2000, reserved: 3000 });
  });

  it("counts what a member's leases hold against their cap and its 80 % mark, and mails as used what was spent", async () => {
    const { member, orgId, key } = await cappedMember(ctx.t, 10_000);
    await db()
      .insert(creditGrants)
      .values({
        id: randomUUID(),
        userId: orgId,
        kind: "topup",
        amount: 100_000,
        remaining: 100_000,
        grantedAt: new Date("2026-01-01T00:00:00Z"),
        expiresAt: null,
        source: "pack",
        fulfilmentKey: randomUUID(),
      });
    const grant = await grantOf(orgId);
    await lease({
      orgId,
      apiKeyId: key.id,
      memberId: member.id,
      takes: [{ grantId: grant.id, amount: 7000 }],
    });
    expect(
      await db().select().from(memberCreditUsage).where(eq(memberCreditUsage.userId, member.id)),
    ).toEqual([{ orgId, userId: member.id, month: MONTH, amount: 0, reserved: 7000 }]);

    const answers = await spendBatch(db(), [
      charge({ meter: meter(key.id), amount: 1500 }),
      charge({ meter: meter(key.id), amount: 1501 }),
    ]);
    // 7 held + 1.5 spent passes 8 of a 10 cap: the warning says what was spent (1.5).
    expect(answers[0]).toMatchObject({
      ok: true,
      memberCapNearing: { orgId, memberId: member.id, month: MONTH, cap: 10_000, used: 1500 },
    });
    expect(answers[1]).toEqual({
      ok: false,
      reason: "member_cap",
      memberCap: { orgId, memberId: member.id, month: MONTH, cap: 10_000, used: 1500 },
      // 1.5 spent and 1.501 asked fit the cap: what the lease holds refused it.
      leasesInTheWay: { orgId, memberId: member.id },
    });
  });

  it("decides the low-balance and auto top-up crossings on what no lease holds", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    await db().update(organizations).set({ lowBalanceThreshold: 20_000 }).where(eq(organizations.id, ann.id));
    await db().insert(autoTopUpSettings).values({
      orgId: ann.id,
      enabled: true,
      status: "active",
      threshold: 20,
      productId: "prod_pack",
      monthlyLimit: 10_000,
      currency: "eur",
      updatedAt: ctx.t.clock.now(),
    });
    const grant = await grantOf(ann.id);
    await lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: grant.id, amount: 25_000 }] });
    // 50 credits, 25 held: 25 unreserved. A charge of 6 leaves 19 unreserved (below 20), 44 in all.
    const [crossed] = await spendBatch(db(), [charge({ userId: ann.id, amount: 6000 })]);
    expect(crossed).toMatchObject({
      ok: true,
      balanceAfter: 44_000,
      lowBalanceCrossed: 20_000,
      autoTopUpDue: true,
    });
  });

  it("gives back what a lease's charges did not spend when it ends, once", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const grant = await grantOf(ann.id);
    const leaseId = await lease({
      orgId: ann.id,
      apiKeyId: key.id,
      takes: [{ grantId: grant.id, amount: 3000 }],
    });
    await chargeThrough(leaseId, ann.id, key.id, grant.id, 1000);
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 1000, reserved: 2000 });

    expect(await db().transaction((tx) => endLeases(tx, { apiKeyId: key.id }, "key_changed"))).toBe(1);
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 1000, reserved: 0 });
    expect(await keyMonth(key.id)).toEqual({ apiKeyId: key.id, month: MONTH, amount: 1000, reserved: 0 });
    const [row] = await db().select().from(creditLeases).where(eq(creditLeases.id, leaseId));
    expect(row).toMatchObject({ endedBecause: "key_changed", endedAt: expect.any(Date) });
    // Ended leases are not ended again: nothing is given back twice.
    expect(await db().transaction((tx) => endLeases(tx, { orgId: ann.id }, "credits_changed"))).toBe(0);
    expect(await grantOf(ann.id)).toMatchObject({ reserved: 0 });
  });

  it("gives a member's lease back to their month as well", async () => {
    const owner = await verifiedUser(ctx.t, "owner");
    const orgId = await teamOrg(ctx.t, "Studio", [{ id: owner.id, role: "owner" }]);
    const key = await orgKey(ctx.t, owner.accessToken, owner.id, orgId);
    const ann = await verifiedUser(ctx.t, "ann");
    await db().update(creditGrants).set({ userId: orgId }).where(eq(creditGrants.userId, ann.id));
    const grant = await grantOf(orgId);
    await lease({
      orgId,
      apiKeyId: key.id,
      memberId: owner.id,
      takes: [{ grantId: grant.id, amount: 4000 }],
    });
    expect(
      await db().transaction((tx) => endLeases(tx, { orgId, memberId: owner.id }, "member_changed")),
    ).toBe(1);
    expect(await db().select().from(memberCreditUsage)).toEqual([
      { orgId, userId: owner.id, month: MONTH, amount: 0, reserved: 0 },
    ]);
    expect(await grantOf(orgId)).toMatchObject({ reserved: 0 });
  });

  it("ends only the leases in scope", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const annKey = await createKey(ctx.t, ann.accessToken);
    const annOther = await createKey(ctx.t, ann.accessToken, { name: "Other" });
    const bobKey = await createKey(ctx.t, bob.accessToken);
    const annGrant = await grantOf(ann.id);
    const bobGrant = await grantOf(bob.id);
    const expired = await lease({
      orgId: bob.id,
      apiKeyId: bobKey.id,
      takes: [{ grantId: bobGrant.id, amount: 1000 }],
      expiresAt: new Date(Date.now() - 1000),
    });
    await lease({ orgId: bob.id, apiKeyId: bobKey.id, takes: [{ grantId: bobGrant.id, amount: 2000 }] });
    await lease({ orgId: ann.id, apiKeyId: annKey.id, takes: [{ grantId: annGrant.id, amount: 1000 }] });
    await lease({ orgId: ann.id, apiKeyId: annOther.id, takes: [{ grantId: annGrant.id, amount: 2000 }] });

    const end = (scope: Parameters<typeof endLeases>[1]) =>
      db().transaction((tx) => endLeases(tx, scope, "released"));
    expect(await end({ expired: true })).toBe(1);
    const open = async () =>
      (await db().select().from(creditLeases).where(sql`${creditLeases.endedAt} is null`))
        .map((l) => l.apiKeyId)
        .sort();
    expect(
      (await db().select().from(creditLeases).where(eq(creditLeases.id, expired)))[0]?.endedAt,
    ).not.toBeNull();
    expect(await grantOf(bob.id)).toMatchObject({ reserved: 2000 });
    expect(await end({ apiKeyId: annKey.id })).toBe(1);
    expect(await open()).toEqual([annOther.id, bobKey.id].sort());
    expect(await end({ orgId: ann.id })).toBe(1);
    expect(await open()).toEqual([bobKey.id]);
    expect(await grantOf(ann.id)).toMatchObject({ reserved: 0 });
    expect(await grantOf(bob.id)).toMatchObject({ reserved: 2000 });
  });

  it("refuses a lease whose takes do not make its amount, or that holds more than a grant has left", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const grant = await grantOf(ann.id);
    await expect(
      lease({ orgId: ann.id, apiKeyId: key.id, amount: 2000, takes: [{ grantId: grant.id, amount: 1000 }] }),
    ).rejects.toThrow(/must be positive and sum to its amount/);
    await expect(lease({ orgId: ann.id, apiKeyId: key.id, amount: 0, takes: [] })).rejects.toThrow(
      /sum to its amount/,
    );
    await expect(
      lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: grant.id, amount: FREE + 1 }] }),
    ).rejects.toThrow();
    await expect(
      lease({
        orgId: ann.id,
        apiKeyId: key.id,
        amount: 1000,
        takes: [
          { grantId: grant.id, amount: 1500 },
          { grantId: grant.id, amount: -500 },
        ],
      }),
    ).rejects.toThrow(/must be positive/);
    // A grant of another organisation: refused, not reserved.
    const bob = await verifiedUser(ctx.t, "bob");
    const bobGrant = await grantOf(bob.id);
    await expect(
      lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: bobGrant.id, amount: 1000 }] }),
    ).rejects.toThrow(/not one of its own/);
    expect(await grantOf(bob.id)).toMatchObject({ reserved: 0 });
    // Nothing of the refused lease is left: no row, nothing reserved.
    expect(await db().select().from(creditLeases)).toEqual([]);
    expect(await grantOf(ann.id)).toMatchObject({ reserved: 0 });
    expect(
      await lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: grant.id, amount: FREE }] }),
    ).toEqual(expect.any(String));
  });
});
