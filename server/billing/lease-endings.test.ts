// What ends credit leases (decision 051, step 3): every change a lease's decisions depend on, or that
// takes credits from grants or adds them, ends the leases it touches in its own transaction and
// gives back what they hold, through the real routes; a lease of another key or organisation stays
// open. And the sweep, which ends the leases past their end.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Logger } from "pino";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { apiKeyUsage, creditGrants, creditLeases, invoices, memberCreditUsage } from "../db/schema/index.ts";
import { toMillicredits } from "../domain/ledger.ts";
import { adminCall, customerPayments, staffMember } from "../testing/admin.ts";
import { createKey } from "../testing/api-access.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { saveCard, spendAsStaff, turnOn } from "../testing/auto-top-up.ts";
import { me, openTopUpCheckout, payAndSettle, subscribe } from "../testing/billing.ts";
import { call, type Person } from "../testing/org-calls.ts";
import { useTestApp } from "../testing/suite.ts";
import { orgKey, teamOrg } from "../testing/team-org.ts";
import { NO_LIMITS, TEST_FREE_CREDITS, type TestApp } from "../testing/test-app.ts";
import { callAs } from "../testing/two-factor.ts";
import { type LeaseEnd, takeLease } from "./credit-leases.ts";
import { endLeaseCheckingLatches, startLeaseSweep, sweepExpiredLeases } from "./lease-sweep.ts";
import { insertGrant } from "./ledger-store.ts";

const MONTH = "2026-11-01";
const FREE = toMillicredits(TEST_FREE_CREDITS);
const REASON = "Lease endings test";
/** A request from this machine (the development routes answer only those). */
const LOOPBACK = {
  incoming: { socket: { remoteAddress: "127.0.0.1", remotePort: 50000, remoteFamily: "IPv4" } },
};

/** A lease to take: on `grantId`, for `apiKeyId` of `orgId` (and `memberId`'s cap). */
interface LeaseSpec {
  orgId: string;
  apiKeyId: string;
  memberId?: string;
  grantId: string;
  amount: number;
  /** Already past its end (the sweep's). */
  expired?: boolean;
  /** Why the change ends it, when not the case's own reason. */
  because?: LeaseEnd;
}

/** What a case sets up: the leases its change must end, those it must leave open, and the change. */
interface Arranged {
  ended: LeaseSpec[];
  kept: LeaseSpec[];
  change: () => Promise<void>;
}

async function grantOf(t: TestApp, orgId: string, kind?: "topup") {
  const rows = await t.deps.db.select().from(creditGrants).where(eq(creditGrants.userId, orgId));
  const grant = rows.find((g) => kind === undefined || g.kind === kind);
  if (!grant) throw new Error(`no grant of ${orgId}`);
  return grant;
}

/** A grant of 100 credits to a team organisation (teams get no free credits); its id. */
async function fundTeam(t: TestApp, orgId: string) {
  const fulfilmentKey = randomUUID();
  const grant = { kind: "topup", amount: 100_000, source: "pack", fulfilmentKey } as const;
  await insertGrant(t.deps.db, orgId, { ...grant, grantedAt: t.clock.now(), expiresAt: null }, NO_ORIGIN);
  return (await grantOf(t, orgId)).id;
}
const NO_ORIGIN = { paymentReference: null, eventId: null };

/** A person with a personal key and a lease's worth of their free credits: someone else's lease. */
async function bystander(t: TestApp, name: string): Promise<LeaseSpec> {
  return (await personWithLease(t, name, 1000)).lease;
}

async function expectOk(res: Response, status = 200) {
  expect(res.status, await res.clone().text()).toBe(status);
}

/** A person with a key, and a lease of `amount` on their free credits (to end, or to stay open). */
async function personWithLease(t: TestApp, name: string, amount: number) {
  const person = await verifiedUser(t, name);
  const key = await createKey(t, person.accessToken);
  const grantId = (await grantOf(t, person.id)).id;
  return { person, lease: { orgId: person.id, apiKeyId: key.id, grantId, amount } };
}

