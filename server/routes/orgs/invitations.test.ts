// Invitations: the mailed link (hashed token, single use, 7 days), who may invite whom, the limits
// (20 an hour per inviter, 50 a day and 100 pending per organisation), revoking, resending and
// accepting with the invited address only.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { ORG_TEXT } from "../../../contract/orgs.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { canonicalMailbox } from "../../auth/mailbox.ts";
import { hashSecretToken } from "../../auth/secret-tokens.ts";
import { auditLog, organizationInvitations, users } from "../../db/schema/index.ts";
import { mailboxLimits } from "../../http/rate-limit.ts";
import { fromIp, latestMailTo, login, postJson, verifiedUser } from "../../testing/api-client.ts";
import { call, createTeam, invite, json, member, type Person } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { CONTRACT_LIMITS, NO_LIMITS, TEST_PORTAL_URL } from "../../testing/test-app.ts";

const HOUR = 3_600_000;

describe.each(TEST_DATABASES)("organisation invitations (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  const send = (who: Person, orgId: string, email: string, role = "developer") =>
    call(ctx.t, "POST", `/v1/orgs/${orgId}/invitations`, who.accessToken, { email, role });
  const look = (token: string) => call(ctx.t, "GET", `/v1/invitations/${token}`);
  const accept = (who: Person, token: string) =>
    call(ctx.t, "POST", `/v1/invitations/${token}/accept`, who.accessToken);

  it("mails a single-use link whose token is stored only hashed, and joins with the invited role", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const bob = await verifiedUser(ctx.t, "bob");
    const created = await json(await send(ann, org.id, "Bob@EXAMPLE.com", "manager"), 201);
    expect(created).toMatchObject({
      email: "Bob@example.com",
      role: "manager",
      invited_by: { id: ann.id, username: "ann" },
    });
    const { mail, link, token } = await latestMailTo(ctx.t, "bob@example.com", "invited you");
    expect(mail.subject).toContain("ann invited you to Acme Labs");
    expect(link).toBe(`${TEST_PORTAL_URL}/invitations/${token}`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await ctx.t.deps.db.select().from(organizationInvitations);
    expect(row?.tokenHash).toBe(hashSecretToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row && row.expiresAt.getTime() - row.createdAt.getTime()).toBe(7 * 24 * HOUR);

    expect(await json(await look(token), 200)).toEqual({
      organization_name: "Acme Labs",
      role: "manager",
      invited_by: { username: "ann", email: "ann@example.com" },
      expires_at: row?.expiresAt.toISOString(),
    });
    const joined = await json(await accept(bob, token), 200);
    expect(joined).toEqual({
      organization: { id: org.id, name: "Acme Labs", personal: false },
      role: "manager",
      joined_at: ctx.t.clock.now().toISOString(),
    });
    expect(await json(await call(ctx.t, "GET", `/v1/orgs/${org.id}`, bob.accessToken), 200)).toMatchObject({
      role: "manager",
      member_count: 2,
    });
    // Used: the link names nothing any more.
    expect(await json(await look(token), 404)).toEqual({ detail: ORG_DETAIL.invitationNotFound });
    expect((await accept(bob, token)).status).toBe(404);
    const actions = (
      await ctx.t.deps.db.select().from(auditLog).where(eq(auditLog.subjectOrgId, org.id))
    ).map((r) => r.action);
    expect(actions).toEqual(["org.create", "member.invite", "member.join"]);
  });

  it("accepts only from the invited address, verified, and says which address it is for", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const token = await invite(ctx.t, org, ann, "carol@example.com", "developer");
    const eve = await verifiedUser(ctx.t, "eve");
    expect(await json(await accept(eve, token), 403)).toEqual({
      detail: ORG_DETAIL.wrongAddress("c•••@example.com"),
    });
    const carol = await verifiedUser(ctx.t, "carol", { email: "CAROL@example.com" });
    await ctx.t.deps.db.update(users).set({ emailVerified: false }).where(eq(users.id, carol.id));
    expect(await json(await accept(carol, token), 403)).toEqual({ detail: ORG_DETAIL.emailNotVerified });
    await ctx.t.deps.db.update(users).set({ emailVerified: true }).where(eq(users.id, carol.id));
    await json(await accept(carol, token), 200);
    expect((await call(ctx.t, "POST", `/v1/invitations/${token}/accept`)).status).toBe(401);
  });

  it("expires after 7 days, and answers 404 for unknown and malformed tokens", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const dan = await verifiedUser(ctx.t, "dan");
    const token = await invite(ctx.t, org, ann, dan.email, "developer");
    ctx.t.clock.advance(7 * 24 * HOUR);
    // Signed in again: a week outlives every access token.
    const fresh = async (who: Person) => ({
      ...who,
      accessToken: ((await (await login(ctx.t, who.username)).json()) as { access_token: string })
        .access_token,
    });
    expect((await look(token)).status).toBe(404);
    expect((await accept(await fresh(dan), token)).status).toBe(404);
    expect((await look("A".repeat(43))).status).toBe(404);
    // An expired invitation is not pending: the address may be invited again.
    await json(await send(await fresh(ann), org.id, dan.email), 201);
  });

  it("refuses owner as a role, a member's or pending address, and a personal organisation", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const owner = await json<{ detail: { loc: string[] }[] }>(
      await send(ann, org.id, "x@example.com", "owner"),
      422,
    );
    expect(owner.detail[0]?.loc).toEqual(["body", "role"]);
    expect(await json(await send(ann, org.id, "ANN@example.com"), 409)).toEqual({
      detail: ORG_DETAIL.alreadyMember,
    });
    await json(await send(ann, org.id, "zed@example.com"), 201);
    expect(await json(await send(ann, org.id, "Zed@Example.com", "manager"), 409)).toEqual({
      detail: ORG_DETAIL.alreadyInvited,
    });
    expect(await json(await send(ann, ann.id, "zed@example.com"), 409)).toEqual({
      detail: ORG_DETAIL.personalHasNoMembers,
    });
    expect((await send(ann, org.id, "not-an-address")).status).toBe(422);
  });

  it("refuses an address no account can have: a domain that never receives mail, or a disposable one", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    for (const [email, msg] of [
      [`${randomUUID()}@deleted.invalid`, VALIDATION.emailReserved],
      ["zed@box.localhost", VALIDATION.emailReserved],
      ["zed@mailinator.com", VALIDATION.emailDisposable],
    ] as const) {
      expect(await json(await send(ann, org.id, email), 422)).toEqual({
        detail: [{ loc: ["body", "email"], msg, type: "value_error" }],
      });
    }
    expect(await ctx.t.deps.db.select().from(organizationInvitations)).toEqual([]);
  });

  it("sends one invitation when the same address is invited twice at once", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const answers = await Promise.all([
      send(ann, org.id, "sam@example.com"),
      send(ann, org.id, "SAM@example.com"),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await ctx.t.deps.db.select().from(organizationInvitations)).toHaveLength(1);
  });

  it("lets owners invite any role, managers developers and managers, and nobody else invite", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const max = await member(ctx.t, org, ann, "max", "manager");
    const bill = await member(ctx.t, org, ann, "bill", "billing");
    const dev = await member(ctx.t, org, ann, "dev", "developer");
    await json(await send(ann, org.id, "b1@example.com", "billing"), 201);
    await json(await send(max, org.id, "m1@example.com", "manager"), 201);
    await json(await send(max, org.id, "d1@example.com", "developer"), 201);
    expect(await json(await send(max, org.id, "b2@example.com", "billing"), 403)).toEqual({
      detail: ORG_DETAIL.notAllowed,
    });
    for (const who of [bill, dev]) {
      expect((await send(who, org.id, "d2@example.com")).status).toBe(403);
      expect((await call(ctx.t, "GET", `/v1/orgs/${org.id}/invitations`, who.accessToken)).status).toBe(403);
    }
  });

  it("asks for recent authentication to invite a billing member, or to resend such an invitation", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const billing = await json<{ id: string }>(await send(ann, org.id, "b1@example.com", "billing"), 201);
    ctx.t.clock.advance(11 * 60_000);
    expect(await json(await send(ann, org.id, "b2@example.com", "billing"), 403)).toMatchObject({
      detail: DETAIL.reauthRequired,
      reauth_required: true,
    });
    const resend = await call(
      ctx.t,
      "POST",
      `/v1/orgs/${org.id}/invitations/${billing.id}/resend`,
      ann.accessToken,
    );
    expect(await json(resend, 403)).toMatchObject({ reauth_required: true });
    await json(await send(ann, org.id, "d1@example.com", "developer"), 201);
  });

  it("refuses a billing invitation by role before asking for the password", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const max = await member(ctx.t, org, ann, "max", "manager");
    const dev = await member(ctx.t, org, ann, "dev", "developer");
    const billing = await json<{ id: string }>(await send(ann, org.id, "b1@example.com", "billing"), 201);
    ctx.t.clock.advance(11 * 60_000);
    const notAllowed = { detail: ORG_DETAIL.notAllowed };
    for (const who of [max, dev]) {
      expect(await json(await send(who, org.id, "b2@example.com", "billing"), 403)).toEqual(notAllowed);
      const resend = `/v1/orgs/${org.id}/invitations/${billing.id}/resend`;
      expect(await json(await call(ctx.t, "POST", resend, who.accessToken), 403)).toEqual(notAllowed);
    }
  });

  it("lists pending invitations, revokes one (its link stops) and resends another with a new link", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const first = await invite(ctx.t, org, ann, "one@example.com", "developer");
    const second = await invite(ctx.t, org, ann, "two@example.com", "manager");
    const list = await json<{ data: { id: string; email: string }[] }>(
      await call(ctx.t, "GET", `/v1/orgs/${org.id}/invitations`, ann.accessToken),
      200,
    );
    expect(list.data.map((i) => i.email)).toEqual(["one@example.com", "two@example.com"]);
    const [one, two] = list.data;
    if (!one || !two) throw new Error("two invitations expected");

    expect(
      (await call(ctx.t, "DELETE", `/v1/orgs/${org.id}/invitations/${one.id}`, ann.accessToken)).status,
    ).toBe(204);
    expect((await look(first)).status).toBe(404);
    expect(
      (await call(ctx.t, "DELETE", `/v1/orgs/${org.id}/invitations/${one.id}`, ann.accessToken)).status,
    ).toBe(404);

    ctx.t.clock.advance(HOUR);
    const resent = await json<{ expires_at: string }>(
      await call(ctx.t, "POST", `/v1/orgs/${org.id}/invitations/${two.id}/resend`, ann.accessToken),
      200,
    );
    expect(resent.expires_at).toBe(new Date(ctx.t.clock.now().getTime() + 7 * 24 * HOUR).toISOString());
    const renewed = (await latestMailTo(ctx.t, "two@example.com", "invited you")).token;
    expect(renewed).not.toBe(second);
    expect((await look(second)).status).toBe(404);
    expect((await look(renewed)).status).toBe(200);

    const after = await json<{ data: { email: string }[] }>(
      await call(ctx.t, "GET", `/v1/orgs/${org.id}/invitations`, ann.accessToken),
      200,
    );
    expect(after.data.map((i) => i.email)).toEqual(["two@example.com"]);
    const actions = (
      await ctx.t.deps.db.select().from(auditLog).where(eq(auditLog.subjectOrgId, org.id))
    ).map((r) => r.action);
    expect(actions).toContain("member.invite_revoke");
  });

  it("finds an invitation id only inside the organisation of the path", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann, "Acme");
    const other = await createTeam(ctx.t, ann, "Other");
    await invite(ctx.t, other, ann, "x@example.com", "developer");
    const [row] = await ctx.t.deps.db.select().from(organizationInvitations);
    for (const id of [row?.id, randomUUID(), "nope"]) {
      expect(
        (await call(ctx.t, "DELETE", `/v1/orgs/${acme.id}/invitations/${id}`, ann.accessToken)).status,
      ).toBe(404);
      expect(
        (await call(ctx.t, "POST", `/v1/orgs/${acme.id}/invitations/${id}/resend`, ann.accessToken)).status,
      ).toBe(404);
    }
  });

  describe("limits", () => {
    it("mails each invitation at most once an hour, resends included", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const org = await createTeam(ctx.t, ann);
      await invite(ctx.t, org, ann, "one@example.com", "developer");
      const [row] = await ctx.t.deps.db.select().from(organizationInvitations);
      const resend = () =>
        call(ctx.t, "POST", `/v1/orgs/${org.id}/invitations/${row?.id}/resend`, ann.accessToken);
      ctx.t.clock.advance(HOUR - 60_000);
      const early = await resend();
      expect(await json(early, 429)).toEqual({ detail: ORG_TEXT.resentRecently });
      expect(early.headers.get("retry-after")).toBe("60");
      ctx.t.clock.advance(60_000);
      await json(await resend(), 200);
      expect((await resend()).status).toBe(429);
    });

    it("refuses the 21st invitation of an hour by one inviter with 429 and when to retry", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const org = await createTeam(ctx.t, ann);
      for (let i = 0; i < 20; i++) await json(await send(ann, org.id, `p${i}@example.com`), 201);
      ctx.t.clock.advance(HOUR / 2);
      const refused = await send(ann, org.id, "p20@example.com");
      expect(await json(refused, 429)).toEqual({ detail: ORG_TEXT.tooManyInvitesPerHour });
      expect(refused.headers.get("Retry-After")).toBe(String(HOUR / 2000));
      ctx.t.clock.advance(HOUR / 2);
      await json(await send(ann, org.id, "p20@example.com"), 201);
    });

    it("refuses the 51st invitation of a day in one organisation", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const org = await createTeam(ctx.t, ann);
      for (let i = 0; i < 50; i++) {
        if (i > 0 && i % 20 === 0) ctx.t.clock.advance(HOUR);
        await json(await send(ann, org.id, `q${i}@example.com`), 201);
      }
      ctx.t.clock.advance(HOUR);
      expect(await json(await send(ann, org.id, "q50@example.com"), 429)).toEqual({
        detail: ORG_TEXT.tooManyInvitesPerDay,
      });
    });

    it("refuses a 101st pending invitation with 409", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const org = await createTeam(ctx.t, ann);
      const now = ctx.t.clock.now();
      // Sent over the past days (the rates count only the last hour and day).
      await ctx.t.deps.db.insert(organizationInvitations).values(
        Array.from({ length: 100 }, (_, i) => ({
          id: randomUUID(),
          orgId: org.id,
          email: `r${i}@example.com`,
          role: "developer" as const,
          tokenHash: hashSecretToken(`token-${i}`),
          invitedBy: ann.id,
          createdAt: new Date(now.getTime() - 2 * 24 * HOUR),
          expiresAt: new Date(now.getTime() + 5 * 24 * HOUR),
        })),
      );
      expect(await json(await send(ann, org.id, "r100@example.com"), 409)).toEqual({
        detail: ORG_DETAIL.tooManyPending,
      });
    });
  });
});

