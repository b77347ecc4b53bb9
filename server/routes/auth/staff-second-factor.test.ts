// A staff account whose only second factor is a passkey (decision 046), on PGlite and PostgreSQL.
// The review's HIGH: its password alone answered POST /v1/token with a token, which, fresh, then
// enrolled the holder's own authenticator (whose confirmation answered amr ["pwd","otp","mfa"]) or
// added the holder's own passkey (amr ["hwk"]): /v1/admin either way. Now the password answers the
// code step with the passkey as its only method; adding a factor takes a token that shows one; and
// the confirmation of an app counts it as a second factor only where signing in asked for none
// before (a customer's passkey is not asked for). Customers with a passkey alone still sign in with
// the password alone (decision 023).
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { mfaRequiredSchema } from "../../../contract/two-factor.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { findUserById } from "../../accounts/users.ts";
import { auditRowsAbout, setRole, staffMember } from "../../testing/admin.ts";
import {
  fromIp,
  GOOD_PASSWORD,
  getJson,
  login,
  postForm,
  postJson,
  verifiedUser,
} from "../../testing/api-client.ts";
import { type SoftPasskey, softPasskey } from "../../testing/soft-authenticator.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";
import {
  callAs,
  codeAt,
  codeStep,
  MFA_PATH,
  passwordStep,
  signInWithCode,
} from "../../testing/two-factor.ts";

const ORIGIN = new URL(TEST_PORTAL_URL).origin;
const ADMIN = "/v1/admin/customers";

