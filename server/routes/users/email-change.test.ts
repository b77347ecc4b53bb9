// Changing the e-mail address on PGlite and PostgreSQL: the new address takes over only through
// its link; the old one is told and can change it back, which signs every session out.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { users } from "../../db/schema/index.ts";
import type { Db } from "../../db/types.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { bearer, createKey } from "../../testing/api-access.ts";
import {
  fromIp,
  GOOD_PASSWORD,
  getJson,
  latestMailTo,
  login,
  postJson,
  register,
  tokenFromLink,
  verifiedUser,
} from "../../testing/api-client.ts";
import { softPasskey } from "../../testing/soft-authenticator.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";
import { callAs, codeAt, signInWithCode, turnOnTwoFactor } from "../../testing/two-factor.ts";

/**
 * Runs `hook` once, when a read of the users table by `param` (an address) has returned its row and
 * before its caller goes on: the instant between a lookup by address and what the caller writes.
 */
function afterUserLookup(db: Db, param: string, hook: () => Promise<void>) {
  type Query = { execute: (...args: unknown[]) => Promise<unknown[]>; toSQL: () => { params: unknown[] } };
  type Builder = { from: (table: unknown) => Query };
  const select = db.select.bind(db) as unknown as (...fields: unknown[]) => Builder;
  let armed = true;
  const spy = vi.spyOn(db, "select").mockImplementation(((...fields: unknown[]) => {
    const builder = select(...fields);
    const from = builder.from.bind(builder);
    builder.from = (table) => {
      const query = from(table);
      const execute = query.execute.bind(query);
      query.execute = async (...args) => {
        const rows = await execute(...args);
        if (armed && table === users && rows.length > 0 && query.toSQL().params.includes(param)) {
          armed = false;
          await hook();
        }
        return rows;
      };
      return query;
    };
    return builder;
  }) as unknown as Db["select"]);
  return { restore: () => spy.mockRestore(), ran: () => !armed };
}

