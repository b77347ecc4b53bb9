import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { apiKeys } from "../../db/schema/index.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { bearer } from "../../testing/api-access.ts";
import { fromIp, GOOD_PASSWORD, getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";

describe.each(TEST_DATABASES)("re-authentication for sensitive actions (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const newKey = (token: string) => postJson(ctx.t.app, "/v1/api-keys", { name: "CI" }, bearer(token));
  const reauth = (token: string, password: string, ip = fromIp()) =>
    postJson(ctx.t.app, "/v1/reauth", { password }, { ...bearer(token), ...ip });

  it("creating an API key more than 10 minutes after the password asks for it again; the new token retries", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    ctx.t.clock.advance(10 * 60_000);
    expect((await newKey(ann.accessToken)).status).toBe(201);
    ctx.t.clock.advance(1000);
    const refused = await newKey(ann.accessToken);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      detail: DETAIL.reauthRequired,
      reauth_required: true,
      methods: ["password"],
    });
    expect(await ctx.database.db.select().from(apiKeys)).toHaveLength(1);

    const confirmed = await reauth(ann.accessToken, GOOD_PASSWORD);
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get("cache-control")).toBe("no-store");
    const { access_token } = (await confirmed.json()) as { access_token: string };
    const claims = await ctx.t.deps.accessTokens.verify(access_token);
    expect(claims).toMatchObject({ auth_time: Math.floor(ctx.t.clock.now().getTime() / 1000), amr: ["pwd"] });
    expect((await newKey(access_token)).status).toBe(201);
    // The token it replaced is signed out; other reads work with the new one.
    expect((await getJson(ctx.t.app, "/v1/users/me", ann.accessToken)).status).toBe(401);
    expect((await getJson(ctx.t.app, "/v1/users/me", access_token)).status).toBe(200);
    const actions = (await auditRowsAbout(ctx.t, ann.id)).map((r) => r.action);
    expect(actions).toContain("session.reauth");
  });

  it("400 for a wrong password, which counts like a failed sign-in (429 after five from one address)", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const from = fromIp();
    for (let i = 0; i < 5; i++) {
      const wrong = await reauth(ann.accessToken, `Wrong${i}!a`, from);
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toEqual({ detail: DETAIL.incorrectPassword });
    }
    const throttled = await reauth(ann.accessToken, GOOD_PASSWORD, from);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toMatch(/^\d+$/);
    // The token still works for what needs no re-authentication.
    expect((await getJson(ctx.t.app, "/v1/users/me", ann.accessToken)).status).toBe(200);
    const failed = (await auditRowsAbout(ctx.t, ann.id, true)).filter((r) => r.action === "login.failed");
    expect(failed.map((r) => r.details)).toEqual(Array(5).fill({ step: "reauth", user_agent: null }));
  });

  it("401 without a token, 422 without a password", async () => {
    expect((await postJson(ctx.t.app, "/v1/reauth", { password: GOOD_PASSWORD })).status).toBe(401);
    const ann = await verifiedUser(ctx.t, "ann");
    expect((await postJson(ctx.t.app, "/v1/reauth", {}, bearer(ann.accessToken))).status).toBe(422);
  });
});
