// POST /v1/introspect (RFC 7662): the answer for API keys and access tokens, the one inactive answer
// for everything else, and the service key's authentication (scopes, revocation, rate limit).
import { generateKeyPairSync } from "node:crypto";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { FEATURE_IDS } from "../../../contract/credit-costs.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { generateKey } from "../../api-access/key-format.ts";
import { revokeServiceKey } from "../../api-access/service-keys.ts";
import { apiKeys, users } from "../../db/schema/index.ts";
import {
  bearer,
  consumeRequest,
  createKey,
  introspect,
  introspectRequest,
  serviceKey,
} from "../../testing/api-access.ts";
import { fromIp, postJson, verifiedUser } from "../../testing/api-client.ts";
import { subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_FREE_CREDITS, TEST_JWT } from "../../testing/test-app.ts";

const DAY = 86_400_000;

describe.each(TEST_DATABASES)("introspection (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: { serviceAuthFailuresPerMinute: 3 } });

  it("describes an API key: its user, plan, limits, balance, monthly limit and spend, features", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, ann.accessToken, "D");
    const key = await createKey(ctx.t, ann.accessToken, {
      expires_in_days: 90,
      monthly_credit_limit: 100,
      features: ["comic"],
    });
    const service = await serviceKey(ctx.t);
    expect(
      (
        await consumeRequest(ctx.t, service, {
          api_key_id: key.id,
          feature: "comic",
          people: "multiple",
          idempotency_key: "g-1",
        })
      ).status,
    ).toBe(200);
    expect(await introspect(ctx.t, service, key.key)).toEqual({
      active: true,
      token_type: "api_key",
      sub: ann.id,
      username: "ann",
      role: "user",
      org_id: ann.id,
      member_id: ann.id,
      member_monthly_credit_cap: null,
      member_credits_used_this_month: null,
      key_id: key.id,
      exp: Math.floor((ctx.t.clock.now().getTime() + 90 * DAY) / 1000),
      plan: "D",
      limits: { concurrent_requests: 7 },
      credit_balance: TEST_FREE_CREDITS + 25_000 - 5,
      monthly_credit_limit: 100,
      credits_used_this_month: 5,
      features: ["comic"],
    });
  });

  it("describes an access token; an unrestricted key may use every feature and has no exp", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const service = await serviceKey(ctx.t, ["introspect"]);
    const token = await introspect(ctx.t, service, ann.accessToken);
    expect(token).toEqual({
      active: true,
      token_type: "access_token",
      sub: ann.id,
      username: "ann",
      role: "user",
      exp: Math.floor(ctx.t.clock.now().getTime() / 1000) + TEST_JWT.ttlSeconds,
      plan: "FREE",
      limits: { concurrent_requests: 1 },
      credit_balance: TEST_FREE_CREDITS,
      org_id: ann.id,
      features: [...FEATURE_IDS],
    });
    const forKey = await introspect(ctx.t, service, key.key);
    expect(forKey).toMatchObject({ features: [...FEATURE_IDS], monthly_credit_limit: null });
    expect(forKey).not.toHaveProperty("exp");
  });

  it("answers exactly {active: false} for every credential that is not valid now, whatever the reason", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const service = await serviceKey(ctx.t);
    const revoked = await createKey(ctx.t, ann.accessToken, { name: "revoked" });
    await ctx.t.app.request(`/v1/api-keys/${revoked.id}`, {
      method: "DELETE",
      headers: bearer(ann.accessToken),
    });
    const expiring = await createKey(ctx.t, ann.accessToken, { name: "expiring", expires_in_days: 1 });
    const live = await createKey(ctx.t, ann.accessToken, { name: "live" });
    const oldToken = ann.accessToken;
    const bobsKey = await createKey(ctx.t, (await verifiedUser(ctx.t, "bob")).accessToken);
    await ctx.database.db.delete(users).where(eq(users.username, "bob"));
    // A password reset raises the token version: the old token is no longer valid.
    await ctx.database.db.update(users).set({ tokenVersion: 1 }).where(eq(users.id, ann.id));
    ctx.t.clock.advance(DAY);
    const now = Math.floor(ctx.t.clock.now().getTime() / 1000);
    const confused = await new SignJWT({ username: "ann", role: "admin", ver: 1 })
      .setProtectedHeader({ alg: "HS256", kid: TEST_JWT.keys.current.kid })
      .setSubject(ann.id)
      .setIssuer(TEST_JWT.issuer)
      .setAudience(TEST_JWT.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(new TextEncoder().encode(JSON.stringify(TEST_JWT.keys.current.jwk)));
    const stranger = generateKeyPairSync("ed25519").privateKey;
    const unknownKid = await new SignJWT({ username: "ann", role: "user", ver: 1 })
      .setProtectedHeader({ alg: "EdDSA", kid: "someone-elses" })
      .setSubject(ann.id)
      .setIssuer(TEST_JWT.issuer)
      .setAudience(TEST_JWT.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(stranger);
    const [, payload] = oldToken.split(".");
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
    const lookalike = `${live.key.slice(0, -6)}AAAAAA`;
    const unknownKey = generateKey("api").key;
    const answers = new Set<string>();
    const statuses = new Set<number>();
    for (const token of [
      revoked.key,
      expiring.key,
      bobsKey.key,
      oldToken,
      confused,
      unknownKid,
      none,
      lookalike,
      unknownKey,
      service,
      "garbage",
      " ",
      "gpk_",
    ]) {
      const res = await introspectRequest(ctx.t, service, token);
      statuses.add(res.status);
      answers.add(await res.text());
    }
    expect([...statuses]).toEqual([200]);
    expect([...answers]).toEqual(['{"active":false}']);
    // The live key still is.
    expect(await introspect(ctx.t, service, live.key)).toMatchObject({ active: true, key_id: live.id });
  });

  it("stops answering for a key the moment it is revoked", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const service = await serviceKey(ctx.t);
    const key = await createKey(ctx.t, ann.accessToken);
    expect((await introspect(ctx.t, service, key.key)).active).toBe(true);
    await ctx.t.app.request(`/v1/api-keys/${key.id}`, { method: "DELETE", headers: bearer(ann.accessToken) });
    expect(await introspect(ctx.t, service, key.key)).toEqual({ active: false });
  });

  it("records last_used_at at most once a minute, not per request", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const service = await serviceKey(ctx.t);
    const key = await createKey(ctx.t, ann.accessToken);
    const lastUsed = async () => {
      await ctx.t.tasks.idle();
      const [row] = await ctx.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
      return row?.lastUsedAt?.toISOString() ?? null;
    };
    const first = ctx.t.clock.now().toISOString();
    await introspect(ctx.t, service, key.key);
    expect(await lastUsed()).toBe(first);
    ctx.t.clock.advance(30_000);
    await introspect(ctx.t, service, key.key);
    await introspect(ctx.t, service, key.key);
    expect(await lastUsed()).toBe(first);
    ctx.t.clock.advance(31_000);
    await introspect(ctx.t, service, key.key);
    expect(await lastUsed()).toBe(ctx.t.clock.now().toISOString());
  });

  it("401 without a valid service key: no key, a user's token or API key, a revoked service key", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const service = await serviceKey(ctx.t);
    const { revoked } = { revoked: await serviceKey(ctx.t) };
    const parsedId = revoked.slice(4, 16);
    await revokeServiceKey(ctx.database.db, parsedId, ctx.t.clock.now());
    for (const credential of [undefined, ann.accessToken, key.key, revoked, `${service}x`]) {
      const res = await ctx.t.app.request("/v1/introspect", {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          ...fromIp(),
          ...(credential ? bearer(credential) : {}),
        },
        body: new URLSearchParams({ token: key.key }).toString(),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(await res.json()).toEqual({ detail: DETAIL.invalidServiceKey });
    }
  });

  it("403 for a service key without the scope; {active: false} for a missing or empty token", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const consumeOnly = await serviceKey(ctx.t, ["credits:consume"]);
    const res = await introspectRequest(ctx.t, consumeOnly, ann.accessToken);
    expect(res.status).toBe(403);
    const service = await serviceKey(ctx.t, ["introspect"]);
    const empty = await ctx.t.app.request("/v1/introspect", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...bearer(service) },
      body: "",
    });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({ active: false });
    const blank = await introspectRequest(ctx.t, service, "");
    expect(await blank.json()).toEqual({ active: false });
    // The admin's access token is not a service credential either.
    const json = await postJson(ctx.t.app, "/v1/introspect", { token: "x" }, bearer(service));
    expect(json.status).toBe(422);
  });

  it("rate-limits failed service authentication per address, but never refuses a valid key for them", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const service = await serviceKey(ctx.t);
    const ip = fromIp();
    const wrong = generateKey("service").key;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await introspectRequest(ctx.t, wrong, ann.accessToken, ip)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const stillWrong = await introspectRequest(ctx.t, wrong, ann.accessToken, ip);
    expect(stillWrong.status).toBe(429);
    expect(stillWrong.headers.get("retry-after")).toMatch(/^\d+$/);
    // The generation service shares the address (a proxy, a NAT): its valid key still works there.
    expect((await introspectRequest(ctx.t, service, ann.accessToken, ip)).status).toBe(200);
    const charge = { user_id: ann.id, feature: "comic", people: "one", idempotency_key: "shared-address" };
    expect(
      (await postJson(ctx.t.app, "/v1/credits/consume", charge, { ...bearer(service), ...ip })).status,
    ).toBe(200);
    expect((await introspectRequest(ctx.t, service, ann.accessToken)).status).toBe(200);
  });
});