describe.each(TEST_DATABASES)("changing the e-mail address (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const follow = (token: string) => postJson(ctx.t.app, "/v1/user/confirm-email", { token }, fromIp());
  /** The old address's way back, as the page sends it once the owner clicked "Change it back". */
  const followBack = (token: string) =>
    postJson(ctx.t.app, "/v1/user/confirm-email", { token, revert: true }, fromIp());
  /** After a way back the password no longer works: the owner sets it again through the address that came back. */
  const resetAfterWayBack = async (email: string) => {
    expect((await postJson(ctx.t.app, "/v1/user/password-reset-request", { email }, fromIp())).status).toBe(
      200,
    );
    const { token } = await latestMailTo(ctx.t, email, "Reset your");
    const reset = await postJson(ctx.t.app, "/v1/user/password-reset", { token, password: GOOD_PASSWORD });
    expect(reset.status).toBe(200);
  };
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
    // Sent as a way back, the new address's link does nothing, and still works.
    expect((await followBack(link.token)).status).toBe(400);
    const done = await follow(link.token);
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ detail: DETAIL.emailChanged });
    expect(await emailOf(ann.accessToken)).toBe("Ann.New@example.com");
    expect((await follow(link.token)).status).toBe(400);

    const told = await latestMailTo(ctx.t, ann.email, "e-mail address was changed");
    expect(told.mail.text).toContain("changed to Ann.New@example.com");
    // The way back is marked, so that the page asks before it acts.
    expect(told.link).toBe(`${ctx.t.deps.config.portalUrl}/confirm-email/${told.token}?back=1`);
    // Opened without the owner's word (a mail scanner, a page that lost `?back=1`): nothing happens,
    // and the link still works.
    const scanned = await follow(told.token);
    expect(scanned.status).toBe(409);
    expect(await scanned.json()).toEqual({ detail: DETAIL.emailRevertUnconfirmed, revert_required: true });
    expect(await emailOf(ann.accessToken)).toBe("Ann.New@example.com");
    const back = await followBack(told.token);
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

  // Security review, MEDIUM 3: an address in `.invalid` could be a deleted account's pseudonym.
  it("refuses an address in a domain that never receives mail, beside the field", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    for (const email of [`${ann.id}@deleted.invalid`, "ann@host.LOCALHOST"]) {
      const res = await callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email });
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ["body", "email"], msg: VALIDATION.emailReserved, type: "value_error" }],
      });
    }
    expect(await emailOf(ann.accessToken)).toBe(ann.email);
    expect((await ctx.t.mails()).filter((m) => m.subject.includes("Confirm your new"))).toEqual([]);
  });

  // Security review, LOW 5: change links counted only as the account's writes (20 a minute), never
  // against the mails to their address: one account could send a mailbox about 28,000 a day.
  it("counts the change link against the mails to its address an hour, with resets and resends", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const target = "Target@example.org";
    const ask = (token: string, email = target) => callAs(ctx.t, "/v1/users/me/email", token, { email });
    const resetFor = (email: string) =>
      postJson(ctx.t.app, "/v1/user/password-reset-request", { email }, fromIp());
    // 3 resets (the address's minute allows 3) and 7 links: the hour's 10 mails.
    for (let i = 0; i < 3; i++) expect((await resetFor("target@example.org")).status).toBe(200);
    for (let i = 0; i < 7; i++) expect((await ask(ann.accessToken)).status).toBe(202);
    const over = await ask(ann.accessToken);
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ detail: DETAIL.tooManyRequests });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(60);
    // Per address, whoever asks: another account is refused too; another address is not.
    const bob = await verifiedUser(ctx.t, "bob");
    expect((await ask(bob.accessToken, "TARGET@example.org")).status).toBe(429);
    // By mailbox: a `+suffix` reaches the same inbox, and is counted with it (review, M1).
    expect((await ask(bob.accessToken, "target+2@example.org")).status).toBe(429);
    expect((await resetFor("target+3@example.org")).status).toBe(429);
    expect((await ask(ann.accessToken, "ann.other@example.org")).status).toBe(202);
    const links = (await ctx.t.mails()).filter(
      (m) => m.to.toLowerCase() === "target@example.org" && m.subject.includes("Confirm your new"),
    );
    expect(links).toHaveLength(7);
  });

  // Issue 30: "change it back" must evict whoever changed the address. With a stolen session they
  // moved it to their mailbox and asked for a reset there; after the owner's revert the reset link
  // still set a new password.
  it("the way back ends every reset and verification link and every pending change", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const ask = (email: string) => callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email });
    expect((await ask("mallory@example.net")).status).toBe(202);
    const moved = await latestMailTo(ctx.t, "mallory@example.net", "Confirm your new");
    expect((await follow(moved.token)).status).toBe(200);
    const requestReset = postJson(ctx.t.app, "/v1/user/password-reset-request", {
      email: "mallory@example.net",
    });
    expect((await requestReset).status).toBe(200);
    const reset = await latestMailTo(ctx.t, "mallory@example.net", "Reset your");
    // A second move is waiting for its link: it must not outlive the revert either.
    expect((await ask("mallory2@example.net")).status).toBe(202);
    const pending = await latestMailTo(ctx.t, "mallory2@example.net", "Confirm your new");

    const told = await latestMailTo(ctx.t, ann.email, "e-mail address was changed");
    expect((await followBack(told.token)).status).toBe(200);
    const check = await getJson(ctx.t.app, `/v1/user/password-reset-check/${reset.token}`);
    expect(check.status).toBe(400);
    const used = await postJson(ctx.t.app, "/v1/user/password-reset", {
      token: reset.token,
      password: "Mallory#123",
    });
    expect(used.status).toBe(400);
    expect((await login(ctx.t, "ann", "Mallory#123")).status).toBe(400);
    expect((await follow(pending.token)).status).toBe(400);
    // Nor does the password: whoever moved the address may know it. A reset through the address
    // that came back sets it again.
    expect((await login(ctx.t, "ann")).status).toBe(400);
    await resetAfterWayBack(ann.email);
    expect((await login(ctx.t, "ann")).status).toBe(200);
  });

  it("a completed change ends the reset links mailed to the old address, and keeps the earlier way back", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const ask = (email: string) => callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email });
    expect((await ask("ann.b@example.com")).status).toBe(202);
    expect(
      (await follow((await latestMailTo(ctx.t, "ann.b@example.com", "Confirm your new")).token)).status,
    ).toBe(200);
    const firstWayBack = await latestMailTo(ctx.t, ann.email, "e-mail address was changed");
    await postJson(ctx.t.app, "/v1/user/password-reset-request", { email: "ann.b@example.com" });
    const reset = await latestMailTo(ctx.t, "ann.b@example.com", "Reset your");
    expect((await ask("ann.c@example.com")).status).toBe(202);
    expect(
      (await follow((await latestMailTo(ctx.t, "ann.c@example.com", "Confirm your new")).token)).status,
    ).toBe(200);
    expect((await getJson(ctx.t.app, `/v1/user/password-reset-check/${reset.token}`)).status).toBe(400);
    // The first address can still come back: its link was the owner's.
    expect((await followBack(firstWayBack.token)).status).toBe(200);
    await resetAfterWayBack(ann.email);
    const signedIn = await login(ctx.t, "ann");
    const { access_token } = (await signedIn.json()) as { access_token: string };
    expect(await emailOf(access_token)).toBe(ann.email);
  });

  it("a later way back cannot end an earlier one: whoever holds the second address cannot cut the owner off", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const ask = (email: string) => callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email });
    // A stolen session moves the address to B, then to C: a way back to A (the owner's) and one to B.
    expect((await ask("mallory.b@example.net")).status).toBe(202);
    await follow((await latestMailTo(ctx.t, "mallory.b@example.net", "Confirm your new")).token);
    const ownersWayBack = await latestMailTo(ctx.t, ann.email, "e-mail address was changed");
    ctx.t.clock.advance(60_000);
    expect((await ask("mallory.c@example.net")).status).toBe(202);
    await follow((await latestMailTo(ctx.t, "mallory.c@example.net", "Confirm your new")).token);
    const attackersWayBack = await latestMailTo(ctx.t, "mallory.b@example.net", "e-mail address was changed");
    // Following B's way back must leave A's.
    expect((await followBack(attackersWayBack.token)).status).toBe(200);
    expect((await followBack(ownersWayBack.token)).status).toBe(200);
    await resetAfterWayBack(ann.email);
    const { access_token } = (await (await login(ctx.t, "ann")).json()) as { access_token: string };
    expect(await emailOf(access_token)).toBe(ann.email);
  });

  /** An account whose address was moved to NAME.b: the user, its (stale) session, and the owner's way back. */
  const movedAway = async (name: string) => {
    const user = await verifiedUser(ctx.t, name);
    const ask = (email: string) => callAs(ctx.t, "/v1/users/me/email", user.accessToken, { email });
    expect((await ask(`${name}.b@example.net`)).status).toBe(202);
    await follow((await latestMailTo(ctx.t, `${name}.b@example.net`, "Confirm your new")).token);
    const wayBack = await latestMailTo(ctx.t, user.email, "e-mail address was changed");
    return { user, ask, wayBack };
  };
  const emailNow = async (username: string) =>
    (await ctx.t.deps.db.select({ email: users.email }).from(users).where(eq(users.username, username)))[0]
      ?.email;

  // Review, MEDIUM 2: a change asked with a stolen session outlived the owner's "sign out
  // everywhere" and new password. The intruder followed it afterwards, asked for a reset at their
  // address, and signed in as the owner. Whatever ends every session ends the pending change too;
  // the way back mailed to the old address is the owner's, and stays.
  it("sign-out everywhere, a new password, a reset and a deletion end the pending change; the way back stays", async () => {
    const ends: Record<string, (name: string, token: string) => Promise<void>> = {
      "sign out everywhere": async (_name, token) => {
        expect((await callAs(ctx.t, "/v1/logout/all", token)).status).toBe(200);
      },
      "change the password": async (_name, token) => {
        const changed = await callAs(ctx.t, "/v1/users/me/password", token, {
          current_password: GOOD_PASSWORD,
          new_password: "Owner#2468",
        });
        expect(changed.status).toBe(200);
      },
      "reset the password": async (name) => {
        const email = `${name}.b@example.com`;
        await postJson(ctx.t.app, "/v1/user/password-reset-request", { email }, fromIp());
        const { token } = await latestMailTo(ctx.t, email, "Reset your");
        const reset = await postJson(ctx.t.app, "/v1/user/password-reset", { token, password: "Owner#2468" });
        expect(reset.status).toBe(200);
      },
      "delete the account": async (name, token) => {
        expect((await callAs(ctx.t, "/v1/users/me", token, { confirm: name }, "DELETE")).status).toBe(200);
      },
    };
    for (const [how, end] of Object.entries(ends)) {
      const name = `end${Object.keys(ends).indexOf(how)}`;
      const owner = await verifiedUser(ctx.t, name);
      const ask = (token: string, email: string) => callAs(ctx.t, "/v1/users/me/email", token, { email });
      // Another move, done before, leaves the owner a way back to the first address.
      expect((await ask(owner.accessToken, `${name}.b@example.com`)).status).toBe(202);
      await follow((await latestMailTo(ctx.t, `${name}.b@example.com`, "Confirm your new")).token);
      const wayBack = await latestMailTo(ctx.t, owner.email, "e-mail address was changed");
      // The stolen session asks for the intruder's mailbox; the owner then ends every session.
      const stolen = ((await (await login(ctx.t, name)).json()) as { access_token: string }).access_token;
      expect((await ask(stolen, `${name}.mallory@example.net`)).status).toBe(202);
      const link = await latestMailTo(ctx.t, `${name}.mallory@example.net`, "Confirm your new");
      await end(name, owner.accessToken);

      const late = await follow(link.token);
      expect(late.status, how).toBe(400);
      expect(await late.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
      if (how === "delete the account") continue;
      expect(await emailNow(name), how).toBe(`${name}.b@example.com`);
      expect((await followBack(wayBack.token)).status, how).toBe(200);
      expect(await emailNow(name), how).toBe(owner.email);
    }
  });

  it("a change link asked before the account's token version moved is refused, whatever moved it", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect(
      (await callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email: "m@example.net" })).status,
    ).toBe(202);
    const link = await latestMailTo(ctx.t, "m@example.net", "Confirm your new");
    // As a path that ends every session but leaves the link's row would: only the version moves.
    await ctx.t.deps.db
      .update(users)
      .set({ tokenVersion: sql`${users.tokenVersion} + 1` })
      .where(eq(users.id, ann.id));
    const late = await follow(link.token);
    expect(late.status).toBe(400);
    expect(await late.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
    expect(await emailNow("ann")).toBe(ann.email);
    // A new request, under the version the account has now, works.
    const signedIn = ((await (await login(ctx.t, "ann")).json()) as { access_token: string }).access_token;
    expect((await callAs(ctx.t, "/v1/users/me/email", signedIn, { email: "m@example.net" })).status).toBe(
      202,
    );
    expect(
      (await follow((await latestMailTo(ctx.t, "m@example.net", "Confirm your new")).token)).status,
    ).toBe(200);
  });

  // Every transaction that ends an account's links locks the account first, then the link
  // (users.ts lockAccount). In the other order each held its own link and waited for the other's
  // row, and PostgreSQL ended one of them with a deadlock (a 500 here). Six rounds each: on PGlite
  // the two run one after the other, on PostgreSQL at once.
  it("a way back and a change link followed at the same instant both answer, and the way back wins", async () => {
    for (let round = 0; round < 6; round++) {
      const name = `race${round}`;
      const { user, ask, wayBack } = await movedAway(name);
      expect((await ask(`${name}.c@example.net`)).status).toBe(202);
      const change = await latestMailTo(ctx.t, `${name}.c@example.net`, "Confirm your new");

      const [back, moved] = await Promise.all([followBack(wayBack.token), follow(change.token)]);
      // Whichever goes first, the way back is kept and acts: the change ends no way back, and the
      // way back ends a change still pending (400 for it) or undoes one just made.
      expect(back.status).toBe(200);
      expect([200, 400]).toContain(moved.status);
      expect(await emailNow(name)).toBe(user.email);
    }
  });

  it("a way back and a reset link mailed to the moved address, followed at once: the reset's password never works", async () => {
    for (let round = 0; round < 16; round++) {
      const name = `reset${round}`;
      const { wayBack } = await movedAway(name);
      const asked = await postJson(
        ctx.t.app,
        "/v1/user/password-reset-request",
        { email: `${name}.b@example.net` },
        fromIp(),
      );
      expect(asked.status).toBe(200);
      const reset = await latestMailTo(ctx.t, `${name}.b@example.net`, "Reset your");

      // The reset hashes its password before its transaction: the way back starts later in each
      // round, so that one of them lands inside the reset's transaction.
      const [set, back] = await Promise.all([
        postJson(
          ctx.t.app,
          "/v1/user/password-reset",
          { token: reset.token, password: "Mallory#123" },
          fromIp(),
        ),
        new Promise((done) => setTimeout(done, round * 8)).then(() => followBack(wayBack.token)),
      ]);
      // The reset first: the way back then clears the password it set. The way back first: it
      // ended the reset link (400).
      expect(back.status).toBe(200);
      expect([200, 400]).toContain(set.status);
      expect((await login(ctx.t, name, "Mallory#123")).status).toBe(400);
    }
  });

  it("a change asked by the moved session at the instant of the way back leaves no link that works", async () => {
    for (let round = 0; round < 6; round++) {
      const name = `ask${round}`;
      const { ask, wayBack } = await movedAway(name);
      const [back, asked] = await Promise.all([followBack(wayBack.token), ask(`${name}.d@example.net`)]);
      expect(back.status).toBe(200);
      // Asked before the way back: the way back ends it. Checked before and written after: the
      // session is no longer the account's (401), so no link is made.
      expect([202, 401]).toContain(asked.status);
      if (asked.status === 202) {
        const link = await latestMailTo(ctx.t, `${name}.d@example.net`, "Confirm your new");
        expect((await follow(link.token)).status).toBe(400);
      }
      expect(await emailNow(name)).toBe(`${name}@example.com`);
    }
  });

  // Review, LOW 6: a reset asked at the moved address looked the account up by that address, then
  // wrote its link unlocked. A way back that committed in between left the intruder's address a
  // reset link that still worked after it.
  it("a reset asked at the moved address while the way back commits leaves that address no link that works", async () => {
    const { user, wayBack } = await movedAway("racer");
    const moved = "racer.b@example.net";
    let back: Response | undefined;
    const gate = afterUserLookup(ctx.t.deps.db, moved, async () => {
      back = await followBack(wayBack.token);
    });
    try {
      const asked = await postJson(ctx.t.app, "/v1/user/password-reset-request", { email: moved }, fromIp());
      expect(asked.status).toBe(200);
      await ctx.t.deps.tasks.idle();
    } finally {
      gate.restore();
    }
    // The way back did commit between the reset's lookup and what followed it.
    expect(gate.ran()).toBe(true);
    expect(back?.status).toBe(200);
    expect(await emailNow("racer")).toBe(user.email);
    const resets = (await ctx.t.mails()).filter(
      (m) => m.to.toLowerCase() === moved && m.subject.includes("Reset your"),
    );
    for (const mail of resets) {
      const check = await getJson(
        ctx.t.app,
        `/v1/user/password-reset-check/${tokenFromLink(mail.links[0] ?? "")}`,
      );
      expect(check.status).toBe(400);
    }
    expect(resets).toEqual([]);
    // The owner's address gets one as usual.
    await resetAfterWayBack(user.email);
  });

  it("after the way back, lists what was added from a day before the change until the way back, until removed", async () => {
    const owner = await verifiedUser(ctx.t, "ann");
    const review = async (token: string) => {
      const res = await getJson(ctx.t.app, "/v1/users/me/email/revert-review", token);
      expect(res.status).toBe(200);
      return ((await res.json()) as { review: Record<string, unknown> | null }).review;
    };
    // A key of the owner's own, more than a day before the change: not listed.
    await createKey(ctx.t, owner.accessToken, { name: "Ann's own" });
    expect(await review(owner.accessToken)).toBeNull();
    ctx.t.clock.advance(25 * 3600_000);
    const signIn = async () =>
      ((await (await login(ctx.t, "ann")).json()) as { access_token: string }).access_token;
    let ann = { ...owner, accessToken: await signIn() };
    // The stolen session: a key made a few hours before the move, then the move to another mailbox,
    // and on the way a passkey and an authenticator.
    const key = await createKey(ctx.t, ann.accessToken, { name: "Mallory's" });
    const keyMade = ctx.t.clock.now().toISOString();
    ctx.t.clock.advance(5 * 3600_000);
    ann = { ...owner, accessToken: await signIn() };
    const asked = ctx.t.clock.now().toISOString();
    const since = new Date(ctx.t.clock.now().getTime() - 24 * 3600_000).toISOString();
    expect(
      (await callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email: "m@example.net" })).status,
    ).toBe(202);
    const options = await callAs(ctx.t, "/v1/users/me/passkeys/options", ann.accessToken);
    const passkey = softPasskey();
    const created = passkey.create(
      (await options.json()) as { challenge: string; rp: { id?: string } },
      new URL(TEST_PORTAL_URL).origin,
    );
    const added = await callAs(ctx.t, "/v1/users/me/passkeys", ann.accessToken, {
      name: "Mallory's key",
      response: created,
    });
    expect(added.status).toBe(201);
    const { secret } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    ctx.t.clock.advance(60_000);
    expect(
      (await follow((await latestMailTo(ctx.t, "m@example.net", "Confirm your new")).token)).status,
    ).toBe(200);
    const told = await latestMailTo(ctx.t, ann.email, "e-mail address was changed");
    ctx.t.clock.advance(60_000);
    expect((await followBack(told.token)).status).toBe(200);
    const reverted = ctx.t.clock.now().toISOString();

    await resetAfterWayBack(ann.email);
    const token = await signInWithCode(ctx.t, "ann", codeAt(ctx.t, secret));
    const listed = await review(token);
    expect(listed).toEqual({
      since,
      changed_at: asked,
      reverted_at: reverted,
      passkeys: [{ id: passkey.id, name: "Mallory's key", created_at: asked }],
      two_factor_on_at: asked,
      api_keys: [
        {
          id: key.id,
          name: "Mallory's",
          prefix: key.prefix,
          created_at: keyMade,
          organization: { id: owner.id, name: null },
        },
      ],
    });
    // GET /v1/users/me/email answers the same review, beside the (here no) pending change.
    const both = await getJson(ctx.t.app, "/v1/users/me/email", token);
    expect(await both.json()).toEqual({ pending_change: null, revert_review: listed });
    // Removed one by one, each leaves the list; with all gone there is nothing to review.
    const path = `/v1/users/me/passkeys/${encodeURIComponent(passkey.id)}`;
    expect((await callAs(ctx.t, path, token, undefined, "DELETE")).status).toBe(204);
    expect((await review(token))?.passkeys).toEqual([]);
    expect((await callAs(ctx.t, `/v1/api-keys/${key.id}`, token, undefined, "DELETE")).status).toBe(204);
    ctx.t.clock.advance(31_000);
    expect(
      (await callAs(ctx.t, "/v1/users/me/mfa/totp", token, { code: codeAt(ctx.t, secret) }, "DELETE")).status,
    ).toBe(200);
    expect(await review(token)).toBeNull();
  });

  // Review, MEDIUM 4: the review listed only the keys of the personal organisation. A key the
  // intruder made in a team kept spending the team's credits, and its mails went to their address.
  it("the review lists the keys made in every organisation, each with its organisation, revocable there", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const made = await callAs(ctx.t, "/v1/orgs", ann.accessToken, { name: "Ann's team" });
    expect(made.status).toBe(201);
    const team = ((await made.json()) as { id: string }).id;
    const inTeam = (token: string) => ({ ...bearer(token), "X-Organization": team });
    // The stolen session: a key in the personal organisation, one in the team.
    const personal = await createKey(ctx.t, ann.accessToken, { name: "personal-backdoor" });
    const personalMade = ctx.t.clock.now().toISOString();
    ctx.t.clock.advance(1000);
    const teamKeyRes = await postJson(
      ctx.t.app,
      "/v1/api-keys",
      { name: "team-backdoor" },
      inTeam(ann.accessToken),
    );
    expect(teamKeyRes.status).toBe(201);
    const teamKey = (await teamKeyRes.json()) as { id: string; prefix: string };
    const teamMade = ctx.t.clock.now().toISOString();
    expect(
      (await callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email: "m@example.net" })).status,
    ).toBe(202);
    expect(
      (await follow((await latestMailTo(ctx.t, "m@example.net", "Confirm your new")).token)).status,
    ).toBe(200);
    expect(
      (await followBack((await latestMailTo(ctx.t, ann.email, "e-mail address was changed")).token)).status,
    ).toBe(200);
    await resetAfterWayBack(ann.email);
    const token = ((await (await login(ctx.t, "ann")).json()) as { access_token: string }).access_token;
    const review = async () => {
      const res = await getJson(ctx.t.app, "/v1/users/me/email/revert-review", token);
      expect(res.status).toBe(200);
      return ((await res.json()) as { review: { api_keys: unknown[] } | null }).review;
    };
    expect((await review())?.api_keys).toEqual([
      {
        id: personal.id,
        name: "personal-backdoor",
        prefix: personal.prefix,
        created_at: personalMade,
        organization: { id: ann.id, name: null },
      },
      {
        id: teamKey.id,
        name: "team-backdoor",
        prefix: teamKey.prefix,
        created_at: teamMade,
        organization: { id: team, name: "Ann's team" },
      },
    ]);
    // Revoked in its organisation (the id the review gives is the X-Organization to send), it leaves.
    const revoked = await ctx.t.app.request(`/v1/api-keys/${teamKey.id}`, {
      method: "DELETE",
      headers: inTeam(token),
    });
    expect(revoked.status).toBe(204);
    const left = (await review())?.api_keys as { name: string }[] | undefined;
    expect(left?.map((k) => k.name)).toEqual(["personal-backdoor"]);
  });

  it("lists nothing more than 30 days after the way back", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect(
      (await callAs(ctx.t, "/v1/users/me/email", ann.accessToken, { email: "m@example.net" })).status,
    ).toBe(202);
    await createKey(ctx.t, ann.accessToken, { name: "Mallory's" });
    expect(
      (await follow((await latestMailTo(ctx.t, "m@example.net", "Confirm your new")).token)).status,
    ).toBe(200);
    expect(
      (await followBack((await latestMailTo(ctx.t, ann.email, "e-mail address was changed")).token)).status,
    ).toBe(200);
    await resetAfterWayBack(ann.email);
    const review = async () => {
      const signedIn = (await (await login(ctx.t, "ann")).json()) as { access_token: string };
      const res = await getJson(ctx.t.app, "/v1/users/me/email/revert-review", signedIn.access_token);
      return ((await res.json()) as { review: { api_keys: unknown[] } | null }).review;
    };
    expect((await review())?.api_keys).toHaveLength(1);
    ctx.t.clock.advance(30 * 24 * 3600_000);
    expect(await review()).toBeNull();
  });
});
