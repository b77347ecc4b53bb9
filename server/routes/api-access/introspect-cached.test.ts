// POST /v1/introspect with the app's introspection cache (decision 034), through the API as the
// generation service and the customers use it: an API key's answer is kept up to 1 s, so a charge
// shows in the next second's answer; every change that makes a kept answer wrong (a revocation, a
// member removed or their cap changed, staff disabling the member or the organisation) shows at
// once, through migration 0019's triggers. The test app's cache counts time by the test's clock.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { INTROSPECTION_TTL_MS } from "../../api-access/introspection-cache.ts";
import { insertGrant } from "../../billing/ledger-store.ts";
import { adminCall, staffMember } from "../../testing/admin.ts";
import { bearer, consumeRequest, introspect, serviceKey } from "../../testing/api-access.ts";
import { postJson, verifiedUser } from "../../testing/api-client.ts";
import { call, createTeam, json, member, type Person } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("introspection kept up to 1 s (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /** Ann's team with 50 credits, Bob a developer in it with a 5-credit cap, and Bob's key in it. */
  async function team() {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const bob = await member(ctx.t, org, ann, "bob", "developer");
    await json(
      await call(ctx.t, "PATCH", `/v1/orgs/${org.id}/members/${bob.id}`, ann.accessToken, {
        monthly_credit_cap: 5,
      }),
      200,
    );
    const now = ctx.t.clock.now();
    await insertGrant(
      ctx.database.db,
      org.id,
      {
        kind: "topup",
        amount: 50_000,
        grantedAt: now,
        expiresAt: null,
        source: "test",
        fulfilmentKey: randomUUID(),
      },
      { paymentReference: null, eventId: null },
    );
    const made = await postJson(
      ctx.t.app,
      "/v1/api-keys",
      { name: "Render farm" },
      {
        ...bearer(bob.accessToken),
        "X-Organization": org.id,
      },
    );
    const key = await json<{ id: string; key: string }>(made, 201);
    return { ann, bob, org, key, service: await serviceKey(ctx.t) };
  }

  /** A charge of 0.1 credit through the key: nothing a trigger hears (balances change all the time). */
  async function charge(service: string, keyId: string) {
    const res = await consumeRequest(ctx.t, service, {
      api_key_id: keyId,
      feature: "background-remover",
      people: "one",
      idempotency_key: randomUUID(),
    });
    expect(res.status).toBe(200);
  }

  it("keeps an API key's answer up to 1 s: a charge shows in the next second's answer", async () => {
    const { key, service } = await team();
    const first = await introspect(ctx.t, service, key.key);
    expect(first).toMatchObject({ active: true, credit_balance: 50, member_credits_used_this_month: 0 });
    await charge(service, key.id);
    expect(await introspect(ctx.t, service, key.key)).toEqual(first);
    ctx.t.clock.advance(INTROSPECTION_TTL_MS);
    expect(await introspect(ctx.t, service, key.key)).toEqual(first);
    ctx.t.clock.advance(1);
    expect(await introspect(ctx.t, service, key.key)).toMatchObject({
      active: true,
      credit_balance: 49.9,
      member_credits_used_this_month: 0.1,
    });
  });

  it("never keeps an access token's answer, nor an inactive one", async () => {
    const { bob, key, service } = await team();
    const personal = await introspect(ctx.t, service, bob.accessToken);
    expect(personal).toMatchObject({ active: true, token_type: "access_token" });
    // A change no trigger hears: the token's next answer reads it all the same.
    await ctx.database.db.execute(
      sql`update users set token_version = token_version + 1 where id = ${bob.id}`,
    );
    expect(await introspect(ctx.t, service, bob.accessToken)).toEqual({ active: false });
    await ctx.database.db.execute(sql`update api_keys set revoked_at = now() where id = ${key.id}`);
    expect(await introspect(ctx.t, service, key.key)).toEqual({ active: false });
    // Unrevoked behind the triggers' back (no API does this): an inactive answer was not kept.
    await ctx.database.db.execute(sql`alter table api_keys disable trigger api_keys_introspection_update`);
    try {
      await ctx.database.db.execute(sql`update api_keys set revoked_at = null where id = ${key.id}`);
    } finally {
      await ctx.database.db.execute(sql`alter table api_keys enable trigger api_keys_introspection_update`);
    }
    expect(await introspect(ctx.t, service, key.key)).toMatchObject({ active: true });
  });

  const changes: Array<{
    change: string;
    make: (t: { ann: Person; bob: Person; orgId: string; keyId: string }) => Response | Promise<Response>;
    answer: Record<string, unknown>;
  }> = [
    {
      change: "its member revokes the key",
      make: ({ bob, orgId, keyId }) =>
        ctx.t.app.request(`/v1/api-keys/${keyId}`, {
          method: "DELETE",
          headers: { ...bearer(bob.accessToken), "X-Organization": orgId },
        }),
      answer: { active: false },
    },
    {
      change: "its member revokes all their keys",
      make: ({ bob }) => postJson(ctx.t.app, "/v1/api-keys/revoke-all", {}, bearer(bob.accessToken)),
      answer: { active: false },
    },
    {
      change: "the member is removed",
      make: ({ ann, bob, orgId }) =>
        call(ctx.t, "DELETE", `/v1/orgs/${orgId}/members/${bob.id}`, ann.accessToken),
      answer: { active: false },
    },
    {
      change: "the member's cap changes",
      make: ({ ann, bob, orgId }) =>
        call(ctx.t, "PATCH", `/v1/orgs/${orgId}/members/${bob.id}`, ann.accessToken, {
          monthly_credit_cap: 2,
        }),
      answer: { active: true, member_monthly_credit_cap: 2, credit_balance: 49.9 },
    },
    {
      change: "staff disable the member",
      make: async ({ bob }) => {
        const ada = await staffMember(ctx.t, "ada", "admin");
        return adminCall(ctx.t, `/v1/admin/customers/${bob.id}/disable`, ada.accessToken, {
          reason: "Abuse report",
        });
      },
      answer: { active: false },
    },
    {
      change: "staff disable the organisation",
      make: async ({ orgId }) => {
        const ada = await staffMember(ctx.t, "ada", "admin");
        return adminCall(ctx.t, `/v1/admin/orgs/${orgId}/disable`, ada.accessToken, {
          reason: "Abuse report",
        });
      },
      answer: { active: false },
    },
  ];

  it.each(changes)("drops a kept answer at once when $change", async ({ make, answer }) => {
    const { ann, bob, org, key, service } = await team();
    const kept = await introspect(ctx.t, service, key.key);
    expect(kept).toMatchObject({ active: true, credit_balance: 50, member_monthly_credit_cap: 5 });
    // Kept: the charge does not show yet.
    await charge(service, key.id);
    expect(await introspect(ctx.t, service, key.key)).toEqual(kept);
    const res = await make({ ann, bob, orgId: org.id, keyId: key.id });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const now = await introspect(ctx.t, service, key.key);
    expect(now).toMatchObject(answer);
    if (answer.active === false) expect(now).toEqual({ active: false });
  });
});
