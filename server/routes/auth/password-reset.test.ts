import { describe, expect, it } from "vitest";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { findUserByUsername } from "../../accounts/users.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { bearer, createKey, introspect, serviceKey } from "../../testing/api-access.ts";
import {
  fromIp,
  GOOD_PASSWORD,
  getJson,
  latestMailTo,
  login,
  postJson,
  register,
  verifiedUser,
} from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";

const NEW_PASSWORD = "Newpass9#";

describe.each(TEST_DATABASES)("password reset (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const requestReset = (email: string, headers = fromIp()) =>
    postJson(ctx.t.app, "/v1/user/password-reset-request", { email }, headers);

  async function resetLink(email: string) {
    expect((await requestReset(email)).status).toBe(200);
    // The API key's mail may go out in the same millisecond: pick the reset mail by its subject.
    return latestMailTo(ctx.t, email, "Reset your");
  }

  describe("what a reset says about API keys", () => {
    it("the reset mail says API keys keep working; after the reset a mail lists them with 'Revoke all API keys'", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const key = await createKey(ctx.t, ann.accessToken, { name: "Render server" });
      const { mail, token } = await resetLink("ann@example.com");
      expect(mail.text).toContain("your API keys keep working");
      expect(mail.text).not.toContain("signs you out everywhere");
      const reset = await postJson(
        ctx.t.app,
        "/v1/user/password-reset",
        { token, password: NEW_PASSWORD },
        fromIp("203.0.113.5"),
      );
      expect(reset.status).toBe(200);
      const changed = (await ctx.t.mails()).find((m) => m.subject.includes("password was changed"));
      expect(changed?.to).toBe("ann@example.com");
      expect(changed?.text).toContain("from the address 203.0.113.5");
      expect(changed?.text).toContain(`These API keys keep working: Render server (${key.prefix}…)`);
      expect(changed?.links).toContain(`${TEST_PORTAL_URL}/profile/api-keys#revoke-all`);
      // True to its word: the key still introspects active, the old access token does not work.
      expect((await getJson(ctx.t.app, "/v1/users/me", ann.accessToken)).status).toBe(401);
      const service = await serviceKey(ctx.t);
      expect(await introspect(ctx.t, service, key.key)).toMatchObject({ active: true });
      const actions = (await auditRowsAbout(ctx.t, ann.id)).map((r) => [r.action, r.ip]);
      expect(actions).toContainEqual(["password.reset", "203.0.113.5"]);

      // "Revoke all API keys" ends every key at once.
      const token2 = ((await (await login(ctx.t, "ann", NEW_PASSWORD)).json()) as { access_token: string })
        .access_token;
      await createKey(ctx.t, token2, { name: "Second" });
      const all = await postJson(ctx.t.app, "/v1/api-keys/revoke-all", {}, bearer(token2));
      expect(all.status).toBe(200);
      expect(await all.json()).toEqual({ revoked: 2 });
      expect(await introspect(ctx.t, service, key.key)).toEqual({ active: false });
      expect(await (await postJson(ctx.t.app, "/v1/api-keys/revoke-all", {}, bearer(token2))).json()).toEqual(
        {
          revoked: 0,
        },
      );
      expect((await postJson(ctx.t.app, "/v1/api-keys/revoke-all", {})).status).toBe(401);
    });

    it("a mail after a reset of an account without keys says so", async () => {
      await verifiedUser(ctx.t, "bob");
      const { token } = await resetLink("bob@example.com");
      await postJson(ctx.t.app, "/v1/user/password-reset", { token, password: NEW_PASSWORD });
      const changed = (await ctx.t.mails()).find((m) => m.subject.includes("password was changed"));
      expect(changed?.text).toContain("Your account has no API keys.");
    });
  });

  describe("POST /v1/user/password-reset-request", () => {
    it("answers known and unknown addresses byte for byte the same, and mails only the known one", async () => {
      await verifiedUser(ctx.t, "ann");
      const before = (await ctx.t.mails()).length;
      const known = await requestReset("ann@example.com");
      const unknown = await requestReset("nobody@example.com");
      for (const res of [known, unknown]) expect(res.status).toBe(200);
      const knownBody = await known.text();
      expect(knownBody).toBe(JSON.stringify({ detail: DETAIL.resetRequested }));
      expect(await unknown.text()).toBe(knownBody);
      expect([...known.headers.entries()]).toEqual([...unknown.headers.entries()]);

      const mails = await ctx.t.mails();
      expect(mails).toHaveLength(before + 1);
      expect(mails[0]?.to).toBe("ann@example.com");
      expect(mails[0]?.links[0]).toMatch(new RegExp(`^${TEST_PORTAL_URL}/reset-password/[A-Za-z0-9_-]{43}$`));
    });

    it("finds the account whatever the case of the address, and mails the stored address", async () => {
      await register(ctx.t, "ann", { email: "Ann@Example.com" });
      expect((await requestReset("ANN@example.COM")).status).toBe(200);
      // The verification mail and the reset mail carry the same (test) clock time: find it by subject.
      const reset = (await ctx.t.mails()).filter((m) => /reset/i.test(m.subject));
      expect(reset.map((m) => m.to)).toEqual(["Ann@example.com"]);
    });

    it("422 for an invalid address", async () => {
      const res = await requestReset("not-an-email");
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ["body", "email"], msg: VALIDATION.emailInvalid, type: "value_error" }],
      });
    });

    it("limits each address to 3 requests a minute, from any client", async () => {
      for (let i = 0; i < 3; i++) expect((await requestReset("nobody@example.com")).status).toBe(200);
      const limited = await requestReset("NOBODY@example.com");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(await limited.json()).toEqual({ detail: DETAIL.tooManyRequests });
      expect((await requestReset("other@example.com")).status).toBe(200);
    });

    it("limits one client to 10 requests a minute across addresses", async () => {
      const ip = fromIp();
      for (let i = 0; i < 10; i++) expect((await requestReset(`n${i}@example.com`, ip)).status).toBe(200);
      expect((await requestReset("n10@example.com", ip)).status).toBe(429);
    });
  });

  describe("GET /v1/user/password-reset-check/{token}", () => {
    it("200 {valid: true} for a fresh token, without using it up", async () => {
      await verifiedUser(ctx.t, "ann");
      const { token } = await resetLink("ann@example.com");
      for (let i = 0; i < 2; i++) {
        const res = await getJson(ctx.t.app, `/v1/user/password-reset-check/${token}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ valid: true });
      }
    });

    it.each(["unknown", "a".repeat(43), "%E2%82%AC", "x".repeat(2000)])("400 for %s", async (token) => {
      const res = await getJson(ctx.t.app, `/v1/user/password-reset-check/${token}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
    });

    it("400 after one hour", async () => {
      await verifiedUser(ctx.t, "ann");
      const { token } = await resetLink("ann@example.com");
      ctx.t.clock.advance(59 * 60_000);
      expect((await getJson(ctx.t.app, `/v1/user/password-reset-check/${token}`)).status).toBe(200);
      ctx.t.clock.advance(60_000);
      expect((await getJson(ctx.t.app, `/v1/user/password-reset-check/${token}`)).status).toBe(400);
    });

    it("400 for a verification token (tokens are good for one purpose)", async () => {
      await register(ctx.t, "ann");
      const { token } = await latestMailTo(ctx.t, "ann@example.com");
      expect((await getJson(ctx.t.app, `/v1/user/password-reset-check/${token}`)).status).toBe(400);
    });
  });

  describe("POST /v1/user/password-reset", () => {
    const reset = (token: string, password = NEW_PASSWORD) =>
      postJson(ctx.t.app, "/v1/user/password-reset", { token, password });

    it("sets the new password, once; the old password and every older access token stop working", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const { token } = await resetLink("ann@example.com");

      const res = await reset(token);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ detail: DETAIL.passwordResetDone });

      expect((await getJson(ctx.t.app, "/v1/users/me", user.accessToken)).status).toBe(401);
      expect((await login(ctx.t, "ann", GOOD_PASSWORD)).status).toBe(400);
      const fresh = await login(ctx.t, "ann", NEW_PASSWORD);
      expect(fresh.status).toBe(200);
      const { access_token } = (await fresh.json()) as { access_token: string };
      expect((await getJson(ctx.t.app, "/v1/users/me", access_token)).status).toBe(200);

      const again = await reset(token, "Another1!");
      expect(again.status).toBe(400);
      expect(await again.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
      expect((await getJson(ctx.t.app, `/v1/user/password-reset-check/${token}`)).status).toBe(400);
    });

    it("ends the user's other reset tokens", async () => {
      await verifiedUser(ctx.t, "ann");
      const first = await resetLink("ann@example.com");
      const second = await resetLink("ann@example.com");
      expect(first.token).not.toBe(second.token);
      expect((await reset(second.token)).status).toBe(200);
      expect((await reset(first.token, "Another1!")).status).toBe(400);
    });

    it("400 after one hour", async () => {
      await verifiedUser(ctx.t, "ann");
      const { token } = await resetLink("ann@example.com");
      ctx.t.clock.advance(60 * 60_000 + 1);
      expect((await reset(token)).status).toBe(400);
      expect((await login(ctx.t, "ann", GOOD_PASSWORD)).status).toBe(200);
    });

    it("lets only one of two simultaneous uses of a token win", async () => {
      await verifiedUser(ctx.t, "ann");
      const { token } = await resetLink("ann@example.com");
      const results = await Promise.all([reset(token, "Winner11!"), reset(token, "Winner22!")]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      const user = await findUserByUsername(ctx.database.db, "ann");
      expect(user?.tokenVersion).toBe(1);
    });

    it("counts the address as verified: the link proved the user reads it", async () => {
      await register(ctx.t, "ann");
      expect((await login(ctx.t, "ann")).status).toBe(403);
      const { token } = await resetLink("ann@example.com");
      expect((await reset(token)).status).toBe(200);
      expect((await login(ctx.t, "ann", NEW_PASSWORD)).status).toBe(200);
    });

    it.each([
      [{ token: "t", password: "weak" }, "password", VALIDATION.passwordTooShort, "value_error"],
      [{ token: "t" }, "password", VALIDATION.passwordRequired, "missing"],
      [{ password: NEW_PASSWORD }, "token", VALIDATION.tokenRequired, "missing"],
    ])("422 for %j", async (body, field, msg, type) => {
      const res = await postJson(ctx.t.app, "/v1/user/password-reset", body);
      expect(res.status).toBe(422);
      const detail = ((await res.json()) as { detail: unknown[] }).detail;
      expect(detail[0]).toEqual({ loc: ["body", field], msg, type });
    });

    it("400 for an unknown token", async () => {
      const res = await reset("not-a-real-token");
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
    });
  });
});
