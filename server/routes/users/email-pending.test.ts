// The change of e-mail address waiting for its link, on PGlite and PostgreSQL: GET
// /v1/users/me/email shows it to its account, and DELETE /v1/users/me/email/pending cancels it, after
// which its link does nothing.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { EmailState } from "../../../contract/email-state.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { users } from "../../db/schema/index.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { fromIp, getJson, latestMailTo, login, postJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { callAs } from "../../testing/two-factor.ts";

const DAY = 24 * 3600_000;

describe.each(TEST_DATABASES)("the pending e-mail change (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const follow = (token: string) => postJson(ctx.t.app, "/v1/user/confirm-email", { token }, fromIp());
  const ask = (token: string, email: string) => callAs(ctx.t, "/v1/users/me/email", token, { email });
  const cancel = (token: string) => callAs(ctx.t, "/v1/users/me/email/pending", token, undefined, "DELETE");
  const state = async (token: string) => {
    const res = await getJson(ctx.t.app, "/v1/users/me/email", token);
    expect(res.status).toBe(200);
    return (await res.json()) as EmailState;
  };
  const signIn = async (name: string) =>
    ((await (await login(ctx.t, name)).json()) as { access_token: string }).access_token;
  const linkTo = async (email: string) => (await latestMailTo(ctx.t, email, "Confirm your new")).token;

  it("shows nothing for an account that asked for no change", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect(await state(ann.accessToken)).toEqual({ pending_change: null, revert_review: null });
  });

  it("shows the new address and when its link expires, to its own account only", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const asked = ctx.t.clock.now();
    expect((await ask(ann.accessToken, "Ann.New@Example.com")).status).toBe(202);
    expect((await state(ann.accessToken)).pending_change).toEqual({
      // As the link's mail has it: the local part as typed, the domain lower-cased.
      email: "Ann.New@example.com",
      expires_at: new Date(asked.getTime() + DAY).toISOString(),
    });
    expect((await state(bob.accessToken)).pending_change).toBeNull();
    // Followed, it is no longer pending.
    expect((await follow(await linkTo("Ann.New@example.com"))).status).toBe(200);
    expect((await state(ann.accessToken)).pending_change).toBeNull();
  });

  it("a second request replaces the first: the second address is shown, and only its link works", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect((await ask(ann.accessToken, "typo@exmaple.com")).status).toBe(202);
    const first = await linkTo("typo@exmaple.com");
    ctx.t.clock.advance(60_000);
    const asked = ctx.t.clock.now();
    expect((await ask(ann.accessToken, "ann.new@example.com")).status).toBe(202);
    expect((await state(ann.accessToken)).pending_change).toEqual({
      email: "ann.new@example.com",
      expires_at: new Date(asked.getTime() + DAY).toISOString(),
    });
    const refused = await follow(first);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
    expect((await follow(await linkTo("ann.new@example.com"))).status).toBe(200);
  });

  it("cancelled, it is gone, its link is refused, and the security events list it", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect((await ask(ann.accessToken, "mallory@example.net")).status).toBe(202);
    const link = await linkTo("mallory@example.net");
    const done = await cancel(ann.accessToken);
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ detail: DETAIL.emailChangeCancelled });
    expect((await state(ann.accessToken)).pending_change).toBeNull();
    const refused = await follow(link);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
    const me = (await (await getJson(ctx.t.app, "/v1/users/me", ann.accessToken)).json()) as {
      email: string;
    };
    expect(me.email).toBe(ann.email);
    // Nothing left to cancel: said so, and no second event.
    const again = await cancel(ann.accessToken);
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ detail: DETAIL.emailChangeNotPending });
    const actions = (await auditRowsAbout(ctx.t, ann.id)).map((r) => r.action);
    expect(actions.filter((a) => a.startsWith("email."))).toEqual([
      "email.change_requested",
      "email.change_cancelled",
    ]);
    const events = await getJson(ctx.t.app, "/v1/users/me/security-events", ann.accessToken);
    const listed = ((await events.json()) as { data: { action: string }[] }).data.map((e) => e.action);
    expect(listed).toContain("email.change_cancelled");
  });

  it("cancels without a recent password, and only the account's own change", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    expect((await ask(ann.accessToken, "ann.new@example.com")).status).toBe(202);
    // Bob has none: his call ends nothing of Ann's.
    expect((await cancel(bob.accessToken)).status).toBe(404);
    expect((await state(ann.accessToken)).pending_change?.email).toBe("ann.new@example.com");
    // An hour later the password is long past its 10 minutes: cancelling still works.
    ctx.t.clock.advance(3600_000);
    expect((await cancel(ann.accessToken)).status).toBe(200);
    expect((await follow(await linkTo("ann.new@example.com"))).status).toBe(400);
  });

  it("an expired link, or one asked from a session that has ended, is not pending and cannot be cancelled", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect((await ask(ann.accessToken, "late@example.com")).status).toBe(202);
    ctx.t.clock.advance(DAY);
    const fresh = await signIn("ann");
    expect((await state(fresh)).pending_change).toBeNull();
    expect((await cancel(fresh)).status).toBe(404);

    expect((await ask(fresh, "ended@example.com")).status).toBe(202);
    // As a path that ends every session but leaves the link's row would: only the version moves.
    await ctx.t.deps.db
      .update(users)
      .set({ tokenVersion: sql`${users.tokenVersion} + 1` })
      .where(eq(users.id, ann.id));
    const now = await signIn("ann");
    expect((await state(now)).pending_change).toBeNull();
    expect((await cancel(now)).status).toBe(404);
    expect((await auditRowsAbout(ctx.t, ann.id)).map((r) => r.action)).not.toContain(
      "email.change_cancelled",
    );
  });

  it("answers 401 without a valid access token", async () => {
    expect((await getJson(ctx.t.app, "/v1/users/me/email")).status).toBe(401);
    expect((await ctx.t.app.request("/v1/users/me/email/pending", { method: "DELETE" })).status).toBe(401);
    expect((await cancel("not-a-token")).status).toBe(401);
  });
});
