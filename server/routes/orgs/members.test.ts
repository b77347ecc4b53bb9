// /v1/orgs/{id}/members: the list (e-mails per role, this month's spending), role and cap changes
// by the change table, and removal or leaving with what it revokes.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { ORG_TEXT } from "../../../contract/orgs.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { checkouts, MAX_OPEN_CHECKOUTS_PER_MEMBER } from "../../billing/checkout.ts";
import {
  apiKeys,
  auditLog,
  checkoutSessions,
  localCardSessions,
  memberCreditUsage,
  organizationInvitations,
  organizationMembers,
  savedCards,
} from "../../db/schema/index.ts";
import { berlinMonth } from "../../domain/berlin-time.ts";
import { BILLING_ERRORS } from "../../domain/billing-errors.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { AUTO_TOP_UP_CARDS, openCardSetup, saveCard } from "../../testing/auto-top-up.ts";
import {
  checkoutPath,
  giveCardAt,
  openCardPage,
  openSubscriptionCheckout,
  payAndSettle,
  payAt,
  requestOrgCheckout,
  TIER,
  TOP_UP,
} from "../../testing/billing.ts";
import {
  call,
  createTeam,
  insertKey,
  invite,
  json,
  member,
  type Person,
  STALE,
} from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

type Members = {
  data: {
    user_id: string;
    username: string;
    email: string | null;
    role: string;
    monthly_credit_cap?: number | null;
    spent_this_month?: number;
  }[];
};

