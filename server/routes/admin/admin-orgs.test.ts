// The console's organisation calls through the API (ORGANISATIONS.md, "The operator console"):
// the search, the organisation "as for a customer", the actions with their roles, reasons and
// idempotency keys, each audited with subject_org_id, and staff refused on their own organisations.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ADMIN_TEXT, type CustomerRow } from "../../../contract/admin.ts";
import { ADMIN_ORG_TEXT, type AdminOrg, type AdminOrgRow } from "../../../contract/admin-orgs.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { verifyAuditChain } from "../../audit/audit-log.ts";
import {
  auditLog,
  billingCustomers,
  invoices,
  organizationMembers,
  organizations,
} from "../../db/schema/index.ts";
import { adminCall, adminGet, staffMember } from "../../testing/admin.ts";
import { createKey } from "../../testing/api-access.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { orgKey, recordCharge, teamOrg } from "../../testing/team-org.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

const REASON = "Customer asked by phone";

describe.each(TEST_DATABASES)("the console's organisations (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /** Acme: ann (owner), bob (developer); a key of bob's; staff sue (support) and ada (admin). */
  async function acme() {
    ctx.t.clock.set("2026-11-20T10:00:00Z");
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const org = await teamOrg(ctx.t, "Acme Studio", [
      { id: ann.id, role: "owner" },
      { id: bob.id, role: "developer" },
    ]);
    const key = await orgKey(ctx.t, bob.accessToken, bob.id, org, { name: "Bob's worker" });
    const sue = await staffMember(ctx.t, "sue", "support");
    const ada = await staffMember(ctx.t, "ada", "admin");
    return { ann, bob, org, key, sue, ada };
  }

  const act = (token: string, path: string, body: Record<string, unknown> = {}) =>
    adminCall(ctx.t, `/v1/admin/orgs/${path}`, token, { reason: REASON, ...body });

  async function orgAudit(orgId: string) {
    return ctx.t.deps.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.subjectOrgId, orgId))
      .orderBy(auditLog.seq);
  }

  it("finds an organisation by name prefix, id, key prefix and customer id, with owners, plan and members", async () => {
    const { ann, org, key, sue } = await acme();
    await ctx.t.deps.db.insert(billingCustomers).values({ userId: org, customerId: "cus_acme1" });
    const expected: AdminOrgRow = {
      id: org,
      name: "Acme Studio",
      personal: false,
      owners: [{ id: ann.id, username: "ann" }],
      plan: "FREE",
      credit_balance: 0,
      member_count: 2,
      deleted: false,
    };
    for (const q of ["acme", "ACME st", org.toUpperCase(), key.prefix.slice(0, 8), "cus_acme1"]) {
      const found = await adminGet<{ data: AdminOrgRow[] }>(
        ctx.t,
        `/v1/admin/orgs?q=${encodeURIComponent(q)}`,
        sue.accessToken,
      );
      expect(found.data, q).toEqual([expected]);
    }
    expect(
      (await adminGet<{ data: AdminOrgRow[] }>(ctx.t, "/v1/admin/orgs?q=acme_", sue.accessToken)).data,
    ).toEqual([]);
    // A personal organisation is found by its id, with its user as owner and the free credits.
    const personal = await adminGet<{ data: AdminOrgRow[] }>(
      ctx.t,
      `/v1/admin/orgs?q=${ann.id}`,
      sue.accessToken,
    );
    expect(personal.data).toEqual([
      { ...expected, id: ann.id, name: null, personal: true, member_count: 1, credit_balance: 50 },
    ]);
  });

  it("the customer search finds the member who made an organisation's key, and names its organisation", async () => {
    const { bob, org, key, sue } = await acme();
    // bob's own key: found as before, with no organisation's key beside him.
    const own = await createKey(ctx.t, bob.accessToken, { name: "Laptop" });
    const search = (q: string) =>
      adminGet<{ data: CustomerRow[] }>(
        ctx.t,
        `/v1/admin/customers?q=${encodeURIComponent(q)}`,
        sue.accessToken,
      );
    const orgKeys = [{ prefix: key.prefix, org_id: org, org_name: "Acme Studio" }];
    // As customers quote a key: whole, its prefix, its start with an ellipsis.
    for (const q of [key.key, key.prefix, `${key.prefix.slice(0, 10)}…`, key.prefix.slice(0, 8)]) {
      const found = await search(q);
      expect(
        found.data.map((r) => ({ id: r.id, org_keys: r.org_keys })),
        q,
      ).toEqual([{ id: bob.id, org_keys: orgKeys }]);
    }
    expect((await search(own.prefix)).data.map((r) => ({ id: r.id, org_keys: r.org_keys }))).toEqual([
      { id: bob.id, org_keys: [] },
    ]);
    // Staff see the prefix only: never the key nor its secret part.
    const body = JSON.stringify(await search(key.key));
    expect(body).not.toContain(key.key);
    // Not a key search: no org_keys at all.
    expect((await search("bob")).data[0]).not.toHaveProperty("org_keys");
    expect((await search("gpk_nothing")).data).toEqual([]);
  });

  it("shows an organisation, its members, usage by member and its customers' organisations", async () => {
    const { ann, bob, org, key, sue } = await acme();
    await recordCharge(ctx.t, {
      orgId: org,
      keyId: key.id,
      at: "2026-11-20T11:00:00Z",
      feature: "comic",
      credits: 5000,
    });
    const view = await adminGet<AdminOrg>(ctx.t, `/v1/admin/orgs/${org}`, sue.accessToken);
    expect(view).toMatchObject({
      id: org,
      name: "Acme Studio",
      personal: false,
      disabled_at: null,
      dispute_hold_at: null,
      deleted_at: null,
      member_count: 2,
      owners: [{ id: ann.id, username: "ann" }],
      subscription: { plan: "FREE" },
      credit_balance: 0,
    });
    expect(view.api_keys).toEqual([
      expect.objectContaining({ id: key.id, name: "Bob's worker", created_by: bob.id, shared: false }),
    ]);

    const members = await adminGet<{ data: unknown[] }>(
      ctx.t,
      `/v1/admin/orgs/${org}/members`,
      sue.accessToken,
    );
    expect(members.data).toEqual([
      expect.objectContaining({
        user_id: ann.id,
        username: "ann",
        email: ann.email,
        role: "owner",
        monthly_credit_cap: null,
      }),
      expect.objectContaining({
        user_id: bob.id,
        username: "bob",
        email: bob.email,
        role: "developer",
        spent_this_month: 0,
      }),
    ]);

    const usage = await adminGet<{ data: unknown[] }>(
      ctx.t,
      `/v1/admin/orgs/${org}/usage?from=2026-11-01&to=2026-11-30&group_by=member`,
      sue.accessToken,
    );
    expect(usage.data).toEqual([
      { member_group: "member", member_id: bob.id, member_username: "bob", uses: 1, credits: 5 },
    ]);
    const ledger = await adminGet<{ data: unknown[] }>(
      ctx.t,
      `/v1/admin/orgs/${org}/ledger`,
      sue.accessToken,
    );
    expect(ledger.data).toEqual([
      expect.objectContaining({ kind: "spend", credits: -5, description: "comic" }),
    ]);
    expect(await adminGet(ctx.t, `/v1/admin/orgs/${org}/payments`, sue.accessToken)).toEqual({ data: [] });

    const orgs = await adminGet<{ data: unknown[] }>(
      ctx.t,
      `/v1/admin/customers/${bob.id}/organizations`,
      sue.accessToken,
    );
    expect(orgs.data).toEqual([
      { id: bob.id, name: null, personal: true, role: "owner", deleted: false },
      { id: org, name: "Acme Studio", personal: false, role: "developer", deleted: false },
    ]);

    for (const path of ["", "/members", "/ledger", "/payments", "/usage", "/audit"]) {
      const missing = await getJson(
        ctx.t.app,
        `/v1/admin/orgs/0b7c2d7e-93c1-4c43-9b59-9d3c3c1d2e4f${path}`,
        sue.accessToken,
      );
      expect(missing.status, path).toBe(404);
      expect(await missing.json()).toEqual({ detail: ORG_DETAIL.notFound });
    }
    const stranger = await getJson(ctx.t.app, `/v1/admin/orgs/${org}`, ann.accessToken);
    expect(stranger.status).toBe(403);
  });

  it("a key used on the customer page and again on their personal organisation's page grants once", async () => {
    const { ann, sue } = await acme();
    const body = { amount: 20, idempotency_key: "both-pages-1" };
    const asCustomer = await adminCall(ctx.t, `/v1/admin/customers/${ann.id}/credits`, sue.accessToken, {
      reason: REASON,
      ...body,
    });
    expect(asCustomer.status, await asCustomer.clone().text()).toBe(201);
    const asOrg = await act(sue.accessToken, `${ann.id}/credits`, body);
    expect(await asOrg.json()).toMatchObject({ replayed: true });
    const grants = await ctx.t.deps.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "credits.grant"), eq(auditLog.subjectUserId, ann.id)));
    expect(grants).toHaveLength(1);
  });

  it("support grants an organisation credits once per key; the entry names the organisation", async () => {
    const { ann, org, sue } = await acme();
    const body = { amount: 100, idempotency_key: "org-grant-1" };
    const first = await act(sue.accessToken, `${org}/credits`, body);
    expect(first.status, await first.clone().text()).toBe(201);
    const answer = (await first.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({ kind: "grant", credits: 100, balance_after: 100, replayed: false });
    const again = await act(sue.accessToken, `${org}/credits`, body);
    expect(await again.json()).toMatchObject({
      replayed: true,
      audit_id: answer.audit_id,
      balance_after: 100,
    });
    expect((await act(sue.accessToken, `${org}/credits`, { ...body, amount: 90 })).status).toBe(409);
    // The grant's mail goes to the organisation's owners, once, and names the organisation.
    await ctx.t.tasks.idle();
    const mails = (await ctx.t.mails()).filter((m) => m.subject.includes("credits for"));
    expect(mails.map((m) => [m.to, m.subject])).toEqual([
      [ann.email, "100 credits for Acme Studio from GenAI Studio support"],
    ]);
    expect(mails[0]?.text).toContain("added 100 credits to the organisation Acme Studio");

    // Support may not take back; an admin may, within the unspent credits.
    const takeBack = await act(sue.accessToken, `${org}/credits`, { amount: -10, idempotency_key: "tb-1" });
    expect(takeBack.status).toBe(403);
    expect(await takeBack.json()).toEqual({ detail: ADMIN_TEXT.adminOnly });

    const view = await adminGet<AdminOrg>(ctx.t, `/v1/admin/orgs/${org}`, sue.accessToken);
    expect(view.credit_balance).toBe(100);
    const rows = await orgAudit(org);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: "credits.grant",
      actorLabel: "sue",
      subjectOrgId: org,
      subjectUserId: null,
      reason: REASON,
      details: expect.objectContaining({ credits: 100, idempotency_key: "org-grant-1" }),
    });
    const audit = await adminGet<{ data: { action: string }[] }>(
      ctx.t,
      `/v1/admin/orgs/${org}/audit`,
      sue.accessToken,
    );
    expect(audit.data.map((e) => e.action)).toEqual(["credits.grant"]);
    expect(await verifyAuditChain(ctx.t.deps.db)).toMatchObject({ ok: true });
  });

  it("an admin disables and enables an organisation, and clears its dispute hold", async () => {
    const { org, sue, ada } = await acme();
    const refused = await act(sue.accessToken, `${org}/disable`);
    expect(refused.status).toBe(403);
    expect((await act(ada.accessToken, `${org}/disable`)).status).toBe(200);
    const [disabled] = await ctx.t.deps.db.select().from(organizations).where(eq(organizations.id, org));
    expect(disabled?.disabledAt).toEqual(ctx.t.clock.now());
    const twice = await act(ada.accessToken, `${org}/disable`);
    expect(twice.status).toBe(409);
    expect(await twice.json()).toEqual({ detail: ADMIN_ORG_TEXT.alreadyDisabled });
    expect((await act(ada.accessToken, `${org}/enable`)).status).toBe(200);
    expect((await act(ada.accessToken, `${org}/enable`)).status).toBe(409);

    const noHold = await act(ada.accessToken, `${org}/dispute-hold/clear`);
    expect(noHold.status).toBe(409);
    expect(await noHold.json()).toEqual({ detail: ADMIN_ORG_TEXT.noDisputeHold });
    await ctx.t.deps.db
      .update(organizations)
      .set({ disputeHoldAt: ctx.t.clock.now() })
      .where(eq(organizations.id, org));
    expect((await act(ada.accessToken, `${org}/dispute-hold/clear`)).status).toBe(200);
    const [cleared] = await ctx.t.deps.db.select().from(organizations).where(eq(organizations.id, org));
    expect(cleared?.disputeHoldAt).toBeNull();
    expect((await orgAudit(org)).map((r) => r.action)).toEqual([
      "org.disable",
      "org.enable",
      "dispute_hold.clear",
    ]);
  });

  it("an admin makes a member an owner, never themselves, a stranger or an owner again", async () => {
    const { ann, bob, org, sue, ada } = await acme();
    expect((await act(sue.accessToken, `${org}/owner`, { user_id: bob.id })).status).toBe(403);
    const made = await act(ada.accessToken, `${org}/owner`, { user_id: bob.id.toUpperCase() });
    expect(made.status, await made.clone().text()).toBe(200);
    const members = await ctx.t.deps.db
      .select({ userId: organizationMembers.userId, role: organizationMembers.role })
      .from(organizationMembers)
      .where(eq(organizationMembers.orgId, org));
    expect(members.find((m) => m.userId === bob.id)?.role).toBe("owner");
    const [entry] = await orgAudit(org);
    expect(entry).toMatchObject({
      action: "member.role_change",
      subjectUserId: bob.id,
      subjectOrgId: org,
      details: expect.objectContaining({ from: "developer", to: "owner", by_staff: true }),
    });

    for (const [userId, status, detail] of [
      [bob.id, 409, ADMIN_ORG_TEXT.alreadyOwner],
      [ada.id, 403, ADMIN_ORG_TEXT.notSelfOwner],
      [sue.id, 404, ADMIN_ORG_TEXT.memberNotFound],
    ] as const) {
      const res = await act(ada.accessToken, `${org}/owner`, { user_id: userId });
      expect(res.status, detail).toBe(status);
      expect(await res.json()).toEqual({ detail });
    }
    const personal = await act(ada.accessToken, `${ann.id}/owner`, { user_id: bob.id });
    expect(personal.status).toBe(409);
    expect(await personal.json()).toEqual({ detail: ORG_DETAIL.personalHasNoMembers });
  });

  it("makes nobody the owner of a 21st organisation", async () => {
    const { bob, org, ada } = await acme();
    for (let i = 1; i <= 20; i++) await teamOrg(ctx.t, `Bob ${i}`, [{ id: bob.id, role: "owner" }]);
    const res = await act(ada.accessToken, `${org}/owner`, { user_id: bob.id });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: ORG_DETAIL.memberOwnerLimit(ADMIN_ORG_TEXT.thisMember) });
    const [row] = await ctx.t.deps.db
      .select({ role: organizationMembers.role })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.orgId, org), eq(organizationMembers.userId, bob.id)));
    expect(row?.role).toBe("developer");
    expect(await orgAudit(org)).toEqual([]);
  });

  it("refuses staff acting on an organisation they are a member of, or a deleted one", async () => {
    const { org, sue, ada } = await acme();
    await ctx.t.deps.db
      .insert(organizationMembers)
      .values({ orgId: org, userId: ada.id, role: "developer", joinedAt: ctx.t.clock.now() });
    for (const [path, body] of [
      ["credits", { amount: 5, idempotency_key: "own-1" }],
      ["disable", {}],
      ["subscription/cancel", { at: "now" }],
      ["owner", { user_id: ada.id }],
    ] as const) {
      const res = await act(ada.accessToken, `${org}/${path}`, body);
      expect(res.status, path).toBe(403);
      expect(await res.json()).toEqual({ detail: ADMIN_ORG_TEXT.notOwnOrganisation });
    }
    // Nor refund the organisation's payments.
    const invoiceId = "5d0b6b7e-1c2d-4e3f-8a9b-0c1d2e3f4a5b";
    const party = { name: "Acme Studio", country: "DE", vatId: null };
    await ctx.t.deps.db.insert(invoices).values({
      id: invoiceId,
      userId: org,
      fulfilmentKey: "topup:acme-1",
      provider: "local",
      kind: "topup",
      status: "paid",
      issuedAt: ctx.t.clock.now(),
      description: "1,000 credits",
      currency: "eur",
      net: 1000,
      tax: 190,
      total: 1190,
      seller: party,
      buyer: party,
      createdAt: ctx.t.clock.now(),
      updatedAt: ctx.t.clock.now(),
    } as typeof invoices.$inferInsert);
    const refund = await adminCall(ctx.t, `/v1/admin/payments/${invoiceId}/refund`, ada.accessToken, {
      reason: REASON,
      idempotency_key: "refund-own-1",
    });
    expect(refund.status).toBe(403);
    expect(await refund.json()).toEqual({ detail: ADMIN_ORG_TEXT.notOwnOrganisation });
    // Their own personal organisation too.
    const own = await act(sue.accessToken, `${sue.id}/credits`, { amount: 5, idempotency_key: "own-2" });
    expect(own.status).toBe(403);

    await ctx.t.deps.db
      .update(organizations)
      .set({ deletedAt: ctx.t.clock.now() })
      .where(eq(organizations.id, org));
    const deleted = await act(sue.accessToken, `${org}/credits`, { amount: 5, idempotency_key: "del-1" });
    expect(deleted.status).toBe(409);
    expect(await deleted.json()).toEqual({ detail: ADMIN_ORG_TEXT.orgDeleted });
    expect(await orgAudit(org)).toEqual([]);
    // Still found and shown, marked deleted.
    const found = await adminGet<{ data: AdminOrgRow[] }>(ctx.t, "/v1/admin/orgs?q=acme", sue.accessToken);
    expect(found.data[0]?.deleted).toBe(true);
  });
});
