// /profile/security's calls on PGlite and PostgreSQL: changing the password with the current one,
// and the account's recent security events.
import { describe, expect, it } from "vitest";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { bearer } from "../../testing/api-access.ts";
import { fromIp, GOOD_PASSWORD, getJson, login, postJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { WRONG_CURRENT_PASSWORD_EVENT } from "./password.ts";

const NEW_PASSWORD = "Newpass#42";

describe.each(TEST_DATABASES)("security settings (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const change = (token: string, body: unknown, ip = "198.51.100.60") =>
    postJson(ctx.t.app, "/v1/users/me/password", body, { ...bearer(token), ...fromIp(ip) });

  it("changes the password with the current one: other sessions end, this one gets a new token, a mail", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const other = ((await (await login(ctx.t, "ann")).json()) as { access_token: string }).access_token;
    const res = await change(ann.accessToken, {
      current_password: GOOD_PASSWORD,
      new_password: NEW_PASSWORD,
    });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    expect((await getJson(ctx.t.app, "/v1/users/me", access_token)).status).toBe(200);
    for (const old of [ann.accessToken, other]) {
      expect((await getJson(ctx.t.app, "/v1/users/me", old)).status).toBe(401);
    }
    expect((await login(ctx.t, "ann")).status).toBe(400);
    expect((await login(ctx.t, "ann", NEW_PASSWORD)).status).toBe(200);
    const mails = (await ctx.t.mails()).filter((m) => m.subject.includes("password was changed"));
    expect(mails).toHaveLength(1);
    // On Berlin's clock, with its zone, as every date the portal and its mails give.
    expect(mails[0]?.text).toMatch(/was changed on \d{4}-\d\d-\d\d \d\d:\d\d CES?T/);
    expect(mails[0]?.text).toContain("from the address 198.51.100.60");
    expect((await auditRowsAbout(ctx.t, ann.id)).map((r) => r.action)).toContain("password.changed");
  });

  it("refuses a wrong current password (400, counted like a failed sign-in) and a new one that breaks a rule (422)", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const wrong = await change(ann.accessToken, {
      current_password: "Wrong#123",
      new_password: NEW_PASSWORD,
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ detail: DETAIL.incorrectPassword });
    const weak = await change(ann.accessToken, { current_password: GOOD_PASSWORD, new_password: "short" });
    expect(weak.status).toBe(422);
    const items = ((await weak.json()) as { detail: { loc: string[]; msg: string }[] }).detail;
    expect(items[0]).toMatchObject({ loc: ["body", "new_password"], msg: VALIDATION.passwordTooShort });
    const same = await change(ann.accessToken, {
      current_password: GOOD_PASSWORD,
      new_password: GOOD_PASSWORD,
    });
    expect(same.status).toBe(422);
    expect(((await same.json()) as { detail: unknown[] }).detail).toEqual([
      expect.objectContaining({ loc: ["body", "new_password"], msg: VALIDATION.passwordUnchanged }),
    ]);
    expect((await getJson(ctx.t.app, "/v1/users/me", ann.accessToken)).status).toBe(200);
    // Five wrong ones from one address, then 429; the password is unchanged throughout.
    for (let i = 0; i < 4; i++) {
      expect(
        (
          await change(
            ann.accessToken,
            { current_password: "Wrong#123", new_password: NEW_PASSWORD },
            "203.0.113.9",
          )
        ).status,
      ).toBe(400);
    }
    expect(
      (
        await change(
          ann.accessToken,
          { current_password: "Wrong#123", new_password: NEW_PASSWORD },
          "203.0.113.9",
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await change(
          ann.accessToken,
          { current_password: GOOD_PASSWORD, new_password: NEW_PASSWORD },
          "203.0.113.9",
        )
      ).status,
    ).toBe(429);
    expect((await login(ctx.t, "ann")).status).toBe(200);
  });

  it("logs a wrong current password as a failed password change, not a failed sign-in, yet counts it like one", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const wrong = { current_password: "Wrong#123", new_password: NEW_PASSWORD };
    expect((await change(ann.accessToken, wrong, "203.0.113.20")).status).toBe(400);
    const rows = await auditRowsAbout(ctx.t, ann.id, true);
    expect(rows.filter((r) => r.action === "login.failed")).toEqual([]);
    expect(rows.filter((r) => r.action === WRONG_CURRENT_PASSWORD_EVENT)).toEqual([
      expect.objectContaining({ actorId: ann.id, ip: "203.0.113.20" }),
    ]);
    const listed = await getJson(ctx.t.app, "/v1/users/me/security-events", ann.accessToken);
    const { data, wrong_passwords_not_listed } = (await listed.json()) as {
      data: { action: string }[];
      wrong_passwords_not_listed: number;
    };
    expect(data[0]?.action).toBe(WRONG_CURRENT_PASSWORD_EVENT);
    expect(wrong_passwords_not_listed).toBe(0);
    // Still the sign-in's (username, address) count: four more wrong ones, and signing in from
    // that address waits, while another address signs in.
    for (let i = 0; i < 4; i++)
      expect((await change(ann.accessToken, wrong, "203.0.113.20")).status).toBe(400);
    const fromThere = await ctx.t.app.request("/v1/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...fromIp("203.0.113.20") },
      body: new URLSearchParams({ username: "ann", password: GOOD_PASSWORD }).toString(),
    });
    expect(fromThere.status).toBe(429);
    expect((await login(ctx.t, "ann")).status).toBe(200);
  });

  it("lists the account's recent security events, newest first, with address and browser, never another's", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await verifiedUser(ctx.t, "bob");
    const chrome =
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    await ctx.t.app.request("/v1/token", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "User-Agent": chrome,
        ...fromIp("198.51.100.77"),
      },
      body: new URLSearchParams({ username: "ann", password: "Wrong#123" }).toString(),
    });
    const res = await getJson(ctx.t.app, "/v1/users/me/security-events", ann.accessToken);
    expect(res.status).toBe(200);
    const { data, wrong_passwords_not_listed } = (await res.json()) as {
      data: { at: string; action: string; ip: string | null; browser: string | null }[];
      wrong_passwords_not_listed: number;
    };
    expect(data.map((e) => e.action)).toEqual(["login.failed", "login.succeeded"]);
    expect(wrong_passwords_not_listed).toBe(0);
    expect(data[0]).toMatchObject({ ip: "198.51.100.77", browser: "Chrome 131 on Windows" });
    expect(Date.parse(data[0]?.at ?? "")).toBe(ctx.t.clock.now().getTime());
    expect((await getJson(ctx.t.app, "/v1/users/me/security-events")).status).toBe(401);
  });

  it("lists at most the 5 latest wrong passwords, so that they cannot push the account's changes out, and counts the rest", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const changed = await change(ann.accessToken, {
      current_password: GOOD_PASSWORD,
      new_password: NEW_PASSWORD,
    });
    const { access_token } = (await changed.json()) as { access_token: string };
    // A wrong password when confirming it is the owner's own session's, not a stranger's: listed as any.
    const reauth = await postJson(ctx.t.app, "/v1/reauth", { password: "Wrong#123" }, bearer(access_token));
    expect(reauth.status).toBe(400);
    // Twenty-five wrong passwords from as many addresses: more than the list's twenty rows.
    for (let i = 0; i < 25; i++) {
      const res = await ctx.t.app.request("/v1/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", ...fromIp(`203.0.113.${100 + i}`) },
        body: new URLSearchParams({ username: "ann", password: "Wrong#123" }).toString(),
      });
      expect(res.status).toBe(400);
    }
    const res = await getJson(ctx.t.app, "/v1/users/me/security-events", access_token);
    const answer = (await res.json()) as {
      data: { action: string; ip: string | null }[];
      wrong_passwords_not_listed: number;
    };
    expect(answer.data.map((e) => e.action)).toEqual([
      ...Array(5).fill("login.failed"),
      "login.failed",
      "password.changed",
      "login.succeeded",
    ]);
    // The latest five, newest first; then the re-authentication's.
    expect(answer.data.slice(0, 5).map((e) => e.ip)).toEqual(
      [124, 123, 122, 121, 120].map((n) => `203.0.113.${n}`),
    );
    expect(answer.wrong_passwords_not_listed).toBe(20);
  });

  it("mails about a sign-in from a browser the account has not used, once per browser, never the first", async () => {
    const signInWith = (userAgent: string) =>
      ctx.t.app.request("/v1/token", {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          "User-Agent": userAgent,
          ...fromIp("198.51.100.88"),
        },
        body: new URLSearchParams({ username: "ann", password: GOOD_PASSWORD }).toString(),
      });
    const ann = await verifiedUser(ctx.t, "ann");
    const newBrowserMails = async () =>
      (await ctx.t.mails()).filter((m) => m.to === ann.email && m.subject.startsWith("New sign-in"));
    // verifiedUser signed in once already (its first browser): no mail for it.
    expect(await newBrowserMails()).toEqual([]);
    const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    expect((await signInWith(firefox)).status).toBe(200);
    expect((await signInWith(firefox)).status).toBe(200);
    const mails = await newBrowserMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]?.text).toContain("Firefox 133 on Linux");
    expect(mails[0]?.text).toContain("from the address 198.51.100.88");
    expect(mails[0]?.links).toContain(`${ctx.t.deps.config.portalUrl}/profile/security`);
  });
});