/** Ann with two keys: a lease of the first is to end, one of the other to stay open. */
async function personWithTwoKeys(t: TestApp) {
  const person = await verifiedUser(t, "ann");
  const key = await createKey(t, person.accessToken);
  const other = await createKey(t, person.accessToken, { name: "Other" });
  const grantId = (await grantOf(t, person.id)).id;
  return {
    person,
    key,
    ended: [{ orgId: person.id, apiKeyId: key.id, grantId, amount: 4000 }],
    kept: [{ orgId: person.id, apiKeyId: other.id, grantId, amount: 1000 }],
  };
}

type Team = Awaited<ReturnType<typeof team>>;

/** A team with owner Olive and developer Dev, 100 credits, a key of Dev's and a shared key of Olive's. */
async function team(t: TestApp) {
  const olive = await verifiedUser(t, "olive");
  const dev = await verifiedUser(t, "dev");
  const orgId = await teamOrg(t, "Studio", [
    { id: olive.id, role: "owner" },
    { id: dev.id, role: "developer" },
  ]);
  const grantId = await fundTeam(t, orgId);
  const devKey = await orgKey(t, dev.accessToken, dev.id, orgId);
  const sharedKey = await orgKey(t, olive.accessToken, olive.id, orgId, { name: "Shared", shared: true });
  const devLease: LeaseSpec = { orgId, apiKeyId: devKey.id, memberId: dev.id, grantId, amount: 3000 };
  const sharedLease: LeaseSpec = { orgId, apiKeyId: sharedKey.id, grantId, amount: 2000 };
  return { olive, dev, orgId, grantId, devLease, sharedLease };
}

