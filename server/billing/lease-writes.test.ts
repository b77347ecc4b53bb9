// The statement that writes charges made through credit leases (decision 051, step 4): written only
// while the lease is open and unexpired, and then exactly as a charge under the lock writes.
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import {
  apiKeyUsage,
  creditGrants,
  creditSpends,
  memberCreditUsage,
  organizationMembers,
  usageDaily,
} from "../db/schema/index.ts";
import { toMillicredits } from "../domain/ledger.ts";
import { createKey } from "../testing/api-access.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { holdGrantRow } from "../testing/held-row.ts";
import { useTestApp } from "../testing/suite.ts";
import { orgKey, teamOrg } from "../testing/team-org.ts";
import { NO_LIMITS, TEST_FREE_CREDITS } from "../testing/test-app.ts";
import { endLeases, takeLease } from "./credit-leases.ts";
import { type LeaseCharge, writeLeaseCharges } from "./lease-writes.ts";

const MONTH = "2026-11-01";
const FREE = toMillicredits(TEST_FREE_CREDITS);

/** The suite's helpers on `ctx`'s database: a grant, a lease taken on it, a charge through it. */
function writeHelpers(ctx: ReturnType<typeof useTestApp>) {
  const db = () => ctx.t.deps.db;
  async function grantOf(orgId: string) {
    const [grant] = await db().select().from(creditGrants).where(eq(creditGrants.userId, orgId));
    if (!grant) throw new Error("no grant");
    return grant;
  }

  async function lease(orgId: string, apiKeyId: string, grantId: string, amount: number, over = {}) {
    return db().transaction((tx) =>
      takeLease(tx, {
        orgId,
        apiKeyId,
        memberId: null,
        month: MONTH,
        amount,
        takes: [{ grantId, amount }],
        holder: "test",
        now: ctx.t.clock.now(),
        expiresAt: new Date(Date.now() + 60_000),
        ...over,
      }),
    );
  }

  function charge(
    leaseId: string,
    orgId: string,
    apiKeyId: string,
    grantId: string,
    amount: number,
    over: Partial<LeaseCharge> = {},
  ): LeaseCharge {
    return {
      leaseId,
      spendId: randomUUID(),
      orgId,
      apiKeyId,
      memberId: null,
      amount,
      takes: [{ grantId, amount }],
      reason: "Comic × 1 (one person)",
      idempotencyKey: randomUUID(),
      feature: "comic",
      people: "one",
      quantity: 1,
      month: MONTH,
      day: "2026-11-20",
      createdAt: ctx.t.clock.now(),
      ordinal: 0,
      ...over,
    };
  }
  return { db, grantOf, lease, charge };
}

