// POST/GET/DELETE /v1/api-keys: the contract's answers and errors, on PGlite and PostgreSQL.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { API_KEY_RULES } from "../../../contract/api-key-rules.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { apiKeys, auditLog, users } from "../../db/schema/index.ts";
import { bearer, consumeRequest, createKey, serviceKey } from "../../testing/api-access.ts";
import { getJson, login, postJson, register, verifiedUser } from "../../testing/api-client.ts";
import { createTeam } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";

const DAY = 86_400_000;

describe.each(TEST_DATABASES)("API keys (%s)", (kind) => {
  // Room for the 20 keys of the limit test and then some, in one minute.
  const WRITES_PER_MINUTE = 25;
  const ctx = useTestApp(kind, { limits: { accountWritePerMinute: WRITES_PER_MINUTE } });

  const list = async (token: string) => {
    const res = await getJson(ctx.t.app, "/v1/api-keys", token);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Array<Record<string, unknown>> }).data;
  };

  it("records creating and revoking a key as security events the owner sees", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken, { name: "Render farm" });
    const revoked = await ctx.t.app.request(`/v1/api-keys/${key.id}`, {
      method: "DELETE",
      headers: bearer(ann.accessToken),
    });
    expect(revoked.status).toBe(204);
    const rows = (
      await ctx.t.deps.db.select().from(auditLog).where(eq(auditLog.subjectUserId, ann.id))
    ).filter((r) => r.action.startsWith("api_key."));
    expect(
      rows.map((r) => [r.action, r.actorId, r.details.key_id, r.details.prefix, r.details.name]),
    ).toEqual([
      ["api_key.create", ann.id, key.id, key.prefix, "Render farm"],
      ["api_key.revoke", ann.id, key.id, key.prefix, "Render farm"],
    ]);
    expect(JSON.stringify(rows)).not.toContain(key.key.slice(16));
    const events = await getJson(ctx.t.app, "/v1/users/me/security-events", ann.accessToken);
    const actions = ((await events.json()) as { data: { action: string }[] }).data.map((e) => e.action);
    expect(actions.slice(0, 2)).toEqual(["api_key.revoke", "api_key.create"]);
  });

  it("creates a key shown once, with the contract's fields", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const now = ctx.t.clock.now();
    const created = await createKey(ctx.t, ann.accessToken, {
      name: "  Render farm  ",
      expires_in_days: 30,
      monthly_credit_limit: 500,
      features: ["comic", "image-to-video", "comic"],
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9A-Za-z]{12}$/),
      name: "Render farm",
      key: expect.stringMatching(/^gpk_[0-9A-Za-z]{61}$/),
      prefix: `gpk_${created.id}`,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 30 * DAY).toISOString(),
      last_used_at: null,
      monthly_credit_limit: 500,
      features: ["comic", "image-to-video"],
      shared: false,
    });
    expect(created.key.startsWith(created.prefix)).toBe(true);
    const [listed] = await list(ann.accessToken);
    expect(listed).toEqual({
      ...created,
      key: undefined,
      credits_used_this_month: 0,
      created_by: { user_id: ann.id, username: "ann" },
    });
    expect(listed).not.toHaveProperty("key");
    expect(JSON.stringify(await list(ann.accessToken))).not.toContain(created.key);
  });

  it("mails the owner once about each new key: its name, prefix, limits and where it came from", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken, {
      name: "Render server",
      monthly_credit_limit: 100,
      features: ["comic"],
    });
    const mails = (await ctx.t.mails()).filter((m) => m.subject.includes("new API key"));
    expect(mails).toHaveLength(1);
    expect(mails[0]?.to).toBe("ann@example.com");
    expect(mails[0]?.text).toContain(`The API key "Render server" (${key.prefix}…) was created on`);
    expect(mails[0]?.text).toContain("expires: never; monthly credit limit: 100; features: comic");
    // A refused creation mails nothing.
    await postJson(ctx.t.app, "/v1/api-keys", { name: "" }, bearer(ann.accessToken));
    expect((await ctx.t.mails()).filter((m) => m.subject.includes("new API key"))).toHaveLength(1);
    // A team's key names the organisation whose credits it spends.
    const org = await createTeam(ctx.t, ann, "Acme Render");
    const teamKey = await postJson(
      ctx.t.app,
      "/v1/api-keys",
      { name: "Team server" },
      { ...bearer(ann.accessToken), "X-Organization": org.id },
    );
    expect(teamKey.status, await teamKey.clone().text()).toBe(201);
    const [teamMail] = (await ctx.t.mails()).filter((m) => m.subject.includes("for Acme Render"));
    expect(teamMail?.subject).toBe("A new API key was created for Acme Render on GenAI Studio");
    expect(teamMail?.text).toContain(`of the organisation Acme Render was created on`);
    expect(teamMail?.text).toContain("anyone holding it can spend Acme Render's credits");
  });

  it("takes the defaults: never expires, no limit, every feature", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const created = await createKey(ctx.t, ann.accessToken, { name: "plain" });
    expect(created).toMatchObject({ expires_at: null, monthly_credit_limit: null, features: null });
    const explicit = await createKey(ctx.t, ann.accessToken, {
      name: "explicit",
      expires_in_days: null,
      monthly_credit_limit: null,
      features: null,
    });
    expect(explicit).toMatchObject({ expires_at: null, monthly_credit_limit: null, features: null });
  });

  it("lists the user's own keys newest first, with what each spent this month", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const first = await createKey(ctx.t, ann.accessToken, { name: "first" });
    ctx.t.clock.advance(1000);
    const second = await createKey(ctx.t, ann.accessToken, { name: "second" });
    await createKey(ctx.t, bob.accessToken, { name: "bob's" });
    const service = await serviceKey(ctx.t);
    const charge = await consumeRequest(ctx.t, service, {
      api_key_id: first.id,
      feature: "comic",
      people: "one",
      quantity: 2,
      idempotency_key: "k1",
    });
    expect(charge.status).toBe(200);
    const keys = await list(ann.accessToken);
    expect(keys.map((k) => [k.name, k.credits_used_this_month])).toEqual([
      ["second", 0],
      ["first", 10],
    ]);
    expect(keys.map((k) => k.id)).toEqual([second.id, first.id]);
  });

  it("takes a limit in fractions of a credit and keeps to it to the millicredit", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken, { name: "cutouts", monthly_credit_limit: 0.5 });
    expect(key.monthly_credit_limit).toBe(0.5);
    const [stored] = await ctx.t.deps.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.id, String(key.id)));
    expect(stored?.monthlyCreditLimit).toBe(500);
    const service = await serviceKey(ctx.t);
    // The background remover costs 0.1: five fit in 0.5, the sixth does not.
    const charge = (n: number) =>
      consumeRequest(ctx.t, service, {
        api_key_id: key.id,
        feature: "background-remover",
        people: "one",
        idempotency_key: `cut-${n}`,
      });
    for (let n = 1; n <= 5; n++) expect((await charge(n)).status).toBe(200);
    const sixth = await charge(6);
    expect(sixth.status).toBe(402);
    expect(await sixth.json()).toMatchObject({ detail: "API key credit limit reached" });
    expect(
      (await list(ann.accessToken)).map((k) => [k.monthly_credit_limit, k.credits_used_this_month]),
    ).toEqual([[0.5, 0.5]]);
    expect(
      (await createKey(ctx.t, ann.accessToken, { name: "tiny", monthly_credit_limit: 0.001 }))
        .monthly_credit_limit,
    ).toBe(0.001);
  });

  it.each([
    [{ name: "" }, "name", API_KEY_RULES.nameRequired],
    [{ name: "   " }, "name", API_KEY_RULES.nameRequired],
    [{ name: "x".repeat(61) }, "name", API_KEY_RULES.nameTooLong],
    [{ name: "k", expires_in_days: 0 }, "expires_in_days", API_KEY_RULES.expiryRange],
    [{ name: "k", expires_in_days: 366 }, "expires_in_days", API_KEY_RULES.expiryRange],
    [{ name: "k", expires_in_days: 1.5 }, "expires_in_days", API_KEY_RULES.expiryRange],
    [{ name: "k", monthly_credit_limit: 0 }, "monthly_credit_limit", API_KEY_RULES.limitPositive],
    [{ name: "k", monthly_credit_limit: -5 }, "monthly_credit_limit", API_KEY_RULES.limitPositive],
    [{ name: "k", monthly_credit_limit: "10" }, "monthly_credit_limit", API_KEY_RULES.limitPositive],
    [{ name: "k", monthly_credit_limit: 0.0005 }, "monthly_credit_limit", API_KEY_RULES.limitPositive],
    [{ name: "k", monthly_credit_limit: 1.2345 }, "monthly_credit_limit", API_KEY_RULES.limitPositive],
    [{ name: "k", monthly_credit_limit: 100_000_001 }, "monthly_credit_limit", API_KEY_RULES.limitTooLarge],
    [{ name: "k", features: [] }, "features", API_KEY_RULES.featuresEmpty],
    [{ name: "k", features: ["teleport"] }, "features", API_KEY_RULES.featureUnknown],
  ])("422 for %j", async (body, field, message) => {
    const ann = await verifiedUser(ctx.t, "ann");
    const res = await postJson(ctx.t.app, "/v1/api-keys", body, bearer(ann.accessToken));
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: Array<{ loc: unknown[]; msg: string }> };
    expect(detail).toContainEqual(
      expect.objectContaining({ loc: expect.arrayContaining(["body", field]), msg: message }),
    );
  });

  it("409 at the 21st live key; a revoked key frees its place", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const keys = [];
    for (let i = 0; i < 20; i++) keys.push(await createKey(ctx.t, ann.accessToken, { name: `k${i}` }));
    const res = await postJson(ctx.t.app, "/v1/api-keys", { name: "k20" }, bearer(ann.accessToken));
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: DETAIL.apiKeyLimit });
    const del = await ctx.t.app.request(`/v1/api-keys/${keys[0]?.id}`, {
      method: "DELETE",
      headers: bearer(ann.accessToken),
    });
    expect(del.status).toBe(204);
    await createKey(ctx.t, ann.accessToken, { name: "k20" });
  });

  it("403 while the e-mail address is not verified", async () => {
    await register(ctx.t, "newbie");
    // Log in is refused before verification, so make a token as the verified user would have it.
    await ctx.database.db.update(users).set({ emailVerified: true }).where(eq(users.username, "newbie"));
    const token = ((await (await login(ctx.t, "newbie")).json()) as { access_token: string }).access_token;
    await ctx.database.db.update(users).set({ emailVerified: false }).where(eq(users.username, "newbie"));
    const res = await postJson(ctx.t.app, "/v1/api-keys", { name: "k" }, bearer(token));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: DETAIL.emailNotVerified });
  });

  it("401 without an access token, and an API key cannot manage keys", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    expect((await getJson(ctx.t.app, "/v1/api-keys")).status).toBe(401);
    expect((await getJson(ctx.t.app, "/v1/api-keys", key.key)).status).toBe(401);
    expect((await postJson(ctx.t.app, "/v1/api-keys", { name: "x" }, bearer(key.key))).status).toBe(401);
    const del = await ctx.t.app.request(`/v1/api-keys/${key.id}`, {
      method: "DELETE",
      headers: bearer(key.key),
    });
    expect(del.status).toBe(401);
  });

  it("DELETE revokes the key: gone from the list, 404 the second time and for another user's key", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const key = await createKey(ctx.t, ann.accessToken);
    const asBob = await ctx.t.app.request(`/v1/api-keys/${key.id}`, {
      method: "DELETE",
      headers: bearer(bob.accessToken),
    });
    expect(asBob.status).toBe(404);
    expect(await asBob.json()).toEqual({ detail: DETAIL.apiKeyNotFound });
    const del = () =>
      ctx.t.app.request(`/v1/api-keys/${key.id}`, { method: "DELETE", headers: bearer(ann.accessToken) });
    expect((await del()).status).toBe(204);
    expect((await del()).status).toBe(404);
    expect(await list(ann.accessToken)).toEqual([]);
    // The row stays (usage history names it), marked revoked.
    const [row] = await ctx.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row?.revokedAt).toEqual(ctx.t.clock.now());
  });

  it("limits key creation like the other signed-in writes (429 with Retry-After)", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i <= WRITES_PER_MINUTE; i++) {
      const res = await postJson(ctx.t.app, "/v1/api-keys", { name: "" }, bearer(ann.accessToken));
      statuses.push(res.status);
      retryAfter = res.headers.get("retry-after");
    }
    expect(statuses).toEqual([...Array(WRITES_PER_MINUTE).fill(422), 429]);
    expect(retryAfter).toMatch(/^\d+$/);
  });
});