/** The kinds of change, each with the leases it ends and those it leaves. */
const CASES: { name: string; because: LeaseEnd; arrange: (t: TestApp) => Promise<Arranged> }[] = [
  {
    name: "a key revoked by its organisation",
    because: "key_changed",
    async arrange(t) {
      const { person, key, ended, kept } = await personWithTwoKeys(t);
      return {
        ended,
        kept,
        change: async () =>
          expectOk(await call(t, "DELETE", `/v1/api-keys/${key.id}`, person.accessToken), 204),
      };
    },
  },
  {
    name: "every key its maker made, revoked at once",
    because: "key_changed",
    async arrange(t) {
      const { dev, devLease, sharedLease } = await team(t);
      const personal = await createKey(t, dev.accessToken, { name: "Own" });
      const own: LeaseSpec = {
        orgId: dev.id,
        apiKeyId: personal.id,
        grantId: (await grantOf(t, dev.id)).id,
        amount: 2000,
      };
      return {
        // Olive's shared key in the team is not Dev's.
        ended: [devLease, own],
        kept: [sharedLease],
        change: async () => expectOk(await call(t, "POST", "/v1/api-keys/revoke-all", dev.accessToken)),
      };
    },
  },
  {
    name: "a key revoked by staff",
    because: "key_changed",
    async arrange(t) {
      const { key, ended, kept } = await personWithTwoKeys(t);
      const sue = await staffMember(t, "sue", "support");
      return {
        ended,
        kept,
        change: async () =>
          expectOk(
            await adminCall(t, `/v1/admin/api-keys/${key.id}`, sue.accessToken, { reason: REASON }, "DELETE"),
          ),
      };
    },
  },
  ...(
    [
      ["a member removed", "DELETE", (team) => team.olive, undefined],
      ["a member leaving", "DELETE", (team) => team.dev, undefined],
      ["a member's monthly cap changed", "PATCH", (team) => team.olive, { monthly_credit_cap: 20 }],
      ["a member's role changed", "PATCH", (team) => team.olive, { role: "manager" }],
    ] as const satisfies readonly [string, string, (team: Team) => Person, unknown][]
  ).map(([name, method, caller, body]) => ({
    name,
    because: "member_changed" as const,
    async arrange(t: TestApp): Promise<Arranged> {
      const members = await team(t);
      const path = `/v1/orgs/${members.orgId}/members/${members.dev.id}`;
      return {
        // Dev's lease ends; the shared key's, counted against no member, stays.
        ended: [members.devLease],
        kept: [members.sharedLease],
        change: async () => expectOk(await call(t, method, path, caller(members).accessToken, body)),
      };
    },
  })),
  {
    name: "an organisation disabled by staff",
    because: "organization_changed",
    async arrange(t) {
      const { orgId, devLease, sharedLease } = await team(t);
      const ada = await staffMember(t, "ada", "admin");
      return {
        ended: [devLease, sharedLease],
        kept: [],
        change: async () =>
          expectOk(
            await adminCall(t, `/v1/admin/orgs/${orgId}/disable`, ada.accessToken, { reason: REASON }),
          ),
      };
    },
  },
  {
    name: "a person disabled by staff: their organisation's leases and theirs as a member",
    because: "organization_changed",
    async arrange(t) {
      const { dev, devLease, sharedLease } = await team(t);
      const ada = await staffMember(t, "ada", "admin");
      const key = await createKey(t, dev.accessToken, { name: "Own" });
      const own = { orgId: dev.id, apiKeyId: key.id, grantId: (await grantOf(t, dev.id)).id, amount: 2000 };
      return {
        ended: [own, { ...devLease, because: "member_changed" }],
        kept: [sharedLease],
        change: async () =>
          expectOk(
            await adminCall(t, `/v1/admin/customers/${dev.id}/disable`, ada.accessToken, { reason: REASON }),
          ),
      };
    },
  },
  {
    name: "an organisation deleted: its credits forfeited",
    because: "organization_changed",
    async arrange(t) {
      const { olive, orgId, grantId, devLease, sharedLease } = await team(t);
      return {
        // All of the grant held: the forfeit takes what the leases held too.
        ended: [
          { ...devLease, amount: 60_000 },
          { ...sharedLease, amount: 40_000 },
        ],
        kept: [],
        change: async () => {
          expectOk(
            await call(t, "DELETE", `/v1/orgs/${orgId}`, olive.accessToken, { confirm_forfeit: true }),
            204,
          );
          expect(
            (await t.deps.db.select().from(creditGrants).where(eq(creditGrants.id, grantId)))[0],
          ).toMatchObject({ remaining: 0 });
        },
      };
    },
  },
  {
    name: "an account deleted",
    because: "organization_changed",
    async arrange(t) {
      const ann = await verifiedUser(t, "ann");
      const key = await createKey(t, ann.accessToken);
      const grantId = (await grantOf(t, ann.id)).id;
      return {
        ended: [{ orgId: ann.id, apiKeyId: key.id, grantId, amount: 4000 }],
        kept: [],
        change: async () =>
          expectOk(await callAs(t, "/v1/users/me", ann.accessToken, { confirm: "ann" }, "DELETE")),
      };
    },
  },
  {
    name: "credits taken back by staff from a person",
    because: "credits_changed",
    async arrange(t) {
      const ann = await verifiedUser(t, "ann");
      const ada = await staffMember(t, "ada", "admin");
      const key = await createKey(t, ann.accessToken);
      const grantId = (await grantOf(t, ann.id)).id;
      return {
        // Every credit but one held: taking all back needs those the lease held.
        ended: [{ orgId: ann.id, apiKeyId: key.id, grantId, amount: FREE - 1000 }],
        kept: [],
        change: async () =>
          expectOk(
            await adminCall(t, `/v1/admin/customers/${ann.id}/credits`, ada.accessToken, {
              amount: -TEST_FREE_CREDITS,
              reason: REASON,
              idempotency_key: "take-back",
            }),
            201,
          ),
      };
    },
  },
  {
    name: "credits taken back by staff from an organisation",
    because: "credits_changed",
    async arrange(t) {
      const { orgId, devLease, sharedLease } = await team(t);
      const ada = await staffMember(t, "ada", "admin");
      return {
        ended: [{ ...devLease, amount: 90_000 }, sharedLease],
        kept: [],
        change: async () =>
          expectOk(
            await adminCall(t, `/v1/admin/orgs/${orgId}/credits`, ada.accessToken, {
              amount: -100,
              reason: REASON,
              idempotency_key: "take-back",
            }),
            201,
          ),
      };
    },
  },
  {
    name: "a credit pack bought",
    because: "credits_changed",
    async arrange(t) {
      const { person: cora, lease } = await personWithLease(t, "cora", 4000);
      await subscribe(t, cora.accessToken, "A");
      return {
        ended: [lease],
        kept: [],
        change: async () => {
          await payAndSettle(t, await openTopUpCheckout(t, cora.accessToken, "500"));
          expect(await grantOf(t, cora.id, "topup")).toMatchObject({ amount: 500_000 });
        },
      };
    },
  },
  {
    name: "credits granted by staff",
    because: "credits_changed",
    async arrange(t) {
      const { person: ann, lease } = await personWithLease(t, "ann", 4000);
      const ada = await staffMember(t, "ada", "admin");
      const path = `/v1/admin/customers/${ann.id}/credits`;
      const body = { amount: 10, reason: REASON, idempotency_key: "goodwill" };
      return {
        ended: [lease],
        kept: [],
        change: async () => expectOk(await adminCall(t, path, ada.accessToken, body), 201),
      };
    },
  },
  {
    name: "an automatic top-up paid",
    because: "credits_changed",
    async arrange(t) {
      // One credit held: the charge below, to 50 of the 1,050 credits, needs none of it.
      const { person: ann, lease } = await personWithLease(t, "ann", 1000);
      const ada = await staffMember(t, "ada", "admin");
      await subscribe(t, ann.accessToken, "A");
      const card = await saveCard(t, ann.id, ann.id);
      await turnOn(t, ann.id, card.paymentMethodId);
      return {
        ended: [lease],
        kept: [],
        change: async () => {
          await expectOk(await spendAsStaff(t, ada.accessToken, ann.id, 1000, "below-threshold"));
          expect(await grantOf(t, ann.id, "topup")).toMatchObject({ amount: 500_000 });
        },
      };
    },
  },
  {
    name: "a refund of the credit pack a lease holds",
    because: "credits_changed",
    async arrange(t) {
      const cora = await verifiedUser(t, "cora");
      const ada = await staffMember(t, "ada", "admin");
      await subscribe(t, cora.accessToken, "A");
      await payAndSettle(t, await openTopUpCheckout(t, cora.accessToken, "500"));
      const key = await createKey(t, cora.accessToken);
      const pack = await grantOf(t, cora.id, "topup");
      const [payment] = await customerPayments(t, cora.id, ada.accessToken);
      if (!payment) throw new Error("no payment");
      return {
        // The whole pack held: the refund takes it all back.
        ended: [{ orgId: cora.id, apiKeyId: key.id, grantId: pack.id, amount: pack.remaining }],
        kept: [],
        change: async () => {
          const before = (await me(t, cora.accessToken)).credit_balance;
          expectOk(
            await adminCall(t, `/v1/admin/payments/${payment.id}/refund`, ada.accessToken, {
              reason: REASON,
              idempotency_key: "refund",
            }),
            202,
          );
          await t.local.runJob();
          await t.tasks.idle();
          const [row] = await t.deps.db.select().from(invoices).where(eq(invoices.id, payment.id));
          expect(row?.status).toBe("refunded");
          expect((await me(t, cora.accessToken)).credit_balance).toBe(before - 500);
        },
      };
    },
  },
  {
    name: "a dispute of the credit pack a lease holds: its credits frozen",
    because: "credits_changed",
    async arrange(t) {
      const cora = await verifiedUser(t, "cora");
      await subscribe(t, cora.accessToken, "A");
      await payAndSettle(t, await openTopUpCheckout(t, cora.accessToken, "500"));
      const key = await createKey(t, cora.accessToken);
      const pack = await grantOf(t, cora.id, "topup");
      const [paid] = await t.deps.db
        .select()
        .from(invoices)
        .where(and(eq(invoices.userId, cora.id), eq(invoices.fulfilmentKey, pack.fulfilmentKey)));
      return {
        ended: [{ orgId: cora.id, apiKeyId: key.id, grantId: pack.id, amount: pack.remaining }],
        kept: [],
        change: async () => {
          const opened = await t.app.request(
            "/_dev/billing/disputes",
            {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ invoice_number: paid?.number }),
            },
            LOOPBACK as unknown as Record<string, unknown>,
          );
          await expectOk(opened, 201);
          await t.tasks.idle();
          const [row] = await t.deps.db
            .select()
            .from(invoices)
            .where(eq(invoices.id, paid?.id ?? ""));
          expect(row?.status).toBe("disputed");
          expect((await grantOf(t, cora.id, "topup")).frozen).toBe(pack.remaining);
        },
      };
    },
  },
];

