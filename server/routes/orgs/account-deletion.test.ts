// DELETE /v1/users/me and organisations (ORGANISATIONS.md, "Account deletion"): refused while the
// account is the last owner of a team with others; a team it is alone in goes with it; from the
// others it leaves, the keys it made there revoked.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import {
  apiKeys,
  auditLog,
  checkoutSessions,
  organizationMembers,
  organizations,
} from "../../db/schema/index.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { requestOrgCheckout } from "../../testing/billing.ts";
import { call, createTeam, insertKey, json, member, type Person } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("account deletion and organisations (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const deleteAccount = (who: Person) =>
    call(ctx.t, "DELETE", "/v1/users/me", who.accessToken, { confirm: who.username });

  it("is refused while the account is the last owner of a team with other members, naming it", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann, "Acme");
    await member(ctx.t, acme, ann, "dev", "developer");
    await createTeam(ctx.t, ann, "Solo");
    expect(await json(await deleteAccount(ann), 409)).toEqual({
      detail: ORG_DETAIL.transferFirst,
      organizations: [{ id: acme.id, name: "Acme" }],
    });
    // Nothing happened: the account and both teams are there.
    expect(await json(await call(ctx.t, "GET", "/v1/orgs", ann.accessToken), 200)).toMatchObject({
      data: [{ personal: true }, { name: "Acme" }, { name: "Solo" }],
    });
  });

  it("deletes the teams the account is alone in and leaves the others, revoking its keys there", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann, "Acme");
    const dev = await member(ctx.t, acme, ann, "dev", "manager");
    const solo = await createTeam(ctx.t, dev, "Dev's own");
    const inAcme = await insertKey(ctx.t, acme.id, dev.id);
    const shared = await insertKey(ctx.t, acme.id, dev.id, true);
    const inSolo = await insertKey(ctx.t, solo.id, dev.id);

    expect(await json(await deleteAccount(dev), 200)).toEqual({ detail: DETAIL.accountDeleted });

    const db = ctx.t.deps.db;
    const [soloRow] = await db.select().from(organizations).where(eq(organizations.id, solo.id));
    expect(soloRow?.deletedAt).not.toBeNull();
    const keys = await db.select().from(apiKeys).where(eq(apiKeys.createdBy, dev.id));
    expect(Object.fromEntries(keys.map((k) => [k.id, k.revokedAt !== null]))).toEqual({
      [inAcme]: true,
      [shared]: false,
      [inSolo]: true,
    });
    const stillMember = await db
      .select()
      .from(organizationMembers)
      .where(and(eq(organizationMembers.orgId, acme.id), eq(organizationMembers.userId, dev.id)));
    expect(stillMember).toEqual([]);
    const left = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subjectOrgId, acme.id), eq(auditLog.action, "member.leave")));
    expect(left[0]?.details).toMatchObject({
      revoked_keys: [inAcme],
      shared_keys: [shared],
      account_deleted: true,
    });
    const members = await json<{ data: { username: string }[] }>(
      await call(ctx.t, "GET", `/v1/orgs/${acme.id}/members`, ann.accessToken),
      200,
    );
    expect(members.data.map((m) => m.username)).toEqual(["ann"]);
    // Acme's owner learns which of its keys stopped; nobody is mailed about the team that went.
    const mail = (await ctx.t.mails()).find(
      (m) => m.to === "ann@example.com" && m.subject.includes("left Acme"),
    );
    expect(mail?.subject).toBe("dev left Acme: 1 API key revoked");
    expect(mail?.text).toContain(`(gpk_${inAcme}…)`);
    expect(mail?.text).not.toContain(shared);
  });

  it("expires the checkouts the account opened for a team it leaves", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann, "Acme");
    const bill = await member(ctx.t, acme, ann, "bill", "billing");
    expect((await requestOrgCheckout(ctx.t, bill.accessToken, acme.id)).status).toBe(200);
    expect(await json(await deleteAccount(bill), 200)).toEqual({ detail: DETAIL.accountDeleted });
    const sessions = await ctx.t.deps.db
      .select({ status: checkoutSessions.status })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.userId, acme.id));
    expect(sessions).toEqual([{ status: "expired" }]);
  });

  it("goes ahead once another member owns the team", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const acme = await createTeam(ctx.t, ann, "Acme");
    const bob = await member(ctx.t, acme, ann, "bob", "developer");
    await json(
      await call(ctx.t, "POST", `/v1/orgs/${acme.id}/transfer-ownership`, ann.accessToken, {
        user_id: bob.id,
      }),
      200,
    );
    await json(await deleteAccount(ann), 200);
    expect(await json(await call(ctx.t, "GET", `/v1/orgs/${acme.id}`, bob.accessToken), 200)).toMatchObject({
      role: "owner",
      member_count: 1,
    });
  });
});
