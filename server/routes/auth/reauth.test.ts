import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { apiKeys } from "../../db/schema/index.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { bearer } from "../../testing/api-access.ts";
import { fromIp, GOOD_PASSWORD, getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { CONTRACT_LIMITS } from "../../testing/test-app.ts";
import { callAs, codeAt, turnOnTwoFactor } from "../../testing/two-factor.ts";

describe.each(TEST_DATABASES)("re-authentication for sensitive actions (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const newKey = (token: string) => postJson(ctx.t.app, "/v1/api-keys", { name: "CI" }, bearer(token));
  const reauth = (token: string, password: string, ip = fromIp(), code?: string) =>
    postJson(ctx.t.app, "/v1/reauth", { password, code }, { ...bearer(token), ...ip });
  const mailsTo = async (to: string, subject: string) =>
    (await ctx.t.mails()).filter((m) => m.to === to && m.subject.includes(subject));

  /** Ann with two-factor sign-in on, 11 minutes after her last sign-in: a stale token and her secret. */
  async function staleTwoFactorAnn() {
    const ann = await verifiedUser(ctx.t, "ann");
    const on = await turnOnTwoFactor(ctx.t, ann.accessToken);
    ctx.t.clock.advance(11 * 60_000);
    return { ...ann, ...on };
  }

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
      code_required: false,
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

  // Issue 30: the password and a stale token must not stand in for the second factor. The
  // password alone used to answer a fresh token, which added a passkey that then signed in alone.
  it("with two-factor on, the password alone is not enough: the code must come with it", async () => {
    const ann = await staleTwoFactorAnn();
    const passkeyOptions = () => callAs(ctx.t, "/v1/users/me/passkeys/options", ann.accessToken);
    const refused = await passkeyOptions();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      detail: DETAIL.reauthRequired,
      reauth_required: true,
      methods: ["password"],
      code_required: true,
    });
    const alone = await reauth(ann.accessToken, GOOD_PASSWORD);
    expect(alone.status).toBe(400);
    expect(await alone.json()).toEqual({ detail: DETAIL.reauthCodeRequired, code_required: true });
    // No new token, and the old one is still stale.
    expect((await passkeyOptions()).status).toBe(403);

    const wrong = await reauth(ann.accessToken, GOOD_PASSWORD, fromIp(), "000000");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ detail: DETAIL.incorrectCode });
    // A wrong password with a right code is still a wrong password (and the code is not spent).
    const wrongPassword = await reauth(ann.accessToken, "Wrong#123", fromIp(), codeAt(ctx.t, ann.secret));
    expect(await wrongPassword.json()).toEqual({ detail: DETAIL.incorrectPassword });

    const confirmed = await reauth(ann.accessToken, GOOD_PASSWORD, fromIp(), codeAt(ctx.t, ann.secret));
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);
    const { access_token } = (await confirmed.json()) as { access_token: string };
    expect(await ctx.t.deps.accessTokens.verify(access_token)).toMatchObject({
      amr: ["pwd", "otp", "mfa"],
      auth_time: Math.floor(ctx.t.clock.now().getTime() / 1000),
    });
    expect((await callAs(ctx.t, "/v1/users/me/passkeys/options", access_token)).status).toBe(200);
    const rows = await auditRowsAbout(ctx.t, ann.id, true);
    expect(rows.filter((r) => r.action === "login.failed").map((r) => r.details)).toEqual([
      { step: "reauth", method: "code", user_agent: null },
      { step: "reauth", user_agent: null },
    ]);
    expect(rows.find((r) => r.action === "session.reauth")?.details).toMatchObject({
      method: "password",
      second_factor: "totp",
    });
  });

  it("with two-factor on, a recovery code confirms too, once, and the owner is mailed", async () => {
    const ann = await staleTwoFactorAnn();
    const code = ann.recoveryCodes[0] ?? "";
    const confirmed = await reauth(ann.accessToken, GOOD_PASSWORD, fromIp(), code);
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);
    const { access_token } = (await confirmed.json()) as { access_token: string };
    ctx.t.clock.advance(11 * 60_000);
    expect((await reauth(access_token, GOOD_PASSWORD, fromIp(), code)).status).toBe(400);
    const [mail, ...more] = await mailsTo(ann.email, "A recovery code was used");
    expect(more).toEqual([]);
    expect(mail?.text).toContain("You have 9 recovery codes left.");
  });

  it("with two-factor on, wrong codes count like wrong passwords (429 after five from one address)", async () => {
    const ann = await staleTwoFactorAnn();
    const from = fromIp();
    for (let i = 0; i < 5; i++) {
      expect((await reauth(ann.accessToken, GOOD_PASSWORD, from, `00000${i}`)).status).toBe(400);
    }
    const throttled = await reauth(ann.accessToken, GOOD_PASSWORD, from, codeAt(ctx.t, ann.secret));
    expect(throttled.status).toBe(429);
  });

  it("with two-factor on, wrong codes count per account from any address; past the limit even the right code waits", async () => {
    const ann = await staleTwoFactorAnn();
    const limit = CONTRACT_LIMITS.mfaFailuresPerHour;
    // Each guess from its own network: no per-address or per-(username, address) limit is reached.
    for (let i = 0; i < limit; i++) {
      const wrong = await reauth(ann.accessToken, GOOD_PASSWORD, fromIp(`2001:db8:${i + 1}::1`), "000000");
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toMatchObject({ detail: DETAIL.incorrectCode });
    }
    const refused = await reauth(
      ann.accessToken,
      GOOD_PASSWORD,
      fromIp("2001:db8:ff::1"),
      codeAt(ctx.t, ann.secret, 1),
    );
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: DETAIL.tooManyWrongCodes });
    expect((await newKey(ann.accessToken)).status).toBe(403);
    await ctx.t.tasks.idle();
    expect(await mailsTo(ann.email, "is guessing your codes")).toHaveLength(1);
  });

  it("with two-factor on, changing the password with the current one needs a fresh sign-in too", async () => {
    const ann = await staleTwoFactorAnn();
    const change = (token: string) =>
      callAs(ctx.t, "/v1/users/me/password", token, {
        current_password: GOOD_PASSWORD,
        new_password: "Brand#New123",
      });
    const refused = await change(ann.accessToken);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ reauth_required: true, code_required: true });
    const confirmed = await reauth(ann.accessToken, GOOD_PASSWORD, fromIp(), codeAt(ctx.t, ann.secret));
    const { access_token } = (await confirmed.json()) as { access_token: string };
    expect((await change(access_token)).status).toBe(200);
  });

  it("without two-factor, the current password still changes it with an old token", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    ctx.t.clock.advance(11 * 60_000);
    const changed = await callAs(ctx.t, "/v1/users/me/password", ann.accessToken, {
      current_password: GOOD_PASSWORD,
      new_password: "Brand#New123",
    });
    expect(changed.status).toBe(200);
  });
});
