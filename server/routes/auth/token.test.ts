import { decodeJwt } from "jose";
import { describe, expect, it, vi } from "vitest";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { createPasswordHasher } from "../../auth/passwords.ts";
import {
  fromIp,
  GOOD_PASSWORD,
  login,
  postForm,
  postJson,
  register,
  verifiedUser,
} from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { createTestApp, TEST_JWT } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("POST /v1/token (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("gives a verified user a bearer token with the contract's claims", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const res = await login(ctx.t, "ann");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(body).toEqual({ access_token: expect.any(String), token_type: "bearer", expires_in: 86_400 });
    const claims = decodeJwt(body.access_token);
    const now = Math.floor(ctx.t.clock.now().getTime() / 1000);
    expect(claims).toMatchObject({
      sub: user.id,
      username: "ann",
      role: "user",
      ver: 0,
      iat: now,
      exp: now + 86_400,
      iss: TEST_JWT.issuer,
      aud: TEST_JWT.audience,
    });
  });

  it("matches the username case-insensitively", async () => {
    await verifiedUser(ctx.t, "Ann.Smith");
    expect((await login(ctx.t, "ann.smith")).status).toBe(200);
    expect((await login(ctx.t, "ANN.SMITH")).status).toBe(200);
  });

  it("accepts grant_type=password and multipart forms, like OAuth2PasswordRequestForm", async () => {
    await verifiedUser(ctx.t, "ann");
    const withGrant = await postForm(ctx.t.app, "/v1/token", {
      grant_type: "password",
      username: "ann",
      password: GOOD_PASSWORD,
      scope: "",
    });
    expect(withGrant.status).toBe(200);
    const form = new FormData();
    form.set("username", "ann");
    form.set("password", GOOD_PASSWORD);
    const multipart = await ctx.t.app.request("/v1/token", { method: "POST", body: form, headers: fromIp() });
    expect(multipart.status).toBe(200);
  });

  it("answers a wrong password and an unknown user identically (400)", async () => {
    await verifiedUser(ctx.t, "ann");
    const wrong = await login(ctx.t, "ann", "Wrong123!");
    const unknown = await login(ctx.t, "nobody", "Wrong123!");
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(400);
    const wrongBody = await wrong.text();
    expect(wrongBody).toBe(JSON.stringify({ detail: DETAIL.incorrectCredentials }));
    expect(await unknown.text()).toBe(wrongBody);
  });

  it("spends a full argon2 verification on an unknown user", async () => {
    const passwords = createPasswordHasher();
    const dummy = vi.spyOn(passwords, "verifyDummy");
    const app = createTestApp(ctx.database.db, { passwords });
    expect((await login(app, "nobody", "Whatever1!")).status).toBe(400);
    expect(dummy).toHaveBeenCalledWith("Whatever1!");
  });

  it("says 'Email not verified' (403) only to someone who knows the password", async () => {
    await register(ctx.t, "ann");
    const right = await login(ctx.t, "ann");
    expect(right.status).toBe(403);
    expect(await right.json()).toEqual({ detail: DETAIL.emailNotVerified });
    const wrong = await login(ctx.t, "ann", "Wrong123!");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ detail: DETAIL.incorrectCredentials });
  });

  it.each([
    [{ password: "x" }, "username", VALIDATION.usernameRequired, "missing"],
    [{ username: "ann" }, "password", VALIDATION.passwordRequired, "missing"],
    [{ username: "ann", password: "" }, "password", VALIDATION.passwordRequired, "value_error"],
    [{ username: "a b", password: "x" }, "username", VALIDATION.usernameInvalid, "value_error"],
    [
      { username: "ann", password: "x", grant_type: "client_credentials" },
      "grant_type",
      "grant_type must be password",
      "value_error",
    ],
  ])("422 for %j", async (fields, field, msg, type) => {
    const res = await postForm(ctx.t.app, "/v1/token", fields as Record<string, string>, fromIp());
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: [{ loc: ["body", field], msg, type }] });
  });

  it.each([
    [
      "JSON instead of a form",
      { "Content-Type": "application/json" },
      JSON.stringify({ username: "ann", password: "x" }),
    ],
    ["no content type", {}, "username=ann&password=x"],
    ["plain text", { "Content-Type": "text/plain" }, "username=ann&password=x"],
    ["a broken multipart body", { "Content-Type": "multipart/form-data; boundary=zzz" }, "--zzz\r\nnonsense"],
  ])("422, never 500, for %s", async (_label, headers, body) => {
    const res = await ctx.t.app.request("/v1/token", {
      method: "POST",
      headers: { ...headers, ...fromIp() },
      body,
    });
    expect(res.status).toBe(422);
    const json = (await res.json()) as { detail: { loc: string[] }[] };
    expect(json.detail[0]?.loc).toEqual(["body"]);
  });

  it("refuses a repeated field instead of picking one", async () => {
    const res = await ctx.t.app.request("/v1/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...fromIp() },
      body: "username=ann&username=bob&password=x",
    });
    expect(res.status).toBe(422);
  });

  it("limits failed attempts at one account from one address to 5 a minute (429 with Retry-After), never the account", async () => {
    await verifiedUser(ctx.t, "ann");
    const from = fromIp();
    for (let i = 0; i < 5; i++) {
      expect(
        (await postForm(ctx.t.app, "/v1/token", { username: "ann", password: "Wrong123!" }, from)).status,
      ).toBe(400);
    }
    const limited = await postForm(
      ctx.t.app,
      "/v1/token",
      { username: "ANN", password: GOOD_PASSWORD },
      from,
    );
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(await limited.json()).toEqual({ detail: DETAIL.tooManyRequests });
    // The owner, from another address, is not affected.
    expect((await login(ctx.t, "ann")).status).toBe(200);
  });

  it("limits failed attempts from one address to 10 a minute, across accounts", async () => {
    const ip = fromIp();
    for (let i = 0; i < 10; i++) {
      const res = await postForm(ctx.t.app, "/v1/token", { username: `user${i}`, password: "Wrong123!" }, ip);
      expect(res.status).toBe(400);
    }
    const limited = await postForm(ctx.t.app, "/v1/token", { username: "user10", password: "Wrong123!" }, ip);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("stops counting an address the proxy did not add when TRUST_PROXY is off", async () => {
    const direct = createTestApp(ctx.database.db, { trustProxy: false });
    // Every request claims a new X-Forwarded-For, but without a trusted proxy they all count as one client.
    for (let i = 0; i < 10; i++) await login(direct, `user${i}`, "Wrong123!");
    expect((await login(direct, "user10", "Wrong123!")).status).toBe(429);
  });

  it("uses the token: GET /v1/users/me answers for it", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const me = await ctx.t.app.request("/v1/users/me", {
      headers: { Authorization: `Bearer ${user.accessToken}` },
    });
    expect(me.status).toBe(200);
  });

  it("ignores JSON bodies even when they are well-formed (the call is a form)", async () => {
    const res = await postJson(
      ctx.t.app,
      "/v1/token",
      { username: "ann", password: GOOD_PASSWORD },
      fromIp(),
    );
    expect(res.status).toBe(422);
  });
});
