// The erasure of an account that changed its address, on PGlite and PostgreSQL (decision 021,
// addendum "Every address the account had"): the mails and invitations written to it at an earlier
// address go too, while another account that has that address now, or had it before, keeps its own.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { deletedEmail } from "../../accounts/account-deletion.ts";
import { queueBillingMail } from "../../billing/billing-mails.ts";
import {
  billingMails,
  emailChanges,
  organizationInvitations,
  organizationMembers,
} from "../../db/schema/index.ts";
import { fromIp, latestMailTo, login, postJson, verifiedUser } from "../../testing/api-client.ts";
import { settleAll } from "../../testing/auto-top-up.ts";
import { useTestApp } from "../../testing/suite.ts";
import { teamOrg } from "../../testing/team-org.ts";
import { callAs } from "../../testing/two-factor.ts";

const MINUTE = 60_000;

describe.each(TEST_DATABASES)("erasing an account that changed its address (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const db = () => ctx.database.db;

  /** The account's address becomes `email` through its link; a fresh token for what follows. */
  const changeAddress = async <U extends { username: string; accessToken: string }>(
    user: U,
    email: string,
  ): Promise<U> => {
    const asked = await callAs(ctx.t, "/v1/users/me/email", user.accessToken, { email });
    expect(asked.status).toBe(202);
    const { token } = await latestMailTo(ctx.t, email, "Confirm your new");
    expect((await postJson(ctx.t.app, "/v1/user/confirm-email", { token }, fromIp())).status).toBe(200);
    ctx.t.clock.advance(MINUTE);
    const signedIn = await login(ctx.t, user.username);
    expect(signedIn.status).toBe(200);
    return { ...user, accessToken: ((await signedIn.json()) as { access_token: string }).access_token };
  };

  /** A team's billing mail to everyone its billing goes to now; sent when `send` says so. */
  const teamMail = async (org: string, key: string, send: boolean) => {
    const build = (user: { email: string }) => ({
      to: user.email,
      subject: `Receipt ${key} for ${user.email}`,
      text: `Dear ${user.email}`,
      html: `<p>Dear ${user.email}</p>`,
    });
    expect(
      await queueBillingMail(
        ctx.t.deps.db,
        { userId: org, kind: "receipt", dedupeKey: key, build },
        ctx.t.clock.now(),
      ),
    ).toBe(true);
    if (send) await settleAll(ctx.t);
    ctx.t.clock.advance(MINUTE);
  };

  const mailsOf = (org: string) => db().select().from(billingMails).where(eq(billingMails.userId, org));
  const joinAsBilling = (org: string, userId: string) =>
    db()
      .insert(organizationMembers)
      .values({ orgId: org, userId, role: "billing", joinedAt: ctx.t.clock.now() });
  const remove = (token: string, confirm: string) =>
    callAs(ctx.t, "/v1/users/me", token, { confirm }, "DELETE");

  /** Carol's team "Acme", billing `name` (registered at `email`) too. */
  const billedTeam = async (name: string, email: string) => {
    const carol = await verifiedUser(ctx.t, "carol");
    const member = await verifiedUser(ctx.t, name, { email });
    const org = await teamOrg(ctx.t, "Acme", [
      { id: carol.id, role: "owner" },
      { id: member.id, role: "billing" },
    ]);
    return { carol, member, org };
  };

  it("erases what was mailed to every address it had; whoever has the old one now keeps theirs", async () => {
    const { carol, member, org } = await billedTeam("ann", "ann.first@example.com");
    let ann = member;
    await teamMail(org, "receipt:first-sent", true);
    await teamMail(org, "receipt:first-unsent", false);
    ann = await changeAddress(ann, "ann.second@example.com");
    await teamMail(org, "receipt:second-sent", true);
    ann = await changeAddress(ann, "ann.third@example.com");
    // The first address is free again: bob registers it, and is billed by the same team.
    const bob = await verifiedUser(ctx.t, "bob", { email: "ann.first@example.com" });
    await joinAsBilling(org, bob.id);
    await teamMail(org, "receipt:third-sent", true);
    await teamMail(org, "receipt:third-unsent", false);
    // The first address's unsent mail went out with the next ones: it failed instead, and waits.
    await db()
      .update(billingMails)
      .set({ sentAt: null, attempts: 1, lastError: "451 try again later" })
      .where(eq(billingMails.dedupeKey, "receipt:first-unsent|to:ann.first@example.com"));
    expect((await mailsOf(org)).filter((m) => m.sentAt === null).map((m) => m.to)).toEqual(
      expect.arrayContaining(["ann.first@example.com", "ann.third@example.com"]),
    );

    expect((await remove(ann.accessToken, "ann")).status).toBe(200);

    const rows = await mailsOf(org);
    const bobs = rows.filter((r) => r.to === bob.email);
    const others = rows.filter((r) => r.to !== bob.email);
    // Nothing readable at any of ann's addresses: not the address, the words, nor a key's tail.
    for (const address of ["ann.first@example.com", "ann.second@example.com", "ann.third@example.com"]) {
      expect(JSON.stringify(others).toLowerCase()).not.toContain(address);
    }
    expect(others.filter((r) => r.to === "" && r.sentAt === null)).toEqual([]);
    // The copies sent to ann keep their keys, as an erased row does, so no event mails twice.
    const erasedKeys = others.filter((r) => r.to === "").map((r) => r.dedupeKey);
    expect(erasedKeys).toHaveLength(3);
    for (const key of erasedKeys) expect(key).toMatch(/^receipt:(first|second|third)-sent\|to:erased:/);
    // Bob's, at the address ann had first, written after she left it: untouched, the unsent one still to go.
    expect(bobs.map((r) => [r.dedupeKey, r.subject, r.sentAt === null]).sort()).toEqual([
      [
        "receipt:third-sent|to:ann.first@example.com",
        "Receipt receipt:third-sent for ann.first@example.com",
        false,
      ],
      [
        "receipt:third-unsent|to:ann.first@example.com",
        "Receipt receipt:third-unsent for ann.first@example.com",
        true,
      ],
    ]);
    // Carol's, the owner's, untouched.
    expect(rows.filter((r) => r.to === carol.email)).toHaveLength(5);
    expect(await db().select().from(emailChanges).where(eq(emailChanges.userId, ann.id))).toEqual([]);
  });

  it("keeps what an earlier holder of its current address was mailed before it took it", async () => {
    const { member, org } = await billedTeam("dave", "shared@example.com");
    let dave = member;
    await teamMail(org, "receipt:dave", true);
    dave = await changeAddress(dave, "dave.new@example.com");
    let ann = await verifiedUser(ctx.t, "ann");
    ann = await changeAddress(ann, "shared@example.com");
    await db().delete(organizationMembers).where(eq(organizationMembers.userId, dave.id));
    await joinAsBilling(org, ann.id);
    await teamMail(org, "receipt:ann", true);

    expect((await remove(ann.accessToken, "ann")).status).toBe(200);

    const rows = await mailsOf(org);
    const daves = rows.find((r) => r.dedupeKey === "receipt:dave|to:shared@example.com");
    expect(daves?.text).toBe("Dear shared@example.com");
    expect(rows.filter((r) => r.dedupeKey.startsWith("receipt:ann|to:"))).toEqual([
      expect.objectContaining({ to: "", text: "", dedupeKey: expect.stringMatching(/\|to:erased:/) }),
    ]);
  });

  it("takes its address out of the invitations it accepted or that were mailed to it and are over", async () => {
    const carol = await verifiedUser(ctx.t, "carol");
    const org = await teamOrg(ctx.t, "Acme", [{ id: carol.id, role: "owner" }]);
    const invitation = async (email: string, state: Partial<typeof organizationInvitations.$inferInsert>) => {
      const id = randomUUID();
      const now = ctx.t.clock.now();
      await db()
        .insert(organizationInvitations)
        .values({
          id,
          orgId: org,
          email,
          role: "billing",
          tokenHash: randomUUID(),
          invitedBy: carol.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + 7 * 24 * 60 * MINUTE),
          ...state,
        });
      ctx.t.clock.advance(MINUTE);
      return id;
    };
    // Invited before she registered with the address, and accepted once she had.
    const accepted = await invitation("ann.first@example.com", {});
    let ann = await verifiedUser(ctx.t, "ann", { email: "ann.first@example.com" });
    await db()
      .update(organizationInvitations)
      .set({ acceptedAt: ctx.t.clock.now(), acceptedBy: ann.id })
      .where(eq(organizationInvitations.id, accepted));
    const revokedWhileHers = await invitation("Ann.First@example.com", { revokedAt: ctx.t.clock.now() });
    const expiredWhileHers = await invitation("ann.first@example.com", {
      expiresAt: new Date(ctx.t.clock.now().getTime() + MINUTE),
    });
    ann = await changeAddress(ann, "ann.second@example.com");
    const bob = await verifiedUser(ctx.t, "bob", { email: "ann.first@example.com" });
    const revokedBobs = await invitation(bob.email, { revokedAt: ctx.t.clock.now() });
    const pendingToAnn = await invitation("ann.second@example.com", {});

    expect((await remove(ann.accessToken, "ann")).status).toBe(200);

    const rows = await db()
      .select()
      .from(organizationInvitations)
      .where(eq(organizationInvitations.orgId, org));
    const emailOf = (id: string) => rows.find((r) => r.id === id)?.email;
    expect(emailOf(accepted)).toBe(deletedEmail(ann.id));
    expect(emailOf(revokedWhileHers)).toBe(deletedEmail(ann.id));
    expect(emailOf(expiredWhileHers)).toBe(deletedEmail(ann.id));
    expect(emailOf(revokedBobs)).toBe("ann.first@example.com");
    // Still the team's offer to the mailbox, which it sees and may revoke.
    expect(emailOf(pendingToAnn)).toBe("ann.second@example.com");
  });
});
