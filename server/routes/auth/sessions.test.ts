import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { createAccessTokens } from "../../auth/access-tokens.ts";
import { createTokenRevocations } from "../../auth/token-revocations.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { bearer, createKey, introspect, serviceKey } from "../../testing/api-access.ts";
import { getJson, login, postJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_JWT } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("signing out (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const me = (token: string) => getJson(ctx.t.app, "/v1/users/me", token);
  const secondToken = async (username: string) =>
    ((await (await login(ctx.t, username)).json()) as { access_token: string }).access_token;

  it("POST /v1/logout ends the token it is called with, and only that one", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const other = await secondToken("ann");
    const service = await serviceKey(ctx.t);
    const res = await postJson(ctx.t.app, "/v1/logout", {}, bearer(ann.accessToken));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ detail: DETAIL.signedOut });
    expect((await me(ann.accessToken)).status).toBe(401);
    expect(await introspect(ctx.t, service, ann.accessToken)).toEqual({ active: false });
    expect((await postJson(ctx.t.app, "/v1/logout", {}, bearer(ann.accessToken))).status).toBe(401);
    // The browser signed in elsewhere keeps its session.
    expect((await me(other)).status).toBe(200);
    const rows = await auditRowsAbout(ctx.t, ann.id);
    expect(rows.filter((r) => r.action === "session.logout")).toHaveLength(1);
  });

  it("a token signed out stays refused by an instance started later (the revocations are stored)", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await postJson(ctx.t.app, "/v1/logout", {}, bearer(ann.accessToken));
    const revocations = createTokenRevocations(ctx.database.db, ctx.t.clock);
    await revocations.start();
    const restarted = createAccessTokens({ ...TEST_JWT, isRevoked: revocations.isRevoked }, ctx.t.clock);
    expect(await restarted.verify(ann.accessToken)).toBeUndefined();
    await revocations.close();
  });

  it("POST /v1/logout/all ends every access token of the account; API keys keep working", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const other = await secondToken("ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const key = await createKey(ctx.t, ann.accessToken);
    const service = await serviceKey(ctx.t);
    const res = await postJson(ctx.t.app, "/v1/logout/all", {}, bearer(ann.accessToken));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ detail: DETAIL.signedOutEverywhere });
    for (const token of [ann.accessToken, other]) {
      expect((await me(token)).status).toBe(401);
      expect(await introspect(ctx.t, service, token)).toEqual({ active: false });
    }
    expect((await me(bob.accessToken)).status).toBe(200);
    expect(await introspect(ctx.t, service, key.key)).toMatchObject({ active: true, token_type: "api_key" });
    // Signing in again works as before.
    expect((await me(await secondToken("ann"))).status).toBe(200);
    const rows = await auditRowsAbout(ctx.t, ann.id);
    expect(rows.filter((r) => r.action === "session.logout_all")).toHaveLength(1);
  });

  it("401 without a token", async () => {
    for (const path of ["/v1/logout", "/v1/logout/all"]) {
      expect((await postJson(ctx.t.app, path, {})).status).toBe(401);
    }
  });

  it("tokens carry jti, auth_time and amr", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const claims = await ctx.t.deps.accessTokens.verify(ann.accessToken);
    expect(claims).toMatchObject({
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      auth_time: claims?.iat,
      amr: ["pwd"],
    });
  });
});