describe.each(TEST_DATABASES)("what ends credit leases (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const db = () => ctx.t.deps.db;

  async function take(spec: LeaseSpec): Promise<string> {
    const now = ctx.t.clock.now();
    return db().transaction((tx) =>
      takeLease(tx, {
        orgId: spec.orgId,
        apiKeyId: spec.apiKeyId,
        memberId: spec.memberId ?? null,
        month: MONTH,
        amount: spec.amount,
        takes: [{ grantId: spec.grantId, amount: spec.amount }],
        holder: "test",
        now,
        expiresAt: new Date(Date.now() + (spec.expired ? -1000 : 60_000)),
      }),
    );
  }
  const leaseRow = async (id: string) =>
    (await db().select().from(creditLeases).where(eq(creditLeases.id, id)))[0];
  const reservedOnGrant = async (grantId: string) =>
    (await db().select().from(creditGrants).where(eq(creditGrants.id, grantId)))[0]?.reserved;
  const reservedOfKey = async (apiKeyId: string) =>
    (await db().select().from(apiKeyUsage).where(eq(apiKeyUsage.apiKeyId, apiKeyId)))[0]?.reserved;
  const reservedOfMember = async (orgId: string, memberId: string) =>
    (
      await db()
        .select()
        .from(memberCreditUsage)
        .where(and(eq(memberCreditUsage.orgId, orgId), eq(memberCreditUsage.userId, memberId)))
    )[0]?.reserved;

  /** Ended for `because`, and nothing of it reserved any more (its grant's other leases aside). */
  async function expectEnded(id: string, spec: LeaseSpec, because: LeaseEnd) {
    expect(await leaseRow(id)).toMatchObject({ endedAt: expect.any(Date), endedBecause: because });
    expect(await reservedOfKey(spec.apiKeyId)).toBe(0);
    if (spec.memberId) expect(await reservedOfMember(spec.orgId, spec.memberId)).toBe(0);
  }
  async function expectOpen(id: string, spec: LeaseSpec) {
    expect(await leaseRow(id)).toMatchObject({ endedAt: null, endedBecause: null });
    expect(await reservedOfKey(spec.apiKeyId)).toBe(spec.amount);
  }

  it.each(CASES)("$name ends its leases ($because)", async ({ because, arrange }) => {
    const other = await bystander(ctx.t, "zed");
    const { ended, kept, change } = await arrange(ctx.t);
    const endedIds = [];
    for (const spec of ended) endedIds.push(await take(spec));
    const keptIds = [];
    for (const spec of [...kept, other]) keptIds.push(await take(spec));

    await change();

    for (const [i, spec] of ended.entries()) {
      await expectEnded(endedIds[i] as string, spec, spec.because ?? because);
    }
    for (const [i, spec] of [...kept, other].entries()) await expectOpen(keptIds[i] as string, spec);
    // Each grant keeps reserved what the leases left open hold, no more.
    const grants = new Set([...ended, ...kept, other].map((s) => s.grantId));
    for (const grantId of grants) {
      const held = [...kept, other]
        .filter((s) => s.grantId === grantId)
        .reduce((sum, s) => sum + s.amount, 0);
      expect(await reservedOnGrant(grantId)).toBe(held);
    }
  });

  it("ends a lease whose latch check failed, and logs the failure", async () => {
    const ann = await bystander(ctx.t, "ann");
    const id = await take(ann);
    const logged: unknown[] = [];
    const logger = { error: (...args: unknown[]) => logged.push(args) } as unknown as Logger;
    const failing = {
      clock: {
        now: () => {
          throw new Error("clock gone");
        },
      },
      lowBalance: { crossed: () => {} },
      memberCaps: { nearing: () => {} },
    };
    const lease = { id, orgId: ann.orgId, memberId: null, month: MONTH };
    expect(await endLeaseCheckingLatches(db(), lease, "released", failing, logger)).toBe(1);
    await expectEnded(id, ann, "released");
    expect(await reservedOnGrant(ann.grantId)).toBe(0);
    expect(logged).toEqual([
      [
        { err: expect.objectContaining({ message: "clock gone" }), lease: id },
        "The alert latches of an ended credit lease could not be checked",
      ],
    ]);
  });

  it("the sweep works through more leases than a page, up to its most for a run", async () => {
    const people = [
      await bystander(ctx.t, "ann"),
      await bystander(ctx.t, "bea"),
      await bystander(ctx.t, "cal"),
    ];
    const ids = [];
    for (const person of people) ids.push(await take({ ...person, expired: true }));
    // Pages of 2: the third lease is on the second page.
    expect(await sweepExpiredLeases(db(), undefined, undefined, { page: 2, most: 2 })).toBe(2);
    expect(await sweepExpiredLeases(db(), undefined, undefined, { page: 2 })).toBe(1);
    for (const [i, person] of people.entries()) await expectEnded(ids[i] as string, person, "expired");

    for (const person of people) await take({ ...person, expired: true });
    expect(await sweepExpiredLeases(db(), undefined, undefined, { page: 2 })).toBe(3);
    expect(await sweepExpiredLeases(db())).toBe(0);
  });

  it("the sweep ends the leases past their end by the database's clock, on its own timer", async () => {
    const ann = await bystander(ctx.t, "ann");
    const zed = await bystander(ctx.t, "zed");
    const past = await take({ ...ann, expired: true });
    const open = await take(zed);
    expect(await sweepExpiredLeases(db())).toBe(1);
    await expectEnded(past, ann, "expired");
    expect(await reservedOnGrant(ann.grantId)).toBe(0);
    await expectOpen(open, zed);
    expect(await sweepExpiredLeases(db())).toBe(0);

    // Started as the server starts it: it sweeps every interval until stopped.
    const again = await take({ ...ann, expired: true });
    const logged: unknown[] = [];
    const logger = {
      info: (...args: unknown[]) => logged.push(args),
      error: (...args: unknown[]) => logged.push(["error", ...args]),
    } as unknown as Parameters<typeof startLeaseSweep>[0]["logger"];
    const sweep = startLeaseSweep({ db: db(), logger, intervalMs: 20 });
    await expect.poll(async () => (await leaseRow(again))?.endedBecause, { timeout: 5000 }).toBe("expired");
    await sweep.stop();
    expect(logged).toContainEqual([{ ended: 1 }, "Credit leases past their end ended"]);
    const afterStop = await take({ ...ann, expired: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await leaseRow(afterStop))?.endedAt).toBeNull();
    await expectOpen(open, zed);
  });
});
