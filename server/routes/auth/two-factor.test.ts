// Two-factor sign-in through the API (ACCOUNT-SECURITY.md), on PGlite and PostgreSQL: the TOTP
// setup, the code step of login with its limits, recovery codes, turning it off, and that no
// secret is kept or logged in a form anyone could use.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { mfaRequiredSchema } from "../../../contract/two-factor.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { totpFactors, users } from "../../db/schema/index.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { bearer } from "../../testing/api-access.ts";
import { fromIp, GOOD_PASSWORD, getJson, login, postForm, verifiedUser } from "../../testing/api-client.ts";
import { softPasskey } from "../../testing/soft-authenticator.ts";
import { useTestApp } from "../../testing/suite.ts";
import { CONTRACT_LIMITS, TEST_PORTAL_URL } from "../../testing/test-app.ts";
import {
  callAs,
  codeAt,
  codeStep,
  MFA_PATH,
  passwordStep,
  signInWithCode,
  turnOnTwoFactor,
} from "../../testing/two-factor.ts";

describe.each(TEST_DATABASES)("two-factor sign-in (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const status = async (token: string) => (await getJson(ctx.t.app, MFA_PATH, token)).json();
  const mailsTo = async (to: string, subject: string) =>
    (await ctx.t.mails()).filter((m) => m.to === to && m.subject.includes(subject));

  it("is set up with a code from the app: recovery codes, a token that counts two factors, a mail", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect(await status(ann.accessToken)).toEqual({ totp: false, recovery_codes_left: 0 });
    // Confirming before starting, then a wrong code: nothing changes.
    expect(
      (await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, ann.accessToken, { code: "123456" })).status,
    ).toBe(409);
    const started = await callAs(ctx.t, `${MFA_PATH}/totp`, ann.accessToken);
    expect(started.status).toBe(201);
    const { secret, otpauth_url } = (await started.json()) as { secret: string; otpauth_url: string };
    expect(otpauth_url).toContain(`secret=${secret}`);
    expect(otpauth_url).toContain(":ann?");
    const wrong = await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, ann.accessToken, { code: "000000" });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ detail: DETAIL.incorrectCode });
    expect(await status(ann.accessToken)).toEqual({ totp: false, recovery_codes_left: 0 });
    // Without a code at all: 422 at the field.
    const empty = await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, ann.accessToken, { code: " " });
    expect(empty.status).toBe(422);

    const confirmed = await callAs(ctx.t, `${MFA_PATH}/totp/confirm`, ann.accessToken, {
      code: codeAt(ctx.t, secret),
    });
    expect(confirmed.status).toBe(200);
    const body = (await confirmed.json()) as { recovery_codes: string[]; access_token: string };
    expect(body.recovery_codes).toHaveLength(10);
    expect(await ctx.t.deps.accessTokens.verify(body.access_token)).toMatchObject({
      amr: ["pwd", "otp", "mfa"],
    });
    // The token it was called with is signed out.
    expect((await getJson(ctx.t.app, "/v1/users/me", ann.accessToken)).status).toBe(401);
    expect(await status(body.access_token)).toEqual({ totp: true, recovery_codes_left: 10 });
    // On already: a new setup is refused rather than replacing the working authenticator.
    const again = await callAs(ctx.t, `${MFA_PATH}/totp`, body.access_token);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ detail: DETAIL.mfaAlreadyOn });
    const [mail, ...more] = await mailsTo(ann.email, "Two-factor sign-in was turned on");
    expect(more).toEqual([]);
    expect(mail?.text).toContain("recovery codes");
    expect(mail?.links).toContain(`${ctx.t.deps.config.portalUrl}/profile/security`);
    expect((await auditRowsAbout(ctx.t, ann.id, true)).map((r) => r.action)).toContain("mfa.enabled");
  });

  it("asks for the password again after 10 minutes before a setup", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    ctx.t.clock.advance(10 * 60_000 + 1000);
    const refused = await callAs(ctx.t, `${MFA_PATH}/totp`, ann.accessToken);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      detail: DETAIL.reauthRequired,
      reauth_required: true,
      methods: ["password"],
      code_required: false,
    });
  });

  it("signs in with the password, then a code: once per code, within the step's five tries", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const { secret } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const lastLogin = async () =>
      (await ctx.t.deps.db.select({ at: users.lastLoginAt }).from(users).where(eq(users.id, ann.id)))[0]?.at;
    const before = await lastLogin();
    ctx.t.clock.advance(60_000);
    const first = await postForm(
      ctx.t.app,
      "/v1/token",
      { username: "ann", password: GOOD_PASSWORD },
      fromIp(),
    );
    expect(first.status).toBe(403);
    // A right password waiting for its code is not a login yet.
    expect(await lastLogin()).toEqual(before);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const challenge = mfaRequiredSchema.parse(await first.json());
    expect(challenge).toEqual({
      detail: DETAIL.mfaRequired,
      mfa_token: expect.stringMatching(/^[\w-]{43}$/),
      methods: ["totp", "recovery_code"],
    });
    // A wrong password still answers 400, never the code step.
    expect((await login(ctx.t, "ann", "Wrong#123")).status).toBe(400);

    const wrong = await codeStep(ctx.t, challenge.mfa_token, "000000");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ detail: DETAIL.incorrectCode, tries_left: 4 });
    // The setup used the current step's code: the next step's is accepted (clock drift), once.
    const code = codeAt(ctx.t, secret, 1);
    const ok = await codeStep(ctx.t, challenge.mfa_token, code);
    expect(ok.status).toBe(200);
    const { access_token } = (await ok.json()) as { access_token: string };
    expect(await ctx.t.deps.accessTokens.verify(access_token)).toMatchObject({ amr: ["pwd", "otp", "mfa"] });
    expect(await lastLogin()).toEqual(ctx.t.clock.now());
    // The step is used up, and the code cannot be used again in another.
    expect(await (await codeStep(ctx.t, challenge.mfa_token, code)).json()).toEqual({
      detail: DETAIL.mfaStepExpired,
    });
    const replay = await codeStep(
      ctx.t,
      await passwordStep(ctx.t, "ann", "198.51.100.30"),
      code,
      "198.51.100.30",
    );
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { detail: string }).detail).toBe(DETAIL.incorrectCode);
    const actions = (await auditRowsAbout(ctx.t, ann.id, true)).map((r) => [r.action, r.details]);
    expect(actions).toContainEqual(["login.succeeded", expect.objectContaining({ second_factor: "totp" })]);
    expect(actions).toContainEqual(["login.failed", expect.objectContaining({ step: "mfa" })]);
  });

  it("ends a step after five wrong codes, and after five minutes", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const { secret } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    // Five wrong codes from five addresses (no address reaches its own limit).
    const tired = await passwordStep(ctx.t, "ann", "198.51.100.40");
    for (let i = 0; i < 5; i++) {
      const res = await codeStep(ctx.t, tired, "000000", `198.51.100.${41 + i}`);
      expect(await res.json()).toEqual({ detail: DETAIL.incorrectCode, tries_left: 4 - i });
    }
    const sixth = await codeStep(ctx.t, tired, codeAt(ctx.t, secret, 1), "198.51.100.50");
    expect(await sixth.json()).toEqual({ detail: DETAIL.mfaStepExpired });

    const slow = await passwordStep(ctx.t, "ann", "198.51.100.51");
    ctx.t.clock.advance(5 * 60_000);
    const late = await codeStep(ctx.t, slow, codeAt(ctx.t, secret), "198.51.100.51");
    expect(await late.json()).toEqual({ detail: DETAIL.mfaStepExpired });
    expect((await codeStep(ctx.t, "made-up-token", "123456")).status).toBe(400);
  });

  it("counts wrong codes against the address's sign-in limit: the password cannot reset the count", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const { secret } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const ip = "203.0.113.70";
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      const step = await postForm(
        ctx.t.app,
        "/v1/token",
        { username: "ann", password: GOOD_PASSWORD },
        fromIp(ip),
      );
      statuses.push(step.status);
      if (step.status !== 403) break;
      const { mfa_token } = (await step.json()) as { mfa_token: string };
      for (let i = 0; i < 2; i++) statuses.push((await codeStep(ctx.t, mfa_token, "000000", ip)).status);
    }
    // Each password step and each wrong code takes a point of the pair's five; then the code and
    // the next password step are refused alike.
    expect(statuses).toEqual([403, 400, 400, 403, 400, 429, 429]);
    // The owner from another address signs in.
    expect(await signInWithCode(ctx.t, "ann", codeAt(ctx.t, secret, 1))).toBeTruthy();
  });

  it("stops code guessing on the account after 10 wrong codes an hour, from any address, and mails the owner once", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await verifiedUser(ctx.t, "bob");
    const { secret } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const limit = CONTRACT_LIMITS.mfaFailuresPerHour;
    // A step taken before the guessing: it stops working with the rest.
    const early = await passwordStep(ctx.t, "ann", "198.51.100.60");
    // Every wrong code from its own address: no address, nor any step, reaches its own limit.
    let address = 0;
    const wrong = async (mfaToken: string) => {
      address += 1;
      const res = await codeStep(ctx.t, mfaToken, "000000", `203.0.113.${address}`);
      expect(await res.json()).toMatchObject({ detail: DETAIL.incorrectCode });
    };
    const first = await passwordStep(ctx.t, "ann", "198.51.100.61");
    for (let i = 0; i < 5; i++) await wrong(first);
    const second = await passwordStep(ctx.t, "ann", "198.51.100.62");
    for (let i = 0; i < limit - 7; i++) await wrong(second);
    // A right code is no guess: it signs in and is not counted.
    expect((await codeStep(ctx.t, second, codeAt(ctx.t, secret, 1), "198.51.100.62")).status).toBe(200);
    const third = await passwordStep(ctx.t, "ann", "198.51.100.63");
    await wrong(third);
    expect(await mailsTo(ann.email, "is guessing your codes")).toHaveLength(0);
    await wrong(third);
    await ctx.t.tasks.idle();

    // The tenth wrong code: no new step for the account, from any address, with the time to wait.
    const refused = await postForm(
      ctx.t.app,
      "/v1/token",
      { username: "ann", password: GOOD_PASSWORD },
      fromIp("198.51.100.64"),
    );
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: DETAIL.tooManyWrongCodes });
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(3_000);
    expect(wait).toBeLessThanOrEqual(3_600);
    // Steps taken earlier take no code either, not even the right one.
    for (const step of [early, third]) {
      const late = await codeStep(ctx.t, step, codeAt(ctx.t, secret, -1), "198.51.100.65");
      expect(late.status).toBe(429);
      expect(await late.json()).toEqual({ detail: DETAIL.tooManyWrongCodes });
    }
    await ctx.t.tasks.idle();
    // One mail, however often the limit is met, telling the owner to change the password.
    const [mail, ...more] = await mailsTo(ann.email, "is guessing your codes");
    expect(more).toEqual([]);
    expect(mail?.text).toContain("reset it now");
    expect(mail?.text).toContain(`${TEST_PORTAL_URL}/forgot-password`);
    expect(mail?.text).toContain(`203.0.113.${address}`);
    // Other accounts are not touched.
    expect((await login(ctx.t, "bob")).status).toBe(200);
  });

  it("takes each recovery code once, mails about it, and says how many are left", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const { recoveryCodes } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const code = recoveryCodes[3] ?? "";
    const token = await signInWithCode(ctx.t, "ann", ` ${code.toUpperCase()} `);
    expect(await status(token)).toEqual({ totp: true, recovery_codes_left: 9 });
    const again = await codeStep(ctx.t, await passwordStep(ctx.t, "ann"), code);
    expect(again.status).toBe(400);
    const [mail, ...more] = await mailsTo(ann.email, "A recovery code was used");
    expect(more).toEqual([]);
    expect(mail?.text).toContain("You have 9 recovery codes left.");
    const actions = (await auditRowsAbout(ctx.t, ann.id)).map((r) => [r.action, r.details]);
    expect(actions).toContainEqual([
      "mfa.recovery_code_used",
      expect.objectContaining({ recovery_codes_left: 9 }),
    ]);
  });

  it("makes new recovery codes for an app code (not a recovery code); the old ones stop working", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const on = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const path = `${MFA_PATH}/recovery-codes`;
    // A recovery code says what is needed, is not used up, and is no guess: more tries than the
    // account's limit of wrong codes leave the right code working.
    for (let i = 0; i <= CONTRACT_LIMITS.mfaFailuresPerHour; i++) {
      const refused = await callAs(ctx.t, path, on.accessToken, { code: on.recoveryCodes[0] });
      expect(await refused.json()).toEqual({ detail: DETAIL.appCodeNeeded });
    }
    expect(await status(on.accessToken)).toEqual({ totp: true, recovery_codes_left: 10 });
    const renewed = await callAs(ctx.t, path, on.accessToken, { code: codeAt(ctx.t, on.secret, 1) });
    expect(renewed.status).toBe(200);
    const { recovery_codes } = (await renewed.json()) as { recovery_codes: string[] };
    expect(recovery_codes).toHaveLength(10);
    expect(recovery_codes).not.toContain(on.recoveryCodes[1]);
    expect((await codeStep(ctx.t, await passwordStep(ctx.t, "ann"), on.recoveryCodes[1] ?? "")).status).toBe(
      400,
    );
    expect(await signInWithCode(ctx.t, "ann", recovery_codes[0] ?? "")).toBeTruthy();
  });

  it("is turned off with an app code or a recovery code; then the password alone signs in", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const on = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const off = (code: string) => callAs(ctx.t, `${MFA_PATH}/totp`, on.accessToken, { code }, "DELETE");
    expect((await off("000000")).status).toBe(400);
    const done = await off(on.recoveryCodes[0] ?? "");
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ detail: DETAIL.mfaTurnedOff });
    expect((await off(on.recoveryCodes[1] ?? "")).status).toBe(409);
    expect(await status(on.accessToken)).toEqual({ totp: false, recovery_codes_left: 0 });
    expect((await login(ctx.t, "ann")).status).toBe(200);
    expect(await ctx.database.db.select().from(totpFactors)).toEqual([]);
    expect(await mailsTo(ann.email, "Two-factor sign-in was turned off")).toHaveLength(1);
    expect((await auditRowsAbout(ctx.t, ann.id)).map((r) => r.action)).toContain("mfa.disabled");
  });

  it("counts wrong codes to turn it off or renew the codes against the account, as at sign-in", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const on = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const limit = CONTRACT_LIMITS.mfaFailuresPerHour;
    const off = (code: string) => callAs(ctx.t, `${MFA_PATH}/totp`, on.accessToken, { code }, "DELETE");
    const renew = (code: string) => callAs(ctx.t, `${MFA_PATH}/recovery-codes`, on.accessToken, { code });
    // A right code is no guess: renewing with one leaves the count where it was.
    expect((await renew(codeAt(ctx.t, on.secret, 1))).status).toBe(200);
    for (let i = 0; i < limit; i++) {
      const res = await (i % 2 === 0 ? off : renew)("000000");
      expect(await res.json()).toEqual({ detail: DETAIL.incorrectCode });
    }
    await ctx.t.tasks.idle();
    for (const call of [off, renew]) {
      const refused = await call(codeAt(ctx.t, on.secret, -1));
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ detail: DETAIL.tooManyWrongCodes });
    }
    expect(await status(on.accessToken)).toMatchObject({ totp: true });
    // The sign-in's code step is closed too, and the owner is mailed once.
    const step = await postForm(ctx.t.app, "/v1/token", { username: "ann", password: GOOD_PASSWORD });
    expect(step.status).toBe(429);
    await ctx.t.tasks.idle();
    expect(await mailsTo(ann.email, "is guessing your codes")).toHaveLength(1);
  });

  it("lists each wrong code to turn it off or renew the codes in the account's security events, as at sign-in", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const on = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const limit = CONTRACT_LIMITS.mfaFailuresPerHour;
    const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    const send = (path: string, code: string, method: "POST" | "DELETE") =>
      ctx.t.app.request(path, {
        method,
        headers: {
          ...bearer(on.accessToken),
          "Content-Type": "application/json",
          "User-Agent": firefox,
          ...fromIp("198.51.100.61"),
        },
        body: JSON.stringify({ code }),
      });
    const off = (code: string) => send(`${MFA_PATH}/totp`, code, "DELETE");
    const renew = (code: string) => send(`${MFA_PATH}/recovery-codes`, code, "POST");
    const listed = async () => {
      const res = await getJson(ctx.t.app, "/v1/users/me/security-events", on.accessToken);
      return ((await res.json()) as { data: { action: string; ip: string | null; browser: string | null }[] })
        .data;
    };
    const failedRows = async () =>
      (await auditRowsAbout(ctx.t, ann.id, true)).filter((r) => r.action.endsWith("failed"));

    // A wrong code at sign-in's code step: what a wrong code to these two calls is held to.
    expect((await codeStep(ctx.t, await passwordStep(ctx.t, "ann"), "000000")).status).toBe(400);
    expect((await off("000000")).status).toBe(400);
    expect((await off("abcde-fghjk")).status).toBe(400); // a wrong recovery code
    expect((await renew("000000")).status).toBe(400);
    expect((await listed()).slice(0, 3)).toEqual([
      expect.objectContaining({
        action: "mfa.recovery_codes_renew_failed",
        ip: "198.51.100.61",
        browser: "Firefox 133 on Linux",
      }),
      expect.objectContaining({ action: "mfa.disable_failed", ip: "198.51.100.61" }),
      expect.objectContaining({ action: "mfa.disable_failed", ip: "198.51.100.61" }),
    ]);
    const [atSignIn, ...atSettings] = await failedRows();
    expect(atSignIn).toMatchObject({ action: "login.failed", details: { step: "mfa" } });
    for (const row of atSettings) {
      expect(row).toMatchObject({
        actorId: ann.id,
        actorLabel: "ann",
        subjectUserId: ann.id,
        ip: "198.51.100.61",
        details: { user_agent: firefox },
      });
    }
    // What is no guess is not listed: a recovery code where only the app's code is taken, a right
    // code (its own event).
    expect(await (await renew(on.recoveryCodes[0] ?? "")).json()).toEqual({ detail: DETAIL.appCodeNeeded });
    expect((await renew(codeAt(ctx.t, on.secret, 1))).status).toBe(200);
    expect((await listed())[0]?.action).toBe("mfa.recovery_codes_renewed");
    expect(await failedRows()).toHaveLength(4);

    // Up to the limit every wrong code is listed and the owner is mailed once; past it no code is
    // checked (429), and nothing more is written, as at sign-in.
    for (let i = 4; i < limit; i++) expect((await (i % 2 === 0 ? off : renew)("000000")).status).toBe(400);
    expect((await off("000000")).status).toBe(429);
    expect((await renew("000000")).status).toBe(429);
    expect(await failedRows()).toHaveLength(limit);
    await ctx.t.tasks.idle();
    expect(await mailsTo(ann.email, "is guessing your codes")).toHaveLength(1);
  });

  it("keeps no TOTP secret, recovery code, sign-in step token or passkey private key, in the database or the log", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const on = await turnOnTwoFactor(ctx.t, ann.accessToken);
    const key = softPasskey();
    const origin = new URL(TEST_PORTAL_URL).origin;
    const options = await callAs(ctx.t, "/v1/users/me/passkeys/options", on.accessToken);
    const created = key.create((await options.json()) as { challenge: string; rp: { id?: string } }, origin);
    const added = await callAs(ctx.t, "/v1/users/me/passkeys", on.accessToken, {
      name: "Key",
      response: created,
    });
    expect(added.status).toBe(201);
    const mfaToken = await passwordStep(ctx.t, "ann");
    expect((await codeStep(ctx.t, mfaToken, on.recoveryCodes[0] ?? "")).status).toBe(200);
    await ctx.t.tasks.idle();

    // PGlite answers { rows }, postgres.js an array of rows.
    const rowsOf = (result: unknown) =>
      (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
    const tables = rowsOf(
      await ctx.database.db.execute(
        sql`select table_name as name from information_schema.tables where table_schema = 'public'`,
      ),
    );
    let dump = "";
    for (const { name } of tables) {
      dump += JSON.stringify(
        rowsOf(await ctx.database.db.execute(sql.raw(`select * from "${String(name)}"`))),
      );
    }
    const logs = ctx.t.logs.join("\n");
    expect(dump).toContain("mfa.recovery_code_used"); // the dump is real
    expect(dump).toContain(key.id); // the passkey is in the dump: its public part only
    const secrets = [
      ...key.privateMaterial(),
      on.secret,
      on.secret.toLowerCase(),
      mfaToken,
      ...on.recoveryCodes,
      ...on.recoveryCodes.map((c) => c.replace("-", "")),
    ];
    for (const secret of secrets) {
      expect(dump.includes(secret), `database holds ${secret}`).toBe(false);
      expect(logs.includes(secret), `log holds ${secret}`).toBe(false);
    }
  });
});
