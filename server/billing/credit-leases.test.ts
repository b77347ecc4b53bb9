// Credit leases in the database (decision 051): what taking one reserves, how a charge decided under
// the lock counts what leases hold, and what ending leases gives back. No charge is made through a
// lease yet (step 4); a lease's charge is written here as its statement will write it.
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { setLowBalanceThreshold } from "../alerts/low-balance.ts";
import { rearmCapWarning } from "../alerts/member-cap.ts";
import {
  apiKeyUsage,
  autoTopUpSettings,
  creditGrants,
  creditLeases,
  creditSpends,
  memberCreditUsage,
  organizationMembers,
  organizations,
} from "../db/schema/index.ts";
import { toMillicredits } from "../domain/ledger.ts";
import { adminCall, staffMember } from "../testing/admin.ts";
import { createKey } from "../testing/api-access.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { recordingAlerts } from "../testing/latch-alerts.ts";
import { useTestApp } from "../testing/suite.ts";
import { cappedMember, orgKey, teamOrg } from "../testing/team-org.ts";
import { NO_LIMITS, TEST_FREE_CREDITS } from "../testing/test-app.ts";
import { endLeases, type NewLease, takeLease } from "./credit-leases.ts";
import { sweepExpiredLeases } from "./lease-sweep.ts";
import { type SpendRequest, type SpendResult, spendBatch } from "./spends.ts";

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
    memberId?: string,
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
      if (memberId === undefined) return;
      await tx
        .update(memberCreditUsage)
        .set({
          amount: sql`${memberCreditUsage.amount} + ${amount}`,
          reserved: sql`${memberCreditUsage.reserved} - ${amount}`,
        })
        .where(and(eq(memberCreditUsage.userId, memberId), eq(memberCreditUsage.month, MONTH)));
    });
  }

  /** A top-up grant that never expires. */
  const topUp = (orgId: string, amount: number) =>
    db()
      .insert(creditGrants)
      .values({
        id: randomUUID(),
        userId: orgId,
        kind: "topup",
        amount,
        remaining: amount,
        grantedAt: new Date("2026-01-01T00:00:00Z"),
        expiresAt: null,
        source: "pack",
        fulfilmentKey: randomUUID(),
      });

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

  it("counts what a member's leases hold against their cap but not its warning, which waits for what is spent", async () => {
    const { member, orgId, key } = await cappedMember(ctx.t, 10_000);
    await topUp(orgId, 100_000);
    const grant = await grantOf(orgId);
    await lease({
      orgId,
      apiKeyId: key.id,
      memberId: member.id,
      takes: [{ grantId: grant.id, amount: 7000 }],
    });
    expect(
      await db().select().from(memberCreditUsage).where(eq(memberCreditUsage.userId, member.id)),
    ).toEqual([{ orgId, userId: member.id, month: MONTH, amount: 0, reserved: 7000, capWarned: false }]);

    const answers = await spendBatch(db(), [
      charge({ meter: meter(key.id), amount: 1500 }),
      charge({ meter: meter(key.id), amount: 1501 }),
    ]);
    // 7 held + 1.5 spent passes 8 of a 10 cap, but only 1.5 was spent: what is held may go back
    // unspent, so no warning yet (alert latches, decision 051).
    expect(answers[0]).toMatchObject({ ok: true, memberCapNearing: null });
    expect(answers[1]).toEqual({
      ok: false,
      reason: "member_cap",
      memberCap: { orgId, memberId: member.id, month: MONTH, cap: 10_000, used: 1500 },
      // 1.5 spent and 1.501 asked fit the cap: what the lease holds refused it.
      leasesInTheWay: { orgId, memberId: member.id },
    });
  });

  it("decides auto top-up on what no lease holds, the low-balance mail on the whole balance", async () => {
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
    // 50 credits, 25 held: 25 unreserved. A charge of 6 leaves 19 unreserved (below 20), 44 in
    // all: auto top-up is nudged, but no mail would name a balance of 44 as below 20.
    const [crossed] = await spendBatch(db(), [charge({ userId: ann.id, amount: 6000 })]);
    expect(crossed).toMatchObject({
      ok: true,
      balanceAfter: 44_000,
      lowBalanceCrossed: null,
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
      { orgId, userId: owner.id, month: MONTH, amount: 0, reserved: 0, capWarned: false },
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

  describe("alert latches: one mail per fall", () => {
    const crossings = (answers: readonly SpendResult[]) =>
      answers.map((a) => (a.ok ? a.lowBalanceCrossed : a.reason));
    const nearing = (answers: readonly SpendResult[]) =>
      answers.map((a) => (a.ok ? a.memberCapNearing : a.reason));
    const latchOf = async (orgId: string) =>
      (await db().select().from(organizations).where(eq(organizations.id, orgId)))[0]?.lowBalanceAlerted;
    const alertAt = (orgId: string, threshold: number) =>
      setLowBalanceThreshold(db(), orgId, threshold, ctx.t.clock.now());

    it("mails once for one fall, though a lease ended unspent between the charges", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const key = await createKey(ctx.t, ann.accessToken);
      await alertAt(ann.id, 20_000);
      const grant = await grantOf(ann.id);
      await lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: grant.id, amount: 25_000 }] });
      // 19 unreserved, 44 in all: not below 20.
      const first = await spendBatch(db(), [charge({ userId: ann.id, amount: 6000 })]);
      await db().transaction((tx) => endLeases(tx, { apiKeyId: key.id }, "released"));
      // The lease gave its 25 back: 44 unreserved, then 19.
      const second = await spendBatch(db(), [charge({ userId: ann.id, amount: 25_000 })]);
      const third = await spendBatch(db(), [charge({ userId: ann.id, amount: 1000 })]);
      expect(crossings([...first, ...second, ...third])).toEqual([null, 20_000, null]);
      expect(second[0]).toMatchObject({ balanceAfter: 19_000 });
    });

    it("mails once for two charges crossing in one batch, and not again in the next", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      await alertAt(ann.id, 20_000);
      const batch = await spendBatch(db(), [
        charge({ userId: ann.id, amount: 31_000 }),
        charge({ userId: ann.id, amount: 1000 }),
      ]);
      expect(crossings(batch)).toEqual([20_000, null]);
      expect(await latchOf(ann.id)).toBe(true);
      expect(crossings(await spendBatch(db(), [charge({ userId: ann.id, amount: 1000 })]))).toEqual([null]);
    });

    it("mails again for a new fall once credits were added", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      await alertAt(ann.id, 20_000);
      const fell = await spendBatch(db(), [charge({ userId: ann.id, amount: 31_000 })]);
      await topUp(ann.id, 50_000);
      // 69 credits: the next charge sees the balance back above 20 and clears the latch.
      const back = await spendBatch(db(), [charge({ userId: ann.id, amount: 1000 })]);
      expect(await latchOf(ann.id)).toBe(false);
      const again = await spendBatch(db(), [charge({ userId: ann.id, amount: 49_000 })]);
      expect(crossings([...fell, ...back, ...again])).toEqual([20_000, null, 20_000]);
    });

    it("mails a new fall after staff added credits while a lease held some", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const key = await createKey(ctx.t, ann.accessToken);
      const ada = await staffMember(ctx.t, "ada", "admin");
      await alertAt(ann.id, 30_000);
      const grant = await grantOf(ann.id);
      await lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: grant.id, amount: 15_000 }] });
      // Under the lock: 28 of 50 left, 13 of them unreserved: the fall is mailed.
      const fell = await spendBatch(db(), [charge({ userId: ann.id, amount: 22_000 })]);
      const granted = await adminCall(ctx.t, `/v1/admin/customers/${ann.id}/credits`, ada.accessToken, {
        amount: 10,
        reason: "Goodwill",
        idempotency_key: "goodwill",
      });
      expect(granted.status).toBe(201);
      // 38 credits, none held any more: the next charge sees the balance back and clears the latch.
      const back = await spendBatch(db(), [charge({ userId: ann.id, amount: 1000 })]);
      expect(await latchOf(ann.id)).toBe(false);
      const again = await spendBatch(db(), [charge({ userId: ann.id, amount: 8000 })]);
      expect(crossings([...fell, ...back, ...again])).toEqual([30_000, null, 30_000]);
      expect(again[0]).toMatchObject({ balanceAfter: 29_000 });
    });

    it("mails nothing at the next charge when the alert was set above the balance, and ends the leases", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const key = await createKey(ctx.t, ann.accessToken);
      const grant = await grantOf(ann.id);
      await lease({ orgId: ann.id, apiKeyId: key.id, takes: [{ grantId: grant.id, amount: 10_000 }] });
      await alertAt(ann.id, 100_000);
      expect(await latchOf(ann.id)).toBe(true);
      expect(await grantOf(ann.id)).toMatchObject({ reserved: 0 });
      expect(crossings(await spendBatch(db(), [charge({ userId: ann.id, amount: 1000 })]))).toEqual([null]);
      // Set below the balance: the next fall mails.
      await alertAt(ann.id, 40_000);
      expect(await latchOf(ann.id)).toBe(false);
      expect(crossings(await spendBatch(db(), [charge({ userId: ann.id, amount: 9500 })]))).toEqual([40_000]);
    });

    it("mails a fall a lease's charges made when the sweep ends the lease, once", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const key = await createKey(ctx.t, ann.accessToken);
      await alertAt(ann.id, 20_000);
      const grant = await grantOf(ann.id);
      const leaseId = await lease({
        orgId: ann.id,
        apiKeyId: key.id,
        takes: [{ grantId: grant.id, amount: 25_000 }],
        expiresAt: new Date(Date.now() - 1000),
      });
      // Under the lock: 19 unreserved, 44 in all, no mail. The lease's charges then take all 25.
      expect(crossings(await spendBatch(db(), [charge({ userId: ann.id, amount: 6000 })]))).toEqual([null]);
      await chargeThrough(leaseId, ann.id, key.id, grant.id, 25_000);
      const { alerts, mails } = recordingAlerts(ctx.t.clock);
      expect(await sweepExpiredLeases(db(), undefined, alerts)).toBe(1);
      expect(await sweepExpiredLeases(db(), undefined, alerts)).toBe(0);
      expect(mails).toEqual([[ann.id, 20_000, 19_000]]);
      expect(crossings(await spendBatch(db(), [charge({ userId: ann.id, amount: 1000 })]))).toEqual([null]);
    });

    async function cappedWithCredits(cap: number) {
      const capped = await cappedMember(ctx.t, cap);
      await topUp(capped.orgId, 100_000);
      return { ...capped, grant: await grantOf(capped.orgId) };
    }

    it("warns a member once, when what was spent passes the mark, naming what was spent", async () => {
      const { member, orgId, key, grant } = await cappedWithCredits(10_000);
      const leaseId = await lease({
        orgId,
        apiKeyId: key.id,
        memberId: member.id,
        takes: [{ grantId: grant.id, amount: 7000 }],
      });
      await chargeThrough(leaseId, orgId, key.id, grant.id, 6000, member.id);
      // 7.5 spent and 1 held: past 8 counted, not spent.
      const below = await spendBatch(db(), [charge({ meter: meter(key.id), amount: 1500 })]);
      const crossing = await spendBatch(db(), [
        charge({ meter: meter(key.id), amount: 600 }),
        charge({ meter: meter(key.id), amount: 100 }),
      ]);
      const after = await spendBatch(db(), [charge({ meter: meter(key.id), amount: 100 })]);
      const event = { orgId, memberId: member.id, month: MONTH, cap: 10_000 };
      expect(nearing([...below, ...crossing, ...after])).toEqual([
        null,
        { ...event, used: 8100 },
        null,
        null,
      ]);

      // A cap raised re-arms the warning: the new mark's crossing warns again.
      await db()
        .update(organizationMembers)
        .set({ monthlyCreditCap: 20_000 })
        .where(eq(organizationMembers.userId, member.id));
      await db().transaction((tx) =>
        rearmCapWarning(tx, { orgId, memberId: member.id, month: MONTH, cap: 20_000 }),
      );
      const raised = await spendBatch(db(), [
        charge({ meter: meter(key.id), amount: 7700 }),
        charge({ meter: meter(key.id), amount: 1 }),
      ]);
      // 8.3 spent: 16 is the new mark, 16.001 passes it.
      expect(nearing(raised)).toEqual([null, { ...event, cap: 20_000, used: 16_001 }]);
    });

    it("warns a member when the sweep ends a lease whose charges passed the mark", async () => {
      const { member, orgId, key, grant } = await cappedWithCredits(10_000);
      const leaseId = await lease({
        orgId,
        apiKeyId: key.id,
        memberId: member.id,
        takes: [{ grantId: grant.id, amount: 9000 }],
        expiresAt: new Date(Date.now() - 1000),
      });
      await chargeThrough(leaseId, orgId, key.id, grant.id, 8500, member.id);
      const { alerts, mails } = recordingAlerts(ctx.t.clock);
      expect(await sweepExpiredLeases(db(), undefined, alerts)).toBe(1);
      expect(mails).toEqual([{ orgId, memberId: member.id, month: MONTH, cap: 10_000, used: 8500 }]);
      expect(nearing(await spendBatch(db(), [charge({ meter: meter(key.id), amount: 100 })]))).toEqual([
        null,
      ]);
    });
  });
});
