// Passkeys through the API on PGlite and PostgreSQL, answered by a software authenticator with
// real signatures: adding, listing and removing one; signing in with it alone; using it as the
// second factor; and the answers that must fail (a replayed challenge, another site, a cloned key).
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { totpCode } from "../../auth/totp.ts";
import { users } from "../../db/schema/index.ts";
import { auditRowsAbout, setRole, staffMember } from "../../testing/admin.ts";
import {
  fromIp,
  GOOD_PASSWORD,
  getJson,
  postForm,
  postJson,
  verifiedUser,
} from "../../testing/api-client.ts";
import { type SoftPasskey, softPasskey } from "../../testing/soft-authenticator.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";
import { callAs, codeStep, passwordStep, turnOnTwoFactor } from "../../testing/two-factor.ts";

const ORIGIN = new URL(TEST_PORTAL_URL).origin;

describe.each(TEST_DATABASES)("passkeys (%s)", (kind) => {
  const ctx = useTestApp(kind);

  async function addPasskey(token: string, key: SoftPasskey, name = "Laptop") {
    const options = await callAs(ctx.t, "/v1/users/me/passkeys/options", token);
    expect(options.status, await options.clone().text()).toBe(200);
    const created = key.create((await options.json()) as { challenge: string; rp: { id?: string } }, ORIGIN);
    return callAs(ctx.t, "/v1/users/me/passkeys", token, { name, response: created });
  }

  async function signInOptions(body: Record<string, unknown> = {}) {
    const res = await postJson(ctx.t.app, "/v1/passkeys/options", body, fromIp());
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { challenge: string; rpId?: string; allowCredentials?: { id: string }[] };
  }

  const passkeySignIn = (answer: unknown, ip = "198.51.100.90") =>
    postJson(ctx.t.app, "/v1/token/passkey", { response: answer }, fromIp(ip));

  it("adds a passkey, lists it, signs in with it alone (amr hwk), and removes it", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = softPasskey();
    const added = await addPasskey(ann.accessToken, key, "  MacBook  ");
    expect(added.status, await added.clone().text()).toBe(201);
    expect(await added.json()).toMatchObject({ id: key.id, name: "MacBook", last_used_at: null });
    // The same authenticator twice: refused.
    expect((await addPasskey(ann.accessToken, key)).status).toBe(409);

    const options = await signInOptions();
    expect(options.allowCredentials ?? []).toEqual([]);
    const res = await passkeySignIn(key.get(options, ORIGIN));
    expect(res.status, await res.clone().text()).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    expect(await ctx.t.deps.accessTokens.verify(access_token)).toMatchObject({ amr: ["hwk"] });
    const list = (await (await getJson(ctx.t.app, "/v1/users/me/passkeys", access_token)).json()) as {
      data: { id: string; last_used_at: string | null }[];
    };
    expect(list.data).toEqual([expect.objectContaining({ id: key.id, last_used_at: expect.any(String) })]);

    const removed = await callAs(
      ctx.t,
      `/v1/users/me/passkeys/${encodeURIComponent(key.id)}`,
      access_token,
      undefined,
      "DELETE",
    );
    expect(removed.status).toBe(204);
    expect((await passkeySignIn(key.get(await signInOptions(), ORIGIN))).status).toBe(400);
    const actions = (await auditRowsAbout(ctx.t, ann.id, true)).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(["passkey.added", "passkey.removed"]));
  });

  it("refuses a replayed challenge, an answer made for another site, a cloned key, and an unknown passkey", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = softPasskey();
    expect((await addPasskey(ann.accessToken, key)).status).toBe(201);
    const options = await signInOptions();
    const answer = key.get(options, ORIGIN);
    expect((await passkeySignIn(answer)).status).toBe(200);
    const replay = await passkeySignIn(answer);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ detail: DETAIL.passkeyNotAccepted });
    expect((await passkeySignIn(key.get(await signInOptions(), "https://evil.example"))).status).toBe(400);
    key.setCounter(0);
    expect((await passkeySignIn(key.get(await signInOptions(), ORIGIN))).status).toBe(400);
    expect((await passkeySignIn(softPasskey().get(await signInOptions(), ORIGIN))).status).toBe(400);
  });

  it("serves as the second factor of a sign-in with a password (amr pwd hwk mfa), only the account's own", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const on = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const key = softPasskey();
    expect((await addPasskey(on.accessToken, key)).status).toBe(201);
    const bob = await verifiedUser(ctx.t, "bob");
    const bobKey = softPasskey();
    expect((await addPasskey(bob.accessToken, bobKey)).status).toBe(201);

    const mfaToken = await passwordStep(ctx.t, "ann");
    const options = await signInOptions({ mfa_token: mfaToken });
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([key.id]);
    // Bob's passkey does not answer for Ann.
    const wrong = await postJson(
      ctx.t.app,
      "/v1/token/mfa",
      { mfa_token: mfaToken, webauthn: bobKey.get(options, ORIGIN) },
      fromIp("198.51.100.20"),
    );
    expect(wrong.status).toBe(400);
    const again = await signInOptions({ mfa_token: mfaToken });
    const ok = await postJson(
      ctx.t.app,
      "/v1/token/mfa",
      { mfa_token: mfaToken, webauthn: key.get(again, ORIGIN) },
      fromIp("198.51.100.20"),
    );
    expect(ok.status, await ok.clone().text()).toBe(200);
    const { access_token } = (await ok.json()) as { access_token: string };
    expect(await ctx.t.deps.accessTokens.verify(access_token)).toMatchObject({ amr: ["pwd", "hwk", "mfa"] });
    // The code step offers the passkey among its methods.
    const step = await postForm(
      ctx.t.app,
      "/v1/token",
      { username: "ann", password: GOOD_PASSWORD },
      fromIp(),
    );
    expect(((await step.json()) as { methods: string[] }).methods).toEqual([
      "totp",
      "recovery_code",
      "webauthn",
    ]);
    expect((await codeStep(ctx.t, "unknown", "123456")).status).toBe(400);
    expect(
      (await postJson(ctx.t.app, "/v1/passkeys/options", { mfa_token: "unknown" }, fromIp())).status,
    ).toBe(400);
  });

  it("adding and removing need the password of the last 10 minutes", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    ctx.t.clock.advance(10 * 60_000 + 1000);
    const refused = await callAs(ctx.t, "/v1/users/me/passkeys/options", ann.accessToken);
    expect(refused.status).toBe(403);
    expect(
      (await callAs(ctx.t, "/v1/users/me/passkeys/x", ann.accessToken, undefined, "DELETE")).status,
    ).toBe(403);
  });

  it("re-authenticates with the account's own passkey: the 403 offers it, and the action goes on", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = softPasskey();
    expect((await addPasskey(ann.accessToken, key)).status).toBe(201);
    const bob = await verifiedUser(ctx.t, "bob");
    const bobsKey = softPasskey();
    expect((await addPasskey(bob.accessToken, bobsKey)).status).toBe(201);
    ctx.t.clock.advance(10 * 60_000 + 1000);

    const refused = await callAs(ctx.t, "/v1/api-keys", ann.accessToken, { name: "Render" });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      detail: DETAIL.reauthRequired,
      reauth_required: true,
      methods: ["password", "webauthn"],
      code_required: false,
    });
    const reauthOptions = async () => {
      const res = await callAs(ctx.t, "/v1/reauth/passkey-options", ann.accessToken);
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as {
        challenge: string;
        rpId?: string;
        userVerification?: string;
        allowCredentials?: { id: string }[];
      };
    };
    const options = await reauthOptions();
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([key.id]);
    // It stands in for the password: the authenticator must check its owner.
    expect(options.userVerification).toBe("required");

    // Bob's passkey answering Ann's challenge is refused, and counts like a wrong password.
    const wrong = await callAs(ctx.t, "/v1/reauth", ann.accessToken, {
      webauthn: bobsKey.get(options, ORIGIN),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ detail: DETAIL.passkeyNotConfirmed });

    const answer = key.get(await reauthOptions(), ORIGIN);
    const res = await callAs(ctx.t, "/v1/reauth", ann.accessToken, { webauthn: answer });
    expect(res.status, await res.clone().text()).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    expect(await ctx.t.deps.accessTokens.verify(access_token)).toMatchObject({
      auth_time: Math.floor(ctx.t.clock.now().getTime() / 1000),
      amr: ["pwd"],
    });
    // The answer works once; the token it replaced is signed out; the action goes through.
    expect((await callAs(ctx.t, "/v1/reauth", access_token, { webauthn: answer })).status).toBe(400);
    expect((await getJson(ctx.t.app, "/v1/users/me", ann.accessToken)).status).toBe(401);
    expect((await callAs(ctx.t, "/v1/api-keys", access_token, { name: "Render" })).status).toBe(201);

    const rows = await auditRowsAbout(ctx.t, ann.id, true);
    expect(rows.filter((r) => r.action === "session.reauth").map((r) => r.details)).toEqual([
      expect.objectContaining({ method: "passkey" }),
    ]);
    // Bob's passkey and the replay.
    expect(rows.filter((r) => r.action === "login.failed").map((r) => r.details)).toEqual([
      expect.objectContaining({ step: "reauth", method: "passkey" }),
      expect.objectContaining({ step: "reauth", method: "passkey" }),
    ]);
  });

  it("offers only the password to an account without a passkey", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    ctx.t.clock.advance(10 * 60_000 + 1000);
    const refused = await callAs(ctx.t, "/v1/api-keys", ann.accessToken, { name: "Render" });
    expect(await refused.json()).toMatchObject({ reauth_required: true, methods: ["password"] });
    const options = await callAs(ctx.t, "/v1/reauth/passkey-options", ann.accessToken);
    expect(options.status).toBe(400);
    expect(await options.json()).toEqual({ detail: DETAIL.noPasskey });
    // Neither a password nor a passkey's answer, or both: 422 with the field.
    const nothing = await callAs(ctx.t, "/v1/reauth", ann.accessToken, {});
    expect(nothing.status).toBe(422);
    expect(JSON.stringify(await nothing.json())).toContain("password");
    const both = await callAs(ctx.t, "/v1/reauth", ann.accessToken, {
      password: GOOD_PASSWORD,
      webauthn: softPasskey().get({ challenge: "x" }, ORIGIN),
    });
    expect(both.status).toBe(422);
    expect(JSON.stringify(await both.json())).toContain("webauthn");
  });

  it("limits the passkey sign-ins an address may start: each keeps a challenge", async () => {
    const from = fromIp("203.0.113.99");
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await postJson(ctx.t.app, "/v1/passkeys/options", {}, from)).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect((await postJson(ctx.t.app, "/v1/passkeys/options", {}, fromIp("203.0.113.100"))).status).toBe(200);
  });

  // Issue 30: a passkey signs in on its own, so one added with a stolen session must not go unseen.
  it("mails the owner when a passkey is added or removed, and the password-changed mail lists them", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = softPasskey();
    expect((await addPasskey(ann.accessToken, key, "Mallory's key")).status).toBe(201);
    const mailsTo = async (subject: string) =>
      (await ctx.t.mails()).filter((m) => m.to === ann.email && m.subject.includes(subject));
    const [added, ...moreAdded] = await mailsTo("A passkey was added");
    expect(moreAdded).toEqual([]);
    expect(added?.text).toContain('The passkey "Mallory\'s key" was added');
    expect(added?.links).toContain(`${ctx.t.deps.config.portalUrl}/profile/security`);

    const changed = await callAs(ctx.t, "/v1/users/me/password", ann.accessToken, {
      current_password: GOOD_PASSWORD,
      new_password: "Brand#New123",
    });
    expect(changed.status).toBe(200);
    const { access_token } = (await changed.json()) as { access_token: string };
    const [told] = await mailsTo("password was changed");
    expect(told?.text).toContain("These passkeys still sign in without the password: Mallory's key.");

    const path = `/v1/users/me/passkeys/${encodeURIComponent(key.id)}`;
    expect((await callAs(ctx.t, path, access_token, undefined, "DELETE")).status).toBe(204);
    const [removed, ...moreRemoved] = await mailsTo("A passkey was removed");
    expect(moreRemoved).toEqual([]);
    expect(removed?.text).toContain('The passkey "Mallory\'s key" was removed');
  });

  it("mails every admin (not a deleted one) when a staff account adds or removes a factor", async () => {
    const admin = await staffMember(ctx.t, "carol", "admin");
    const gone = await verifiedUser(ctx.t, "gone");
    await setRole(ctx.t, gone.id, "admin");
    await ctx.t.deps.db.update(users).set({ deletedAt: ctx.t.clock.now() }).where(eq(users.id, gone.id));
    const staffMails = async () =>
      (await ctx.t.mails()).filter((m) => m.subject.startsWith("Staff account sam"));

    const sam = await staffMember(ctx.t, "sam", "support");
    expect((await staffMails()).map((m) => [m.to, m.subject])).toEqual([
      [admin.email, "Staff account sam turned two-factor sign-in on"],
    ]);
    const key = softPasskey();
    expect((await addPasskey(sam.accessToken, key, "YubiKey")).status).toBe(201);
    const renewed = await callAs(ctx.t, "/v1/users/me/mfa/recovery-codes", sam.accessToken, {
      code: totpCode(sam.totpSecret, new Date(ctx.t.clock.now().getTime() + 30_000)),
    });
    expect(renewed.status).toBe(200);
    const path = `/v1/users/me/passkeys/${encodeURIComponent(key.id)}`;
    expect((await callAs(ctx.t, path, sam.accessToken, undefined, "DELETE")).status).toBe(204);
    const mails = await staffMails();
    // Sent in the background, so in no set order.
    expect(mails.map((m) => m.subject).sort()).toEqual([
      "Staff account sam added a passkey",
      "Staff account sam made new recovery codes",
      "Staff account sam removed a passkey",
      "Staff account sam turned two-factor sign-in on",
    ]);
    expect(mails.every((m) => m.to === admin.email)).toBe(true);
    const added = mails.find((m) => m.subject.endsWith("added a passkey"));
    expect(added?.text).toContain("The staff account sam (support) added a passkey");

    // A customer's factors are their own business: no admin hears of them.
    const ann = await verifiedUser(ctx.t, "ann");
    expect((await addPasskey(ann.accessToken, softPasskey())).status).toBe(201);
    expect((await ctx.t.mails()).filter((m) => m.subject.startsWith("Staff account ann"))).toEqual([]);
  });

  it("keeps a staff account's last second factor: 409 for the only one, either kind; a customer's goes", async () => {
    const sam = await staffMember(ctx.t, "sam", "support");
    const code = (steps: number) =>
      totpCode(sam.totpSecret, new Date(ctx.t.clock.now().getTime() + steps * 30_000));
    const appOff = () => callAs(ctx.t, "/v1/users/me/mfa/totp", sam.accessToken, { code: code(1) }, "DELETE");
    const lastApp = await appOff();
    expect(lastApp.status).toBe(409);
    expect(await lastApp.json()).toEqual({ detail: DETAIL.staffKeepSecondFactor });
    // With a passkey as well, the app may go; then the passkey is the last and stays.
    const key = softPasskey();
    expect((await addPasskey(sam.accessToken, key, "YubiKey")).status).toBe(201);
    expect((await appOff()).status).toBe(200);
    const path = `/v1/users/me/passkeys/${encodeURIComponent(key.id)}`;
    const lastKey = await callAs(ctx.t, path, sam.accessToken, undefined, "DELETE");
    expect(lastKey.status).toBe(409);
    expect(await lastKey.json()).toEqual({ detail: DETAIL.staffKeepSecondFactor });
    expect((await getJson(ctx.t.app, "/v1/users/me/passkeys", sam.accessToken)).status).toBe(200);
    // Once the role is taken away, the factor is the account's own business again.
    await setRole(ctx.t, sam.id, "user");
    expect((await callAs(ctx.t, path, sam.accessToken, undefined, "DELETE")).status).toBe(204);
  });
});