// Review: an invitation is a mail to an address the inviter chose, yet it never counted against
// that mailbox's hour and day (decision 024) as reset, verification and change-link mails do: an
// organisation's admin, in as many organisations as they made, could flood any address.
describe.each(TEST_DATABASES)("invitations and the invited mailbox's limits (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const send = (who: Person, orgId: string, email: string) =>
    call(ctx.t, "POST", `/v1/orgs/${orgId}/invitations`, who.accessToken, { email, role: "developer" });
  const resetFor = (email: string) =>
    postJson(ctx.t.app, "/v1/user/password-reset-request", { email }, fromIp());
  const look = (token: string) => call(ctx.t, "GET", `/v1/invitations/${token}`);
  const invitationsTo = async (mailbox: string) =>
    (await ctx.t.mails()).filter(
      (m) => canonicalMailbox(m.to) === mailbox && m.subject.includes("invited you"),
    );

  it("counts each invitation against its mailbox's hour, with resets, by the mailbox it reaches", async () => {
    const mailbox = "anntarget@gmail.com";
    // 3 resets (the address's minute allows 3) and 7 invitations: the hour's 10 mails. Each
    // invitation names another address (a pending one answers 409), all one Gmail inbox.
    for (let i = 0; i < 3; i++) expect((await resetFor("ann.target@gmail.com")).status).toBe(200);
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann);
    for (let i = 1; i <= 7; i++) await json(await send(ann, acme.id, `ann.target+${i}@gmail.com`), 201);
    const over = await send(ann, acme.id, "a.n.n.target+8@googlemail.com");
    expect(await json(over, 429)).toEqual({ detail: ORG_DETAIL.mailboxBusy });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(60);
    // Refused whole: no invitation stored, no mail.
    const stored = await ctx.t.deps.db.select().from(organizationInvitations);
    expect(stored.map((r) => r.email).filter((e) => e.includes("+8"))).toEqual([]);
    expect(await invitationsTo(mailbox)).toHaveLength(7);
    // Per mailbox, whoever invites: another organisation's admin too; a reset is refused as well.
    const bob = await verifiedUser(ctx.t, "bob");
    const other = await createTeam(ctx.t, bob, "Other Labs");
    expect((await send(bob, other.id, "AnnTarget@gmail.com")).status).toBe(429);
    expect((await resetFor("anntarget+9@gmail.com")).status).toBe(429);
    // Another mailbox is not.
    await json(await send(ann, acme.id, "someone.else@example.com"), 201);
  });

  it("says the mailbox's refusal in words of its own, and the inviter's own writes in the generic ones", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann);
    for (let i = 0; i < CONTRACT_LIMITS.emailRecipientPerHour; i++)
      await ctx.t.deps.limiter.consume("emailRecipientHour", canonicalMailbox("full@example.com"));
    expect(await json(await send(ann, acme.id, "full@example.com"), 429)).toEqual({
      detail: ORG_DETAIL.mailboxBusy,
    });
    // The signed-in writes of a minute used up: about the inviter, whatever the address.
    for (let i = 0; i < CONTRACT_LIMITS.accountWritePerMinute; i++)
      await ctx.t.deps.limiter.consume("accountWrite", ann.id);
    const busy = await send(ann, acme.id, "fresh@example.com");
    expect(await json(busy, 429)).toEqual({ detail: DETAIL.tooManyRequests });
    expect(Number(busy.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(await ctx.t.deps.db.select().from(organizationInvitations)).toEqual([]);
  });

  it("a refusal by the mailbox's day leaves its hour's count as it was", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann);
    const { limiter } = ctx.t.deps;
    const mailbox = canonicalMailbox("busy@example.com");
    // The day's mails used up by earlier hours: this hour has had none.
    for (let i = 0; i < CONTRACT_LIMITS.emailRecipientPerDay; i++)
      await limiter.consume("emailRecipientDay", mailbox);
    for (let i = 0; i < 3; i++) expect((await send(ann, acme.id, `busy+${i}@example.com`)).status).toBe(429);
    // The hour still has every one of its mails (decision 024: a refusal costs nothing).
    for (let i = 0; i < CONTRACT_LIMITS.emailRecipientPerHour; i++)
      expect((await limiter.consume("emailRecipientHour", mailbox)).allowed).toBe(true);
    expect((await limiter.consume("emailRecipientHour", mailbox)).allowed).toBe(false);
  });

  it("counts a resend too: past the mailbox's hour it keeps the old link and mails nothing", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann);
    const token = await invite(ctx.t, acme, ann, "Target+team@example.com", "developer");
    const [row] = await ctx.t.deps.db.select().from(organizationInvitations);
    // The mailbox's other 9 mails of the hour (resets, links), counted as the server counts them.
    for (let i = 0; i < 9; i++) {
      for (const [name, key] of mailboxLimits("target@example.com"))
        await ctx.t.deps.limiter.consume(name, key);
    }
    ctx.t.clock.advance(HOUR);
    const resent = await call(
      ctx.t,
      "POST",
      `/v1/orgs/${acme.id}/invitations/${row?.id}/resend`,
      ann.accessToken,
    );
    expect(await json(resent, 429)).toEqual({ detail: ORG_DETAIL.mailboxBusy });
    expect(Number(resent.headers.get("retry-after"))).toBeGreaterThan(60);
    // Rolled back: the link mailed first still works, until its first expiry.
    expect((await look(token)).status).toBe(200);
    const [after] = await ctx.t.deps.db.select().from(organizationInvitations);
    expect(after?.expiresAt).toEqual(row?.expiresAt);
    expect(await invitationsTo("target@example.com")).toHaveLength(1);
  });
});