describe.each(TEST_DATABASES)("a staff account's passkey as its second factor (%s)", (kind) => {
  const ctx = useTestApp(kind);

  async function addPasskey(token: string, key: SoftPasskey, name = "YubiKey") {
    const options = await callAs(ctx.t, "/v1/users/me/passkeys/options", token);
    expect(options.status, await options.clone().text()).toBe(200);
    const created = key.create((await options.json()) as { challenge: string; rp: { id?: string } }, ORIGIN);
    return callAs(ctx.t, "/v1/users/me/passkeys", token, { name, response: created });
  }

  /** The options of a passkey sign-in: passwordless, or the second factor of `mfa_token`'s step. */
  async function signInOptions(body: Record<string, unknown> = {}) {
    const res = await postJson(ctx.t.app, "/v1/passkeys/options", body, fromIp());
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { challenge: string; allowCredentials?: { id: string }[] };
  }

  const tokenOf = async (res: Response) => {
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  /** A passwordless sign-in with `key`: its token (amr ["hwk"]). */
  const passkeySignIn = async (key: SoftPasskey) =>
    tokenOf(
      await postJson(
        ctx.t.app,
        "/v1/token/passkey",
        { response: key.get(await signInOptions(), ORIGIN) },
        fromIp(),
      ),
    );
  const amrOf = async (token: string) => (await ctx.t.deps.accessTokens.verify(token))?.amr;

  /**
   * Sam, support, whose only second factor is a passkey (staff-factors.ts allows it), and a token
   * that shows the password alone, as POST /v1/token answered before this change.
   */
  async function passkeyOnlyStaff() {
    const sam = await verifiedUser(ctx.t, "sam");
    const key = softPasskey();
    expect((await addPasskey(sam.accessToken, key)).status).toBe(201);
    await setRole(ctx.t, sam.id, "support");
    const row = await findUserById(ctx.t.deps.db, sam.id);
    if (!row) throw new Error("sam is gone");
    const passwordOnly = (await ctx.t.deps.accessTokens.issue(row)).token;
    expect(await amrOf(passwordOnly)).toEqual(["pwd"]);
    return { sam: row, key, passwordOnly };
  }

  it("asks for the passkey after the password: methods ['webauthn'] alone, and the passkey opens the console", async () => {
    const { sam, key } = await passkeyOnlyStaff();
    const step = await login(ctx.t, "sam");
    expect(step.status, await step.clone().text()).toBe(403);
    const body = mfaRequiredSchema.parse(await step.json());
    expect(body).toEqual({
      detail: DETAIL.mfaRequired,
      mfa_token: expect.any(String),
      methods: ["webauthn"],
    });
    expect(step.headers.get("cache-control")).toBe("no-store");

    // A code can never answer it: the account has no app and no recovery codes.
    const code = await codeStep(ctx.t, body.mfa_token, "123456");
    expect(code.status).toBe(400);
    expect(await code.json()).toEqual({ detail: DETAIL.incorrectCode, tries_left: 4 });

    const options = await signInOptions({ mfa_token: body.mfa_token });
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([key.id]);
    const token = await tokenOf(
      await postJson(
        ctx.t.app,
        "/v1/token/mfa",
        { mfa_token: body.mfa_token, webauthn: key.get(options, ORIGIN) },
        fromIp("198.51.100.20"),
      ),
    );
    expect(await amrOf(token)).toEqual(["pwd", "hwk", "mfa"]);
    expect((await getJson(ctx.t.app, ADMIN, token)).status).toBe(200);
    // Audited as any sign-in with a second factor.
    const signIns = (await auditRowsAbout(ctx.t, sam.id, true)).filter((r) => r.action === "login.succeeded");
    expect(signIns.at(-1)?.details).toMatchObject({ second_factor: "passkey" });
  });

  it("(a) a token of the password alone cannot enrol an authenticator app, and so cannot reach the console", async () => {
    const { sam, key, passwordOnly } = await passkeyOnlyStaff();
    expect((await getJson(ctx.t.app, ADMIN, passwordOnly)).status).toBe(403);
    const started = await callAs(ctx.t, `${MFA_PATH}/totp`, passwordOnly);
    expect(started.status).toBe(403);
    expect(await started.json()).toEqual({ detail: DETAIL.secondFactorSignInRequired });
    // A setup begun with a token that may begin one is not confirmed with that token either.
    const begun = await callAs(ctx.t, `${MFA_PATH}/totp`, await passkeySignIn(key));
    expect(begun.status).toBe(201);
    const { secret } = (await begun.json()) as { secret: string };
    const confirmed = await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, passwordOnly, {
      code: codeAt(ctx.t, secret),
    });
    expect(confirmed.status).toBe(403);
    expect(await confirmed.json()).toEqual({ detail: DETAIL.secondFactorSignInRequired });
    expect(await (await getJson(ctx.t.app, MFA_PATH, passwordOnly)).json()).toMatchObject({ totp: false });
    expect((await getJson(ctx.t.app, ADMIN, passwordOnly)).status).toBe(403);
    expect((await auditRowsAbout(ctx.t, sam.id, true)).map((r) => r.action)).not.toContain("mfa.enabled");
  });

  it("(b) a token of the password alone cannot add a passkey, and so cannot sign in with one", async () => {
    const { sam, key, passwordOnly } = await passkeyOnlyStaff();
    const refused = await callAs(ctx.t, "/v1/users/me/passkeys/options", passwordOnly);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ detail: DETAIL.secondFactorSignInRequired });
    // Options had with a token that may ask for them: the answer is refused all the same.
    const mallory = softPasskey();
    const options = await callAs(ctx.t, "/v1/users/me/passkeys/options", await passkeySignIn(key));
    expect(options.status).toBe(200);
    const added = await callAs(ctx.t, "/v1/users/me/passkeys", passwordOnly, {
      name: "Mallory",
      response: mallory.create((await options.json()) as { challenge: string; rp: { id?: string } }, ORIGIN),
    });
    expect(added.status).toBe(403);
    expect(await added.json()).toEqual({ detail: DETAIL.secondFactorSignInRequired });
    const passwordless = await postJson(
      ctx.t.app,
      "/v1/token/passkey",
      { response: mallory.get(await signInOptions(), ORIGIN) },
      fromIp(),
    );
    expect(passwordless.status).toBe(400);
    const list = await getJson(ctx.t.app, "/v1/users/me/passkeys", passwordOnly);
    expect(((await list.json()) as { data: { id: string }[] }).data.map((p) => p.id)).toEqual([key.id]);
    const addedRows = (await auditRowsAbout(ctx.t, sam.id)).filter((r) => r.action === "passkey.added");
    expect(addedRows).toHaveLength(1);

    // Sam, signed in with the passkey, adds a second one and enrols an app: the token shows it.
    const own = await passkeySignIn(key);
    expect(await amrOf(own)).toEqual(["hwk"]);
    expect((await addPasskey(own, softPasskey(), "Spare key")).status).toBe(201);
    const started = await callAs(ctx.t, `${MFA_PATH}/totp`, own);
    expect(started.status).toBe(201);
    const { secret } = (await started.json()) as { secret: string };
    const confirmed = await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, own, { code: codeAt(ctx.t, secret) });
    // The token's amr stays what it proved: the passkey, not a code from an app enrolled just now.
    const after = await tokenOf(confirmed);
    expect(await amrOf(after)).toEqual(["hwk"]);
    expect((await getJson(ctx.t.app, ADMIN, after)).status).toBe(200);
    // Now the password's step offers all three.
    const step = await login(ctx.t, "sam");
    expect(((await step.json()) as { methods: string[] }).methods).toEqual([
      "totp",
      "recovery_code",
      "webauthn",
    ]);
  });

  it("re-authentication asks it for the passkey, never the password alone, as its sign-in does", async () => {
    const { key } = await passkeyOnlyStaff();
    const token = await passkeySignIn(key);
    ctx.t.clock.advance(10 * 60_000 + 1000);
    const stale = await callAs(ctx.t, "/v1/api-keys", token, { name: "Render" });
    expect(stale.status).toBe(403);
    expect(await stale.json()).toEqual({
      detail: DETAIL.reauthRequired,
      reauth_required: true,
      methods: ["webauthn"],
      code_required: false,
    });
    // Refused before the password is checked: the answer says nothing about it.
    for (const password of [GOOD_PASSWORD, "Wrong#123"]) {
      const withPassword = await callAs(ctx.t, "/v1/reauth", token, { password });
      expect(withPassword.status).toBe(400);
      expect(await withPassword.json()).toEqual({ detail: DETAIL.reauthPasskeyRequired });
    }
    // Changing the password with the current one asks for the passkey first too.
    const change = await callAs(ctx.t, "/v1/users/me/password", token, {
      current_password: GOOD_PASSWORD,
      new_password: "Brand#New123",
    });
    expect(change.status).toBe(403);
    expect(await change.json()).toMatchObject({ methods: ["webauthn"] });

    const options = await callAs(ctx.t, "/v1/reauth/passkey-options", token);
    expect(options.status).toBe(200);
    const fresh = await tokenOf(
      await callAs(ctx.t, "/v1/reauth", token, {
        webauthn: key.get((await options.json()) as { challenge: string }, ORIGIN),
      }),
    );
    expect(await amrOf(fresh)).toEqual(["hwk"]);
    expect((await callAs(ctx.t, "/v1/api-keys", fresh, { name: "Render" })).status).toBe(201);
    // A customer with a passkey alone keeps the password here (decision 023): passkeys.test.ts.
  });

  it("customers with a passkey: the app's code counts as their second factor, and the same session adds another passkey", async () => {
    // A customer's passkey is not asked for at sign-in (decision 023): before the app, their sign-in
    // asked for no second factor, so the code just given is one, as on an account without a passkey.
    const cora = await verifiedUser(ctx.t, "cora");
    expect((await addPasskey(cora.accessToken, softPasskey())).status).toBe(201);
    const started = await callAs(ctx.t, `${MFA_PATH}/totp`, cora.accessToken);
    expect(started.status).toBe(201);
    const { secret } = (await started.json()) as { secret: string };
    const confirmed = await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, cora.accessToken, {
      code: codeAt(ctx.t, secret),
    });
    const token = await tokenOf(confirmed);
    expect(await amrOf(token)).toEqual(["pwd", "otp", "mfa"]);
    // The old token is signed out, as before.
    expect((await getJson(ctx.t.app, "/v1/users/me", cora.accessToken)).status).toBe(401);
    // Signing in now asks for the code: the new token shows it, so it adds a passkey.
    expect((await addPasskey(token, softPasskey(), "Phone")).status).toBe(201);
    const listed = await getJson(ctx.t.app, "/v1/users/me/passkeys", token);
    expect(((await listed.json()) as { data: unknown[] }).data).toHaveLength(2);
    // Without a factor before, the code just given is the second factor, as ever.
    const ada = await staffMember(ctx.t, "ada", "admin");
    expect(await amrOf(ada.accessToken)).toEqual(["pwd", "otp", "mfa"]);
  });

  it("a customer signed in by passkey who turns the app on: the token adds the code, and claims no password", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const row = await findUserById(ctx.t.deps.db, cora.id);
    if (!row) throw new Error("cora is gone");
    // As a passwordless sign-in issues it (passkey-login.ts).
    const byPasskey = (
      await ctx.t.deps.accessTokens.issue(row, { authTime: ctx.t.clock.now(), amr: ["hwk"] })
    ).token;
    const started = await callAs(ctx.t, `${MFA_PATH}/totp`, byPasskey);
    expect(started.status).toBe(201);
    const { secret } = (await started.json()) as { secret: string };
    const confirmed = await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, byPasskey, {
      code: codeAt(ctx.t, secret),
    });
    expect(await amrOf(await tokenOf(confirmed))).toEqual(["hwk", "otp", "mfa"]);
  });

  it("staff with a passkey: the app's confirmation keeps the token's amr, as the passkey's sign-in showed it", async () => {
    const { sam, key } = await passkeyOnlyStaff();
    const body = mfaRequiredSchema.parse(await (await login(ctx.t, "sam")).json());
    const signedIn = await tokenOf(
      await postJson(
        ctx.t.app,
        "/v1/token/mfa",
        {
          mfa_token: body.mfa_token,
          webauthn: key.get(await signInOptions({ mfa_token: body.mfa_token }), ORIGIN),
        },
        fromIp(),
      ),
    );
    expect(await amrOf(signedIn)).toEqual(["pwd", "hwk", "mfa"]);
    const started = await callAs(ctx.t, `${MFA_PATH}/totp`, signedIn);
    const { secret } = (await started.json()) as { secret: string };
    const after = await tokenOf(
      await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, signedIn, { code: codeAt(ctx.t, secret) }),
    );
    expect(await amrOf(after)).toEqual(["pwd", "hwk", "mfa"]);
    expect((await auditRowsAbout(ctx.t, sam.id, true)).map((r) => r.action)).toContain("mfa.enabled");
  });

  it("customers: a passkey alone still signs in with the password, and the password's token adds factors", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect((await addPasskey(ann.accessToken, softPasskey(), "Laptop")).status).toBe(201);
    const token = await tokenOf(await login(ctx.t, "ann"));
    expect(await amrOf(token)).toEqual(["pwd"]);
    // Adding another passkey and an app with it: the password is all this account's sign-in asks.
    expect((await addPasskey(token, softPasskey(), "Phone")).status).toBe(201);
    const started = await callAs(ctx.t, `${MFA_PATH}/totp`, token);
    expect(started.status).toBe(201);
    const { secret } = (await started.json()) as { secret: string };
    const confirmed = await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, token, { code: codeAt(ctx.t, secret) });
    expect(confirmed.status).toBe(200);
    // With the app on, the password answers the code step, as before.
    const step = await postForm(
      ctx.t.app,
      "/v1/token",
      { username: "ann", password: GOOD_PASSWORD },
      fromIp(),
    );
    expect(step.status).toBe(403);
    expect(((await step.json()) as { methods: string[] }).methods).toEqual([
      "totp",
      "recovery_code",
      "webauthn",
    ]);
  });

  it("customers with an app on: a session older than the app adds no passkey; one signed in with the code does", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const older = ann.accessToken;
    const other = await tokenOf(await login(ctx.t, "ann"));
    const started = await callAs(ctx.t, `${MFA_PATH}/totp`, other);
    const { secret } = (await started.json()) as { secret: string };
    expect(
      (await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, other, { code: codeAt(ctx.t, secret) })).status,
    ).toBe(200);

    const refused = await callAs(ctx.t, "/v1/users/me/passkeys/options", older);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ detail: DETAIL.secondFactorSignInRequired });
    const withCode = await signInWithCode(ctx.t, "ann", codeAt(ctx.t, secret, 1));
    expect((await addPasskey(withCode, softPasskey())).status).toBe(201);
    // An account without a second factor is not asked: the password is its sign-in.
    const bob = await verifiedUser(ctx.t, "bob");
    expect((await addPasskey(bob.accessToken, softPasskey())).status).toBe(201);
  });

  it("a staff account with an app alone is offered the app and recovery codes, not a passkey", async () => {
    await staffMember(ctx.t, "sue", "support");
    const mfaToken = await passwordStep(ctx.t, "sue");
    expect(mfaToken).toEqual(expect.any(String));
    const step = await login(ctx.t, "sue");
    expect(((await step.json()) as { methods: string[] }).methods).toEqual(["totp", "recovery_code"]);
  });
});