describe.each(TEST_DATABASES)("writeLeaseCharges (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const { db, grantOf, lease, charge } = writeHelpers(ctx);

  it("writes what a charge under the lock writes, taking from the reservation too", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const grant = await grantOf(ann.id);
    const leaseId = await lease(ann.id, key.id, grant.id, 5000);
    const first = charge(leaseId, ann.id, key.id, grant.id, 1000);
    const second = charge(leaseId, ann.id, key.id, grant.id, 2000, { ordinal: 1, quantity: 2 });
    const answer = await writeLeaseCharges(db(), [first, second], ctx.t.clock.now());
    expect(answer).toEqual({ written: new Set([leaseId]), balances: new Map([[ann.id, FREE]]) });

    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 3000, reserved: 2000 });
    const spends = await db().select().from(creditSpends).where(eq(creditSpends.leaseId, leaseId));
    expect(
      spends.map((s) => [s.id, s.amount, s.balanceAfter, s.takes, s.apiKeyId, s.quantity]).sort(),
    ).toEqual(
      [
        [first.spendId, 1000, FREE - 1000, first.takes, key.id, 1],
        [second.spendId, 2000, FREE - 3000, second.takes, key.id, 2],
      ].sort(),
    );
    expect(await db().select().from(apiKeyUsage)).toEqual([
      { apiKeyId: key.id, month: MONTH, amount: 3000, reserved: 2000 },
    ]);
    expect(await db().select().from(usageDaily)).toEqual([
      { userId: ann.id, day: "2026-11-20", feature: "comic", apiKeyId: key.id, uses: 3, credits: 3000 },
    ]);
  });

  it("writes nothing for a lease that has ended or whose time is up, and the rest of the batch all the same", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const annKey = await createKey(ctx.t, ann.accessToken);
    const bobKey = await createKey(ctx.t, bob.accessToken);
    const annGrant = await grantOf(ann.id);
    const bobGrant = await grantOf(bob.id);
    const ended = await lease(ann.id, annKey.id, annGrant.id, 5000);
    await db().transaction((tx) => endLeases(tx, { apiKeyId: annKey.id }, "key_changed"));
    const expired = await lease(ann.id, annKey.id, annGrant.id, 1000, {
      expiresAt: new Date(ctx.t.clock.now().getTime() - 1),
    });
    const open = await lease(bob.id, bobKey.id, bobGrant.id, 5000);

    const answer = await writeLeaseCharges(
      db(),
      [
        charge(ended, ann.id, annKey.id, annGrant.id, 1000),
        charge(expired, ann.id, annKey.id, annGrant.id, 1000),
        charge(open, bob.id, bobKey.id, bobGrant.id, 1000),
      ],
      ctx.t.clock.now(),
    );
    expect(answer.written).toEqual(new Set([open]));
    expect((await db().select().from(creditSpends)).map((s) => s.leaseId)).toEqual([open]);
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE, reserved: 1000 });
    expect(await grantOf(bob.id)).toMatchObject({ remaining: FREE - 1000, reserved: 4000 });
  });

  it("fails whole, writing nothing, when an idempotency key was already used", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const grant = await grantOf(ann.id);
    const leaseId = await lease(ann.id, key.id, grant.id, 5000);
    await writeLeaseCharges(
      db(),
      [charge(leaseId, ann.id, key.id, grant.id, 1000, { idempotencyKey: "once" })],
      ctx.t.clock.now(),
    );
    await expect(
      writeLeaseCharges(
        db(),
        [
          charge(leaseId, ann.id, key.id, grant.id, 1000),
          charge(leaseId, ann.id, key.id, grant.id, 1000, { idempotencyKey: "once" }),
        ],
        ctx.t.clock.now(),
      ),
    ).rejects.toThrow();
    expect(await db().select().from(creditSpends)).toHaveLength(1);
    expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE - 1000, reserved: 4000 });
  });

  it("adds the charges of two keys of one member to the member's month once", async () => {
    const owner = await verifiedUser(ctx.t, "owner");
    const orgId = await teamOrg(ctx.t, "Studio", [{ id: owner.id, role: "owner" }]);
    await db().update(organizationMembers).set({ monthlyCreditCap: 100_000 });
    const one = await orgKey(ctx.t, owner.accessToken, owner.id, orgId, { name: "One" });
    const two = await orgKey(ctx.t, owner.accessToken, owner.id, orgId, { name: "Two" });
    await db().update(creditGrants).set({ userId: orgId }).where(eq(creditGrants.userId, owner.id));
    const grant = await grantOf(orgId);
    const leaseOne = await lease(orgId, one.id, grant.id, 3000, { memberId: owner.id });
    const leaseTwo = await lease(orgId, two.id, grant.id, 3000, { memberId: owner.id });
    await writeLeaseCharges(
      db(),
      [
        charge(leaseOne, orgId, one.id, grant.id, 1000, { memberId: owner.id }),
        charge(leaseTwo, orgId, two.id, grant.id, 2000, { memberId: owner.id, ordinal: 1 }),
      ],
      ctx.t.clock.now(),
    );
    expect(await db().select().from(memberCreditUsage)).toMatchObject([
      { orgId, userId: owner.id, month: MONTH, amount: 3000, reserved: 3000 },
    ]);
    expect(await grantOf(orgId)).toMatchObject({ remaining: FREE - 3000, reserved: 3000 });
  });
});

// Two sessions at once: PostgreSQL only (PGlite is one session, and waits for no lock).
describe.runIf(TEST_DATABASES.includes("postgres"))(
  "writeLeaseCharges, a row held by another session (postgres)",
  () => {
    const ctx = useTestApp("postgres", { limits: NO_LIMITS });
    const { db, grantOf, lease, charge } = writeHelpers(ctx);

    it("gives up, writing nothing, when a row it needs stays locked past its lock timeout", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const key = await createKey(ctx.t, ann.accessToken);
      const grant = await grantOf(ann.id);
      const leaseId = await lease(ann.id, key.id, grant.id, 5000);
      const held = await holdGrantRow(ctx.database.url as string, grant.id);
      try {
        const started = Date.now();
        const write = writeLeaseCharges(
          db(),
          [charge(leaseId, ann.id, key.id, grant.id, 1000)],
          ctx.t.clock.now(),
          200,
        );
        await expect(write).rejects.toMatchObject({ code: "55P03" });
        expect(Date.now() - started).toBeLessThan(2000);
        held.release();
        expect(await db().select().from(creditSpends)).toHaveLength(0);
        expect(await grantOf(ann.id)).toMatchObject({ remaining: FREE, reserved: 5000 });
        // The timeout was the statement's own: the connection waits as long as it did before.
        const shown = await db().execute(sql`show lock_timeout`);
        expect(Array.isArray(shown) ? shown[0] : shown).toEqual({ lock_timeout: "0" });
        const answer = await writeLeaseCharges(
          db(),
          [charge(leaseId, ann.id, key.id, grant.id, 1000)],
          ctx.t.clock.now(),
        );
        expect(answer.written).toEqual(new Set([leaseId]));
      } finally {
        await held.end();
      }
    });
  },
);