describe.each(TEST_DATABASES)("organisation members (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /** Ann owns Acme Labs; Max manages it, Bill pays, Dev and Deb build. */
  async function acme() {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const max = await member(ctx.t, org, ann, "max", "manager");
    const bill = await member(ctx.t, org, ann, "bill", "billing");
    const dev = await member(ctx.t, org, ann, "dev", "developer");
    const deb = await member(ctx.t, org, ann, "deb", "developer");
    return { org, ann, max, bill, dev, deb };
  }

  const patch = (who: Person, orgId: string, userId: string, body: unknown) =>
    call(ctx.t, "PATCH", `/v1/orgs/${orgId}/members/${userId}`, who.accessToken, body);
  const remove = (who: Person, orgId: string, userId: string) =>
    call(ctx.t, "DELETE", `/v1/orgs/${orgId}/members/${userId}`, who.accessToken);
  const roleOf = async (orgId: string, userId: string) =>
    (
      await ctx.t.deps.db
        .select({ role: organizationMembers.role, cap: organizationMembers.monthlyCreditCap })
        .from(organizationMembers)
        .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)))
    )[0];
  /** The path of a checkout `who` opened for the organisation (/_checkout/{session id}). */
  const openedCheckout = async (who: Person, orgId: string) =>
    checkoutPath(
      (await json<{ url: string }>(await requestOrgCheckout(ctx.t, who.accessToken, orgId), 200)).url,
    );
  const checkoutStatus = async (path: string) => {
    const [session] = await ctx.t.deps.db
      .select({ status: checkoutSessions.status })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, path.split("/").pop() as string));
    return session?.status;
  };
  /** Whether the card page at `path` (/_checkout/billing/{id}) is still open, as stored. */
  const cardPageOpen = async (path: string) => {
    const [page] = await ctx.t.deps.db
      .select()
      .from(localCardSessions)
      .where(eq(localCardSessions.id, path.split("/").pop() as string));
    return page !== undefined && page.usedAt === null && page.expiresAt > ctx.t.clock.now();
  };
  /** The card page's answer to a card that would work: 410 with its expired wording when it is over. */
  const refusedCard = async (path: string) => {
    const res = await giveCardAt(ctx.t, path);
    expect(res.status).toBe(410);
    expect(await res.text()).toContain("This link has expired or was used.");
  };
  const lastAudit = async (orgId: string) => {
    const rows = await ctx.t.deps.db.select().from(auditLog).where(eq(auditLog.subjectOrgId, orgId));
    return rows.sort((a, b) => b.seq - a.seq)[0];
  };

  it("lists every member with role, cap and spending; e-mails only for owners and managers", async () => {
    const { org, ann, max, bill, dev, deb } = await acme();
    await ctx.t.deps.db.insert(memberCreditUsage).values([
      { orgId: org.id, userId: dev.id, month: berlinMonth(ctx.t.clock.now()), amount: 4_250 },
      // Last month's spending is not this month's.
      { orgId: org.id, userId: deb.id, month: "2000-01-01", amount: 9_000 },
    ]);
    await json(await patch(ann, org.id, dev.id, { monthly_credit_cap: 10 }), 200);
    const asOwner = await json<Members>(
      await call(ctx.t, "GET", `/v1/orgs/${org.id}/members`, ann.accessToken),
      200,
    );
    expect(asOwner.data.map((m) => [m.username, m.role])).toEqual([
      ["ann", "owner"],
      ["max", "manager"],
      ["bill", "billing"],
      // Joined at the same instant: by name.
      ["deb", "developer"],
      ["dev", "developer"],
    ]);
    expect(asOwner.data.find((m) => m.username === "dev")).toMatchObject({
      email: "dev@example.com",
      monthly_credit_cap: 10,
      spent_this_month: 4.25,
    });
    expect(asOwner.data.find((m) => m.username === "deb")).toMatchObject({
      monthly_credit_cap: null,
      spent_this_month: 0,
    });
    const asManager = await json<Members>(
      await call(ctx.t, "GET", `/v1/orgs/${org.id}/members`, max.accessToken),
      200,
    );
    expect(asManager.data.every((m) => m.email !== null)).toBe(true);
    for (const who of [bill, dev]) {
      const list = await json<Members>(
        await call(ctx.t, "GET", `/v1/orgs/${org.id}/members`, who.accessToken),
        200,
      );
      expect(list.data.map((m) => m.email)).toEqual([null, null, null, null, null]);
    }
  });

  it("shows caps and spending to roles that see everyone's usage, and a developer only their own", async () => {
    const { org, ann, max, bill, dev } = await acme();
    await ctx.t.deps.db
      .insert(memberCreditUsage)
      .values([{ orgId: org.id, userId: dev.id, month: berlinMonth(ctx.t.clock.now()), amount: 4_250 }]);
    await json(await patch(ann, org.id, dev.id, { monthly_credit_cap: 10 }), 200);
    await json(await patch(ann, org.id, max.id, { monthly_credit_cap: 20 }), 200);
    const usageOf = async (who: Person) =>
      (
        await json<Members>(await call(ctx.t, "GET", `/v1/orgs/${org.id}/members`, who.accessToken), 200)
      ).data.map((m) => [m.username, m.monthly_credit_cap, m.spent_this_month]);
    const everyone = [
      ["ann", null, 0],
      ["max", 20, 0],
      ["bill", null, 0],
      ["deb", null, 0],
      ["dev", 10, 4.25],
    ];
    for (const who of [ann, max, bill]) expect(await usageOf(who)).toEqual(everyone);
    // "Usage of everyone: own only" for a developer; the others' names and roles, no more.
    expect(await usageOf(dev)).toEqual([
      ["ann", undefined, undefined],
      ["max", undefined, undefined],
      ["bill", undefined, undefined],
      ["deb", undefined, undefined],
      ["dev", 10, 4.25],
    ]);
  });

  it("arms a member's 80 % warning again when their cap changes, unless spending is past the new mark", async () => {
    const { org, ann, dev } = await acme();
    const month = berlinMonth(ctx.t.clock.now());
    await ctx.t.deps.db
      .insert(memberCreditUsage)
      .values([{ orgId: org.id, userId: dev.id, month, amount: 9_000, capWarned: true }]);
    const warned = async () =>
      (await ctx.t.deps.db.select().from(memberCreditUsage).where(eq(memberCreditUsage.userId, dev.id)))[0]
        ?.capWarned;
    // 9 spent: under 80 % of 20 (armed), past 80 % of 10 (counts as warned), no cap (nothing to warn of).
    const steps: [number | null, boolean][] = [
      [20, false],
      [10, true],
      [null, false],
    ];
    for (const [cap, expected] of steps) {
      await json(await patch(ann, org.id, dev.id, { monthly_credit_cap: cap }), 200);
      expect(await warned(), `cap ${cap}`).toBe(expected);
    }
  });

  it("says the server's time, whose Berlin month the spending counts", async () => {
    const { org, dev } = await acme();
    // The app's clock, not real time (billing:advance moves it).
    ctx.t.clock.advance(10 * 60_000);
    const list = await json<Members & { as_of: string }>(
      await call(ctx.t, "GET", `/v1/orgs/${org.id}/members`, dev.accessToken),
      200,
    );
    expect(list.as_of).toBe(ctx.t.clock.now().toISOString());
  });

  describe("role changes", () => {
    it("managers move developers and managers between those two roles, and nothing else", async () => {
      const { org, ann, max, bill, dev } = await acme();
      const promoted = await json(await patch(max, org.id, dev.id, { role: "manager" }), 200);
      expect(promoted).toMatchObject({ member: { user_id: dev.id, role: "manager" }, revoked_keys: [] });
      expect((await roleOf(org.id, dev.id))?.role).toBe("manager");
      // dev is a manager now: another manager may move them back.
      await json(await patch(max, org.id, dev.id, { role: "developer" }), 200);
      for (const [target, role] of [
        [dev.id, "billing"],
        [dev.id, "owner"],
        [bill.id, "developer"],
        [ann.id, "manager"],
        [max.id, "developer"],
      ] as const) {
        const res = await patch(max, org.id, target, { role });
        expect(await json(res, 403), `${target} ${role}`).toEqual({ detail: ORG_DETAIL.notAllowed });
      }
    });

    it("developers and billing members change nobody, themselves included", async () => {
      const { org, bill, dev, deb } = await acme();
      for (const [who, target] of [
        [dev, deb],
        [dev, dev],
        [bill, dev],
      ] as const) {
        expect((await patch(who, org.id, target.id, { role: "manager" })).status).toBe(403);
        expect((await patch(who, org.id, target.id, { monthly_credit_cap: 1 })).status).toBe(403);
      }
    });

    it("never demotes the last owner, but an owner may step down once there is another", async () => {
      const { org, ann, max } = await acme();
      expect(await json(await patch(ann, org.id, ann.id, { role: "manager" }), 409)).toEqual({
        detail: ORG_DETAIL.lastOwner,
      });
      await json(await patch(ann, org.id, max.id, { role: "owner" }), 200);
      await json(await patch(ann, org.id, ann.id, { role: "developer" }), 200);
      expect((await roleOf(org.id, ann.id))?.role).toBe("developer");
    });

    it("leaves one owner when two owners step down at the same time", async () => {
      const { org, ann, max } = await acme();
      await json(await patch(ann, org.id, max.id, { role: "owner" }), 200);
      const answers = await Promise.all([
        patch(ann, org.id, ann.id, { role: "manager" }),
        patch(max, org.id, max.id, { role: "manager" }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const roles = [(await roleOf(org.id, ann.id))?.role, (await roleOf(org.id, max.id))?.role];
      expect(roles.sort()).toEqual(["manager", "owner"]);
    });

    it("asks for the password again before making an owner or a billing member", async () => {
      const { org, ann, dev } = await acme();
      ctx.t.clock.advance(STALE);
      for (const role of ["owner", "billing"]) {
        const res = await patch(ann, org.id, dev.id, { role });
        expect(await json(res, 403)).toMatchObject({ detail: DETAIL.reauthRequired, reauth_required: true });
      }
      expect((await roleOf(org.id, dev.id))?.role).toBe("developer");
      // A manager is not such a role.
      await json(await patch(ann, org.id, dev.id, { role: "manager" }), 200);
    });

    it("refuses by role before asking for the password", async () => {
      const { org, max, dev, bill } = await acme();
      ctx.t.clock.advance(STALE);
      // Nothing here is ever the caller's to do: the role's answer, not a password prompt.
      for (const [who, target, role] of [
        [max, max, "owner"],
        [max, dev, "owner"],
        [max, dev, "billing"],
        [dev, dev, "owner"],
        [bill, dev, "billing"],
      ] as const) {
        expect(await json(await patch(who, org.id, target.id, { role }), 403)).toEqual({
          detail: ORG_DETAIL.notAllowed,
        });
      }
      expect((await roleOf(org.id, max.id))?.role).toBe("manager");
    });

    it("revokes the member's own keys when the new role has none, and lists them", async () => {
      const { org, ann, dev } = await acme();
      const first = await insertKey(ctx.t, org.id, dev.id);
      const second = await insertKey(ctx.t, org.id, dev.id);
      const elsewhere = await insertKey(ctx.t, dev.id, dev.id);
      const res = await json<{ revoked_keys: { id: string }[] }>(
        await patch(ann, org.id, dev.id, { role: "billing" }),
        200,
      );
      expect(res.revoked_keys.map((k) => k.id).sort()).toEqual([first, second].sort());
      const live = await ctx.t.deps.db.select().from(apiKeys).where(eq(apiKeys.createdBy, dev.id));
      expect(live.filter((k) => k.revokedAt === null).map((k) => k.id)).toEqual([elsewhere]);
      expect((await lastAudit(org.id))?.details).toMatchObject({ from: "developer", to: "billing" });
    });
  });

  describe("what a lost role took with it", () => {
    const pendingOf = async (email: string) =>
      (
        await ctx.t.deps.db
          .select({ revokedAt: organizationInvitations.revokedAt })
          .from(organizationInvitations)
          .where(eq(organizationInvitations.email, email))
      ).map((i) => (i.revokedAt === null ? "pending" : "revoked"));

    it("revokes the invitations a member sent for roles the new one cannot give", async () => {
      const { org, ann, max } = await acme();
      // Max's second address, invited as a manager while he was one; and Ann's own invitation.
      const alt = await invite(ctx.t, org, max, "max.alt@example.com", "manager");
      await invite(ctx.t, org, max, "intern@example.com", "developer");
      await invite(ctx.t, org, ann, "payer@example.com", "billing");
      const res = await json<{ revoked_invitations: number }>(
        await patch(ann, org.id, max.id, { role: "developer" }),
        200,
      );
      expect(res.revoked_invitations).toBe(2);
      expect(await pendingOf("max.alt@example.com")).toEqual(["revoked"]);
      expect(await pendingOf("intern@example.com")).toEqual(["revoked"]);
      expect(await pendingOf("payer@example.com")).toEqual(["pending"]);
      expect((await lastAudit(org.id))?.details).toMatchObject({
        from: "manager",
        to: "developer",
        revoked_invitations: 2,
      });
      // The old role does not come back through the second address.
      const maxAlt = await verifiedUser(ctx.t, "maxalt", { email: "max.alt@example.com" });
      const accepted = await call(ctx.t, "POST", `/v1/invitations/${alt}/accept`, maxAlt.accessToken);
      expect(await json(accepted, 404)).toEqual({ detail: ORG_DETAIL.invitationNotFound });
    });

    it("keeps the invitations the new role can still give", async () => {
      const { org, ann } = await acme();
      const bob = await member(ctx.t, org, ann, "bob", "manager");
      await json(await patch(ann, org.id, bob.id, { role: "owner" }), 200);
      await invite(ctx.t, org, bob, "payer@example.com", "billing");
      await invite(ctx.t, org, bob, "helper@example.com", "manager");
      // An owner made a manager: billing is no longer theirs to give, managers still are.
      const res = await json<{ revoked_invitations: number }>(
        await patch(ann, org.id, bob.id, { role: "manager" }),
        200,
      );
      expect(res.revoked_invitations).toBe(1);
      expect(await pendingOf("payer@example.com")).toEqual(["revoked"]);
      expect(await pendingOf("helper@example.com")).toEqual(["pending"]);
      // A cap alone changes no role and revokes nothing.
      const capped = await json<{ revoked_invitations: number }>(
        await patch(ann, org.id, bob.id, { monthly_credit_cap: 5 }),
        200,
      );
      expect(capped.revoked_invitations).toBe(0);
      expect(await pendingOf("helper@example.com")).toEqual(["pending"]);
    });

    it("expires the checkouts and card pages of a member moved out of billing, and keeps their card", async () => {
      const { org, ann, bill } = await acme();
      const saved = await saveCard(ctx.t, org.id, bill.id);
      const checkout = await openedCheckout(bill, org.id);
      const setup = await openCardSetup(ctx.t, org.id, bill.id);
      await json(await patch(ann, org.id, bill.id, { role: "developer" }), 200);
      expect(await checkoutStatus(checkout)).toBe("expired");
      expect((await payAt(ctx.t, checkout)).status).not.toBe(303);
      // A card that would pay is refused for the page, not the card.
      expect(await ctx.t.local.provider.submitCard(setup.id, AUTO_TOP_UP_CARDS.pays, true)).toMatchObject({
        ok: false,
        reason: "expired",
      });
      // The card the organisation has stays: owners and billing members manage it.
      const cards = await ctx.t.deps.db.select().from(savedCards).where(eq(savedCards.orgId, org.id));
      expect(cards.map((c) => c.paymentMethodId)).toEqual([saved.paymentMethodId]);
    });

    it("expires the card page of a member moved out of billing: it replaces no card", async () => {
      const { org, ann, bill } = await acme();
      await payAndSettle(ctx.t, await openedCheckout(bill, org.id));
      const billsPage = await openCardPage(ctx.t, bill.accessToken, org.id);
      const annsPage = await openCardPage(ctx.t, ann.accessToken, org.id);
      await json(await patch(ann, org.id, bill.id, { role: "developer" }), 200);
      expect(await cardPageOpen(billsPage)).toBe(false);
      expect((await ctx.t.app.request(billsPage)).status).toBe(410);
      await refusedCard(billsPage);
      // Ann's page is hers: it still takes a card.
      expect(await cardPageOpen(annsPage)).toBe(true);
      expect((await giveCardAt(ctx.t, annsPage)).status).toBe(303);
    });

    it("takes no card on a page whose opener no longer manages billing, however the role went", async () => {
      const { org, bill } = await acme();
      await payAndSettle(ctx.t, await openedCheckout(bill, org.id));
      const page = await openCardPage(ctx.t, bill.accessToken, org.id);
      // A role written without the routes, which would have expired the page: it asks again.
      await ctx.t.deps.db
        .update(organizationMembers)
        .set({ role: "developer" })
        .where(and(eq(organizationMembers.orgId, org.id), eq(organizationMembers.userId, bill.id)));
      expect(await cardPageOpen(page)).toBe(true);
      expect((await ctx.t.app.request(page)).status).toBe(410);
      await refusedCard(page);
    });

    it("leaves the checkouts open of a member whose new role still pays", async () => {
      const { org, ann, bill } = await acme();
      const checkout = await openedCheckout(bill, org.id);
      await json(await patch(ann, org.id, bill.id, { role: "owner" }), 200);
      expect(await checkoutStatus(checkout)).toBe("open");
    });
  });

  describe("caps", () => {
    it("stores a cap in milli-credits and clears it with null", async () => {
      const { org, ann, dev } = await acme();
      const set = await json(await patch(ann, org.id, dev.id, { monthly_credit_cap: 12.345 }), 200);
      expect(set).toMatchObject({ member: { monthly_credit_cap: 12.345 } });
      expect((await roleOf(org.id, dev.id))?.cap).toBe(12_345);
      expect((await lastAudit(org.id))?.action).toBe("member.cap_change");
      await json(await patch(ann, org.id, dev.id, { monthly_credit_cap: 0 }), 200);
      expect((await roleOf(org.id, dev.id))?.cap).toBe(0);
      await json(await patch(ann, org.id, dev.id, { monthly_credit_cap: null }), 200);
      expect((await roleOf(org.id, dev.id))?.cap).toBeNull();
    });

    it("managers cap developers and managers, never themselves, billing members or owners", async () => {
      const { org, ann, max, bill, dev } = await acme();
      await json(await patch(max, org.id, dev.id, { monthly_credit_cap: 5 }), 200);
      for (const target of [max, bill, ann]) {
        expect((await patch(max, org.id, target.id, { monthly_credit_cap: 5 })).status).toBe(403);
      }
      // Owners cap anyone, themselves too.
      await json(await patch(ann, org.id, ann.id, { monthly_credit_cap: 5 }), 200);
    });

    it.each([[-1], [1.2345], ["10"], [100_000_001]])("refuses the cap %j with a 422", async (cap) => {
      const { org, ann, dev } = await acme();
      const body = await json<{ detail: { loc: string[]; msg: string }[] }>(
        await patch(ann, org.id, dev.id, { monthly_credit_cap: cap }),
        422,
      );
      expect(body.detail[0]).toMatchObject({ loc: ["body", "monthly_credit_cap"], msg: ORG_TEXT.capInvalid });
    });

    it("refuses a change that names neither a role nor a cap", async () => {
      const { org, ann, dev } = await acme();
      const body = await json<{ detail: { msg: string }[] }>(await patch(ann, org.id, dev.id, {}), 422);
      expect(body.detail[0]?.msg).toBe(ORG_TEXT.nothingToChange);
    });
  });

  it("answers 404 for a member id of nobody, of another organisation's member and a malformed one", async () => {
    const { org, ann } = await acme();
    const eve = await verifiedUser(ctx.t, "eve");
    for (const id of [randomUUID(), eve.id, "nobody"]) {
      expect(await json(await patch(ann, org.id, id, { role: "manager" }), 404)).toEqual({
        detail: ORG_TEXT.memberNotFound,
      });
      expect((await remove(ann, org.id, id)).status).toBe(404);
    }
  });

  describe("removal and leaving", () => {
    it("revokes the keys the member made there, keeps their shared keys, and revokes their invitations", async () => {
      const { org, ann, max } = await acme();
      const own = await insertKey(ctx.t, org.id, max.id);
      const shared = await insertKey(ctx.t, org.id, max.id, true);
      await invite(ctx.t, org, max, "friend@example.com", "developer");
      const res = await json<{
        revoked_keys: { id: string }[];
        shared_keys: { id: string; prefix: string }[];
        revoked_invitations: number;
      }>(await remove(ann, org.id, max.id), 200);
      expect(res.revoked_keys.map((k) => k.id)).toEqual([own]);
      expect(res.shared_keys).toEqual([expect.objectContaining({ id: shared, prefix: `gpk_${shared}` })]);
      expect(res.revoked_invitations).toBe(1);
      const [invitation] = await ctx.t.deps.db
        .select()
        .from(organizationInvitations)
        .where(eq(organizationInvitations.email, "friend@example.com"));
      expect(invitation?.revokedAt).not.toBeNull();
      // Their access ends at once.
      expect((await call(ctx.t, "GET", `/v1/orgs/${org.id}`, max.accessToken)).status).toBe(404);
      expect((await lastAudit(org.id))?.action).toBe("member.remove");
    });

    it("expires the checkouts the member opened for the organisation, and no one else's", async () => {
      const { org, ann, bill } = await acme();
      const open = async (who: Person) => (await openedCheckout(who, org.id)).split("/").pop() as string;
      const billsSession = await open(bill);
      const annsSession = await open(ann);
      // Bill's checkout of his own account stays open: he leaves Acme, not his account.
      const personal = (await openSubscriptionCheckout(ctx.t, bill.accessToken, "B")).split("/").pop();
      await json(await remove(ann, org.id, bill.id), 200);
      const statuses = Object.fromEntries(
        (
          await ctx.t.deps.db
            .select({
              id: checkoutSessions.id,
              status: checkoutSessions.status,
              openedBy: checkoutSessions.openedBy,
            })
            .from(checkoutSessions)
        ).map((s) => [s.id, `${s.status} by ${s.openedBy === bill.id ? "bill" : "ann"}`]),
      );
      expect(statuses).toEqual({
        [billsSession]: "expired by bill",
        [annsSession]: "open by ann",
        [personal as string]: "open by bill",
      });
      // His page no longer takes a payment.
      const paid = await payAt(ctx.t, `/_checkout/${billsSession}`);
      expect(paid.status).not.toBe(303);
    });

    it("expires the card pages of a member removed and of one who leaves, and no one else's", async () => {
      const { org, ann, bill } = await acme();
      const bea = await member(ctx.t, org, ann, "bea", "billing");
      await payAndSettle(ctx.t, await openedCheckout(bill, org.id));
      const billsPage = await openCardPage(ctx.t, bill.accessToken, org.id);
      const beasPage = await openCardPage(ctx.t, bea.accessToken, org.id);
      const annsPage = await openCardPage(ctx.t, ann.accessToken, org.id);
      await json(await remove(ann, org.id, bill.id), 200);
      await json(await remove(bea, org.id, bea.id), 200);
      for (const page of [billsPage, beasPage]) {
        expect(await cardPageOpen(page)).toBe(false);
        await refusedCard(page);
      }
      expect(await cardPageOpen(annsPage)).toBe(true);
      expect((await ctx.t.app.request(annsPage)).status).toBe(200);
    });

    it("keeps a member to 10 open checkouts of the organisation, counting only the open ones", async () => {
      const { org, ann, bill } = await acme();
      const open = (who: Person) => requestOrgCheckout(ctx.t, who.accessToken, org.id);
      for (let i = 0; i < MAX_OPEN_CHECKOUTS_PER_MEMBER; i++) await json(await open(bill), 200);
      expect(await json(await open(bill), 409)).toEqual({
        detail: BILLING_ERRORS.too_many_open_checkouts.message,
      });
      // Another member's count is their own, and the personal organisation has no such count.
      await json(await open(ann), 200);
      await openSubscriptionCheckout(ctx.t, bill.accessToken, "B");
      // One that lapsed (after 24 hours) no longer counts.
      const [first] = await ctx.t.deps.db
        .select({ id: checkoutSessions.id })
        .from(checkoutSessions)
        .where(eq(checkoutSessions.openedBy, bill.id))
        .limit(1);
      await ctx.t.deps.db
        .update(checkoutSessions)
        .set({ expiresAt: new Date(ctx.t.clock.now().getTime() - 1) })
        .where(eq(checkoutSessions.id, first?.id ?? ""));
      await json(await open(bill), 200);
      expect(await json(await open(bill), 409)).toMatchObject({ detail: expect.any(String) });
    });

    it("refuses a checkout to a member removed, or moved out of billing, while it waited for the lock", async () => {
      const { org, ann, bill, dev } = await acme();
      const billing = checkouts({
        db: ctx.t.deps.db,
        clock: ctx.t.clock,
        catalogue: ctx.t.catalogue,
        provider: ctx.t.local.provider,
        portalUrl: "http://localhost",
      });
      // What the request's middleware read before the removal committed.
      const asRead = { id: org.id, personal: false };
      await json(await remove(ann, org.id, bill.id), 200);
      await expect(
        billing.createTopUpCheckout(asRead, { id: bill.id }, TOP_UP("500").product),
      ).rejects.toMatchObject({
        code: "org_not_found",
      });
      await expect(billing.portalSession(asRead, { id: bill.id })).rejects.toMatchObject({
        code: "org_not_found",
      });
      // A developer has no billing ability: a role changed meanwhile refuses the same way.
      await expect(
        billing.createSubscriptionCheckout(asRead, { id: dev.id }, TIER("A").product, TIER("A").price),
      ).rejects.toMatchObject({ code: "org_role_not_allowed" });
      expect(await ctx.t.deps.db.select().from(checkoutSessions)).toEqual([]);
    });

    it("lets anyone leave but the last owner", async () => {
      const { org, ann, dev } = await acme();
      await json(await remove(dev, org.id, dev.id), 200);
      expect((await lastAudit(org.id))?.action).toBe("member.leave");
      expect(await json(await remove(ann, org.id, ann.id), 409)).toEqual({ detail: ORG_DETAIL.lastOwner });
      const personal = await remove(ann, ann.id, ann.id);
      expect(await json(personal, 409)).toEqual({ detail: ORG_DETAIL.personalHasNoMembers });
    });

    it("managers remove developers, billing members and other managers, never owners", async () => {
      const { org, ann, max, bill, dev } = await acme();
      const mia = await member(ctx.t, org, ann, "mia", "manager");
      for (const target of [dev, bill, mia]) await json(await remove(max, org.id, target.id), 200);
      expect(await json(await remove(max, org.id, ann.id), 403)).toEqual({ detail: ORG_DETAIL.notAllowed });
    });

    it("developers and billing members remove nobody but themselves", async () => {
      const { org, max, bill, dev, deb } = await acme();
      for (const [who, target] of [
        [dev, deb],
        [bill, dev],
        [dev, max],
      ] as const) {
        expect((await remove(who, org.id, target.id)).status).toBe(403);
      }
    });

    it("an owner removes another owner, never the last one", async () => {
      const { org, ann, max } = await acme();
      await json(await patch(ann, org.id, max.id, { role: "owner" }), 200);
      await json(await remove(max, org.id, ann.id), 200);
      expect(await json(await remove(max, org.id, max.id), 409)).toEqual({ detail: ORG_DETAIL.lastOwner });
    });
  });
});
