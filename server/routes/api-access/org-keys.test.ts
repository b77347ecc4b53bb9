// API keys of a team organisation (ORGANISATIONS.md, "Keys, introspection and spending"): a key
// records its creator and spends the organisation's credits; introspection answers the organisation
// as `sub` with the member and their cap; consume refuses past the member's monthly cap (nothing
// charged) and mails at 80 % and at the first refusal; who sees and revokes which keys follows the
// role table; a member who left has no usable key on any instance.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import type { OrgRole } from "../../../contract/org-roles.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { INTROSPECTION_TTL_MS } from "../../api-access/introspection-cache.ts";
import { insertGrant } from "../../billing/ledger-store.ts";
import { creditSpends, organizationMembers, organizations, users } from "../../db/schema/index.ts";
import { bearer, consumeRequest, introspect, serviceKey } from "../../testing/api-access.ts";
import { postJson, verifiedUser } from "../../testing/api-client.ts";
import { STALE } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("organisation API keys (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /** A team organisation "Acme" with 50 credits and the given members (milli-credit caps). */
  async function acme(members: [{ id: string }, OrgRole, number | null][]) {
    const db = ctx.database.db;
    const now = ctx.t.clock.now();
    const id = randomUUID();
    await db.insert(organizations).values({ id, name: "Acme", personal: false, createdAt: now });
    for (const [user, role, cap] of members) {
      await db
        .insert(organizationMembers)
        .values({ orgId: id, userId: user.id, role, monthlyCreditCap: cap, joinedAt: now });
    }
    await insertGrant(
      db,
      id,
      {
        kind: "topup",
        amount: 50_000,
        grantedAt: now,
        expiresAt: null,
        source: "test",
        fulfilmentKey: `test:${id}`,
      },
      { paymentReference: null, eventId: null },
    );
    return id;
  }

  const inOrg = (orgId: string, token: string) => ({ ...bearer(token), "X-Organization": orgId });

  async function makeKey(orgId: string, token: string, body: Record<string, unknown> = {}) {
    return postJson(ctx.t.app, "/v1/api-keys", { name: "Render farm", ...body }, inOrg(orgId, token));
  }

  async function list(orgId: string, token: string) {
    const res = await ctx.t.app.request("/v1/api-keys", { headers: inOrg(orgId, token) });
    expect(res.status).toBe(200);
    return (
      (await res.json()) as { data: { id: string; shared: boolean; created_by: { user_id: string } }[] }
    ).data;
  }

  const charge = (service: string, keyId: string, n: number) =>
    consumeRequest(ctx.t, service, {
      api_key_id: keyId,
      feature: "background-remover",
      people: "multiple",
      quantity: 3,
      idempotency_key: `gen-${n}`,
    });

  it("spends the organisation's credits through a member's key, within the member's cap", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    // Bob's cap: 1 credit a month; each charge costs 0.3.
    const org = await acme([
      [ann, "owner", null],
      [bob, "developer", 1000],
    ]);
    const created = await makeKey(org, bob.accessToken);
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: string; key: string; shared: boolean };
    expect(key.shared).toBe(false);
    const service = await serviceKey(ctx.t);

    expect(await introspect(ctx.t, service, key.key)).toMatchObject({
      active: true,
      sub: org,
      org_id: org,
      member_id: bob.id,
      username: "bob",
      role: "user",
      credit_balance: 50,
      member_monthly_credit_cap: 1,
      member_credits_used_this_month: 0,
    });

    for (const n of [1, 2, 3]) expect((await charge(service, key.id, n)).status).toBe(200);
    const refused = await charge(service, key.id, 4);
    expect(refused.status).toBe(402);
    expect(await refused.json()).toEqual({ detail: ORG_DETAIL.memberCapReached });
    // An answer is kept up to 1 s (decision 034): the charges show in the next second's.
    ctx.t.clock.advance(INTROSPECTION_TTL_MS + 1);
    expect(await introspect(ctx.t, service, key.key)).toMatchObject({
      credit_balance: 49.1,
      member_credits_used_this_month: 0.9,
    });
    // Nothing charged by the refusal: three spends, all the organisation's.
    const spends = await ctx.database.db.select().from(creditSpends).where(eq(creditSpends.userId, org));
    expect(spends.map((s) => s.amount)).toEqual([300, 300, 300]);

    // Crossing 80 % and the first refusal mail Bob and the owner, once each.
    await ctx.t.tasks.idle();
    const capMails = (await ctx.t.mails()).filter(
      (m) => m.subject.includes("Acme") && m.subject.includes("limit"),
    );
    expect(capMails.map((m) => [m.to, m.subject]).sort()).toEqual(
      [
        ["ann@example.com", "bob's monthly credit limit in Acme is reached"],
        ["ann@example.com", expect.stringContaining("bob's")],
        ["bob@example.com", "Your monthly credit limit in Acme is reached"],
        // 0.9 of 1 credit: the charge that crossed 80 % took it to 90 %, and the mail says so.
        ["bob@example.com", "Your GenAI Studio credits in Acme are at 90 % of the monthly limit"],
      ].sort(),
    );
    expect((await charge(service, key.id, 5)).status).toBe(402);
    await ctx.t.tasks.idle();
    expect(
      (await ctx.t.mails()).filter((m) => m.subject.includes("Acme") && m.subject.includes("limit")),
    ).toHaveLength(4);

    // Raising the cap lets the next charge through.
    await ctx.database.db
      .update(organizationMembers)
      .set({ monthlyCreditCap: null })
      .where(and(eq(organizationMembers.orgId, org), eq(organizationMembers.userId, bob.id)));
    expect((await charge(service, key.id, 6)).status).toBe(200);
  });

  it("ends a member's keys once they leave, or staff disable them, while shared keys go on", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const org = await acme([
      [ann, "owner", null],
      [bob, "manager", null],
    ]);
    const service = await serviceKey(ctx.t);
    const bobs = (await (await makeKey(org, bob.accessToken)).json()) as { id: string; key: string };
    const sharedRes = await makeKey(org, ann.accessToken, { shared: true, monthly_credit_limit: 10 });
    expect(sharedRes.status).toBe(201);
    const shared = (await sharedRes.json()) as { id: string; key: string; shared: boolean };
    expect(shared.shared).toBe(true);
    expect(await introspect(ctx.t, service, shared.key)).toMatchObject({
      active: true,
      sub: org,
      member_id: null,
      username: "Acme",
      member_monthly_credit_cap: null,
    });

    await ctx.database.db.update(users).set({ disabledAt: ctx.t.clock.now() }).where(eq(users.id, bob.id));
    expect(await introspect(ctx.t, service, bobs.key)).toEqual({ active: false });
    expect((await charge(service, bobs.id, 1)).status).toBe(404);
    await ctx.database.db.update(users).set({ disabledAt: null }).where(eq(users.id, bob.id));
    expect((await charge(service, bobs.id, 2)).status).toBe(200);

    await ctx.database.db
      .delete(organizationMembers)
      .where(and(eq(organizationMembers.orgId, org), eq(organizationMembers.userId, bob.id)));
    expect(await introspect(ctx.t, service, bobs.key)).toEqual({ active: false });
    const afterLeaving = await charge(service, bobs.id, 3);
    expect(afterLeaving.status).toBe(404);
    expect(await afterLeaving.json()).toEqual({ detail: DETAIL.apiKeyNotFound });
    expect((await charge(service, shared.id, 4)).status).toBe(200);
    // Staff disabling the owner who made it stops their own keys, not the organisation's shared key.
    await ctx.database.db.update(users).set({ disabledAt: ctx.t.clock.now() }).where(eq(users.id, ann.id));
    expect(await introspect(ctx.t, service, shared.key)).toMatchObject({ active: true, sub: org });
    expect((await charge(service, shared.id, 5)).status).toBe(200);
  });

  it("refuses a shared key by role before asking for the password", async () => {
    const [ann, bob, cid] = [
      await verifiedUser(ctx.t, "ann"),
      await verifiedUser(ctx.t, "bob"),
      await verifiedUser(ctx.t, "cid"),
    ];
    const roles = { owner: ann, manager: bob, developer: cid };
    const org = await acme(Object.entries(roles).map(([role, who]) => [who, role as OrgRole, null]));
    ctx.t.clock.advance(STALE);
    const body = { shared: true, monthly_credit_limit: 5 };
    for (const [orgId, who] of [
      [org, bob],
      [org, cid],
      [ann.id, ann],
    ] as const) {
      const res = await makeKey(orgId, who.accessToken, body);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: ORG_DETAIL.notAllowed });
    }
    // What the role allows still asks for it.
    const owner = await makeKey(org, ann.accessToken, body);
    expect(await owner.json()).toMatchObject({ detail: DETAIL.reauthRequired, reauth_required: true });
    expect(owner.status).toBe(403);
  });

  it("lets each role see and revoke only the keys the role table gives it", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const cid = await verifiedUser(ctx.t, "cid");
    const dee = await verifiedUser(ctx.t, "dee");
    const org = await acme([
      [ann, "owner", null],
      [bob, "manager", null],
      [cid, "developer", null],
      [dee, "billing", null],
    ]);
    const shared = (await (
      await makeKey(org, ann.accessToken, { shared: true, monthly_credit_limit: 5 })
    ).json()) as {
      id: string;
    };
    const bobs = (await (await makeKey(org, bob.accessToken)).json()) as { id: string };
    const cids = (await (await makeKey(org, cid.accessToken)).json()) as { id: string };

    expect((await list(org, ann.accessToken)).map((k) => k.id).sort()).toEqual(
      [shared.id, bobs.id, cids.id].sort(),
    );
    expect((await list(org, bob.accessToken)).map((k) => k.id).sort()).toEqual([bobs.id, cids.id].sort());
    expect((await list(org, cid.accessToken)).map((k) => k.id)).toEqual([cids.id]);
    // Personal keys stay apart from the organisation's.
    expect(await list(ann.id, ann.accessToken)).toEqual([]);

    const asBilling = await ctx.t.app.request("/v1/api-keys", { headers: inOrg(org, dee.accessToken) });
    expect(asBilling.status).toBe(403);
    expect(await asBilling.json()).toEqual({ detail: ORG_DETAIL.notAllowed });
    expect((await makeKey(org, dee.accessToken)).status).toBe(403);
    // Only owners make shared keys, and a shared key needs a limit.
    expect((await makeKey(org, bob.accessToken, { shared: true, monthly_credit_limit: 5 })).status).toBe(403);
    expect((await makeKey(org, ann.accessToken, { shared: true })).status).toBe(422);
    expect((await makeKey(ann.id, ann.accessToken, { shared: true, monthly_credit_limit: 5 })).status).toBe(
      403,
    );

    const revoke = (id: string, token: string) =>
      ctx.t.app.request(`/v1/api-keys/${id}`, { method: "DELETE", headers: inOrg(org, token) });
    // A billing member makes no keys and may revoke none, not even the organisation's shared one.
    const byBilling = await revoke(shared.id, dee.accessToken);
    expect(byBilling.status).toBe(403);
    expect(await byBilling.json()).toEqual({ detail: ORG_DETAIL.notAllowed });
    expect((await revoke(bobs.id, cid.accessToken)).status).toBe(404);
    expect((await revoke(shared.id, bob.accessToken)).status).toBe(404);
    expect((await revoke(cids.id, bob.accessToken)).status).toBe(204);
    expect((await revoke(shared.id, ann.accessToken)).status).toBe(204);
  });

  it("answers 404 to a stranger, and consume {user_id} never charges a team organisation", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const eve = await verifiedUser(ctx.t, "eve");
    const org = await acme([[ann, "owner", null]]);
    for (const header of [org, "not-an-id", randomUUID()]) {
      const res = await ctx.t.app.request("/v1/api-keys", { headers: inOrg(header, eve.accessToken) });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: ORG_DETAIL.notFound });
    }
    const service = await serviceKey(ctx.t);
    const byUserId = await consumeRequest(ctx.t, service, {
      user_id: org,
      feature: "background-remover",
      people: "one",
      idempotency_key: "x",
    });
    expect(byUserId.status).toBe(404);
    expect(await byUserId.json()).toEqual({ detail: DETAIL.userNotFound });
  });

  it("answers GET /v1/users/me for the chosen organisation, and the personal one after leaving", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const org = await acme([
      [ann, "owner", null],
      [bob, "developer", null],
    ]);
    const me = async () => {
      const res = await ctx.t.app.request("/v1/users/me", { headers: inOrg(org, bob.accessToken) });
      expect(res.status).toBe(200);
      return (await res.json()) as { id: string; credit_balance: number; organization: unknown };
    };
    expect(await me()).toMatchObject({
      id: bob.id,
      credit_balance: 50,
      organization: { id: org, name: "Acme", personal: false, role: "developer" },
    });
    await ctx.database.db
      .delete(organizationMembers)
      .where(and(eq(organizationMembers.orgId, org), eq(organizationMembers.userId, bob.id)));
    expect((await me()).organization).toEqual({ id: bob.id, name: null, personal: true, role: "owner" });
  });

  it("revokes every key a member made in every organisation, and mails each organisation's owners", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const org = await acme([
      [ann, "owner", null],
      [bob, "developer", null],
    ]);
    const team = (await (await makeKey(org, bob.accessToken, { name: "Team job" })).json()) as {
      id: string;
      key: string;
    };
    const own = (await (await makeKey(bob.id, bob.accessToken, { name: "Own job" })).json()) as {
      id: string;
      key: string;
    };
    const anns = (await (await makeKey(org, ann.accessToken, { name: "Ann's" })).json()) as {
      id: string;
      key: string;
    };

    // The keys that keep working after a password change are named with their organisation.
    const keysOf = async () => {
      const { usableApiKeys } = await import("../../api-access/api-keys.ts");
      return (await usableApiKeys(ctx.database.db, bob.id, ctx.t.clock.now())).map((k) => [
        k.name,
        k.orgName,
      ]);
    };
    expect((await keysOf()).sort()).toEqual([
      ["Own job", null],
      ["Team job", "Acme"],
    ]);

    const res = await postJson(ctx.t.app, "/v1/api-keys/revoke-all", {}, inOrg(org, bob.accessToken));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: 2 });
    const service = await serviceKey(ctx.t);
    expect(await introspect(ctx.t, service, team.key)).toEqual({ active: false });
    expect(await introspect(ctx.t, service, own.key)).toEqual({ active: false });
    expect(await introspect(ctx.t, service, anns.key)).toMatchObject({ active: true });
    await ctx.t.tasks.idle();
    const toAnn = (await ctx.t.mails()).filter(
      (m) => m.to === "ann@example.com" && m.subject.includes("revoked"),
    );
    expect(toAnn.map((m) => m.subject)).toEqual(["bob revoked 1 API key in Acme"]);
    expect(toAnn[0]?.text).toContain("Team job");
    expect(toAnn[0]?.text).not.toContain("Own job");
  });
});
