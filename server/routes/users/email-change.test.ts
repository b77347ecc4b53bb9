// Changing the e-mail address on PGlite and PostgreSQL: the new address takes over only through
// its link; the old one is told and can change it back, which signs every session out.
import { describe, expect, it } from "vitest";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { fromIp, getJson, latestMailTo, postJson, register, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { callAs } from "../../testing/two-factor.ts";

describe.each(TEST_DATABASES)("changing the e-mail address (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const follow = (token: string) => postJson(ctx.t.app, "/v1/user/confirm-email", { token }, fromIp());
  const emailOf = async (token: string) =>
    ((await (await getJson(ctx.t.app, "/v1/users/me", token)).json()) as { email: string }).email;

  it("takes over only when the new address's link is followed; the old address can change it back", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const asked = await callAs(ctx.t, "/v1/users/me/email", ann.accessToken, {
      email: "Ann.New@Example.com",
    });
    expect(asked.status).toBe(202);
    expect(await asked.json()).toEqual({ detail: DETAIL.emailChangeSent });
    expect(await emailOf(ann.accessToken)).toBe(ann.email);

    const link = await latestMailTo(ctx.t, "Ann.New@example.com", "Confirm your new");
    expect(link.mail.to).toBe("Ann.New@example.com"); // the local part as typed, the domain lower-cased
    expect(link.mail.links[0]).toBe(`${ctx.t.deps.config.portalUrl}/confirm-email/${link.token}`);
    const done = await follow(link.token);
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ detail: DETAIL.emailChanged });
    expect(await emailOf(ann.accessToken)).toBe("Ann.New@example.com");
    expect((await follow(link.token)).status).toBe(400);

    const told = await latestMailTo(ctx.t, ann.email, "e-mail address was changed");
    expect(told.mail.text).toContain("changed to Ann.New@example.com");
    const back = await follow(told.token);
    expect(back.status).toBe(200);
    expect(await back.json()).toEqual({ detail: DETAIL.emailChangeReverted });
    // Every session ended; the old address is the account's again.
    expect((await getJson(ctx.t.app, "/v1/users/me", ann.accessToken)).status).toBe(401);
    const actions = (await auditRowsAbout(ctx.t, ann.id)).map((r) => r.action);
    expect(actions).toEqual(
      expect.arrayContaining(["email.change_requested", "email.changed", "email.change_reverted"]),
    );
  });

  it("refuses the same address, another account's, a disposable one, a bad link, and a stale password", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await register(ctx.t, "bob");
    const ask = (email: string) => callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email });
    expect(await (await ask(ann.email.toUpperCase())).json()).toEqual({ detail: DETAIL.emailSame });
    const taken = await ask(bob.email);
    expect(taken.status).toBe(409);
    expect(await taken.json()).toEqual({ detail: DETAIL.emailExists });
    const disposable = await ask("ann@mailinator.com");
    expect(disposable.status).toBe(422);
    expect(JSON.stringify(await disposable.json())).toContain(VALIDATION.emailDisposable);
    expect((await follow("made-up")).status).toBe(400);

    // Someone registers the address between the request and the link: the link is refused.
    expect((await ask("carol@example.com")).status).toBe(202);
    const { token } = await latestMailTo(ctx.t, "carol@example.com", "Confirm your new");
    await register(ctx.t, "carol", { email: "carol@example.com" });
    const late = await follow(token);
    expect(late.status).toBe(409);
    expect(await emailOf(ann.accessToken)).toBe(ann.email);

    ctx.t.clock.advance(10 * 60_000 + 1000);
    expect((await ask("ann2@example.com")).status).toBe(403);
  });
});
