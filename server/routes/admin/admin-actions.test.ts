// The console's actions through the API, on PGlite and PostgreSQL: each one's effect and its audit
// entry together, a refusal leaving neither, and what a disabled account can no longer do.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ADMIN_TEXT, type Customer, type VatReportView } from "../../../contract/admin.ts";
import { TIERS } from "../../../contract/catalogue.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { verifyAuditChain } from "../../audit/audit-log.ts";
import { auditLog, billingCustomers, users } from "../../db/schema/index.ts";
import { vatOf } from "../../domain/vat.ts";
import { quarterOf } from "../../domain/vat-report.ts";
import {
  adminCall,
  adminGet,
  auditRowsAbout,
  auditRowsWithoutSignIns,
  customerPayments,
  staffMember,
} from "../../testing/admin.ts";
import { consumeRequest, createKey, introspect, serviceKey } from "../../testing/api-access.ts";
import { getJson, latestMailTo, login, register, verifiedUser } from "../../testing/api-client.ts";
import {
  advanceDays,
  GERMAN_CONSUMER,
  me,
  openSubscriptionCheckout,
  openTopUpCheckout,
  payAndSettle,
  subscribe,
  type TestBuyer,
  tokenFor,
} from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";
import { turnOnTwoFactor } from "../../testing/two-factor.ts";

const REASON = "Outage on 24 November";

describe.each(TEST_DATABASES)("operator actions (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  const credits = (token: string, customerId: string, body: Record<string, unknown>) =>
    adminCall(ctx.t, `/v1/admin/customers/${customerId}/credits`, token, {
      reason: REASON,
      idempotency_key: `k-${Math.random()}`,
      ...body,
    });

  it("support grants goodwill credits within its limit, once per idempotency key", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const sue = await staffMember(ctx.t, "sue", "support");
    const body = { amount: 100, reason: REASON, idempotency_key: "grant-1" };
    const first = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/credits`, sue.accessToken, body);
    expect(first.status).toBe(201);
    const answer = (await first.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({ kind: "grant", credits: 100, balance_after: 150, replayed: false });

    const again = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/credits`, sue.accessToken, body);
    expect(again.status).toBe(201);
    expect(await again.json()).toMatchObject({
      credits: 100,
      balance_after: 150,
      replayed: true,
      audit_id: answer.audit_id,
    });
    expect((await me(ctx.t, cora.accessToken)).credit_balance).toBe(150);

    const other = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/credits`, sue.accessToken, {
      ...body,
      amount: 90,
    });
    expect(other.status).toBe(409);

    const rows = await auditRowsAbout(ctx.t, cora.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actorId: sue.id,
      actorLabel: "sue",
      action: "credits.grant",
      reason: REASON,
      details: expect.objectContaining({ credits: 100, idempotency_key: "grant-1", balance_after: 150 }),
    });
  });

  it("refuses support over SUPPORT_GRANT_LIMIT and any take-back, leaving no entry and no credits", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const sue = await staffMember(ctx.t, "sue", "support");
    const over = await credits(sue.accessToken, cora.id, { amount: 501 });
    expect(over.status).toBe(403);
    expect(await over.json()).toEqual({ detail: ADMIN_TEXT.overGrantLimit(500), limit: 500 });
    const takeBack = await credits(sue.accessToken, cora.id, { amount: -10 });
    expect(takeBack.status).toBe(403);
    expect(await takeBack.json()).toEqual({ detail: ADMIN_TEXT.adminOnly });
    expect(await auditRowsAbout(ctx.t, cora.id)).toEqual([]);
    expect((await me(ctx.t, cora.accessToken)).credit_balance).toBe(50);
  });

  it("lets an admin take back unspent credits only, never below zero", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const tooMuch = await credits(ada.accessToken, cora.id, { amount: -50.5 });
    expect(tooMuch.status).toBe(409);
    expect(await tooMuch.json()).toEqual({ detail: ADMIN_TEXT.takeBackTooMuch(50), available: 50 });
    expect(await auditRowsAbout(ctx.t, cora.id)).toEqual([]);

    ctx.t.clock.advance(1000);
    const ok = await credits(ada.accessToken, cora.id, { amount: -20.25 });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({
      kind: "operator_take_back",
      credits: -20.25,
      balance_after: 29.75,
    });
    expect((await me(ctx.t, cora.accessToken)).credit_balance).toBe(29.75);
    const ledger = await adminGet<{ data: Array<Record<string, unknown>> }>(
      ctx.t,
      `/v1/admin/customers/${cora.id}/ledger`,
      ada.accessToken,
    );
    expect(ledger.data.map((l) => [l.kind, l.credits])).toEqual([
      ["operator_take_back", -20.25],
      ["grant", 50],
    ]);
  });

  it("validates the reason, the amount and the expiry", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    // Each refusal names its field in `loc`, so the console's dialog says it beside that field.
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ amount: 10, reason: "  " }, "reason", ADMIN_TEXT.reasonRequired],
      [{ amount: 10, reason: "ok" }, "reason", ADMIN_TEXT.reasonTooShort],
      [{ amount: 10, reason: "x".repeat(501) }, "reason", ADMIN_TEXT.reasonTooLong],
      [{ amount: 0 }, "amount", ADMIN_TEXT.amountInvalid],
      [{ amount: 1.0001 }, "amount", ADMIN_TEXT.amountInvalid],
      [{ amount: -1.0001 }, "amount", ADMIN_TEXT.amountInvalid],
      [{ amount: 2_000_000 }, "amount", ADMIN_TEXT.amountTooLarge],
      [{ amount: -2_000_000 }, "amount", ADMIN_TEXT.amountTooLarge],
      [{ amount: "-10" }, "amount", ADMIN_TEXT.amountRequired],
      [{ amount: 10, expires_at: "31.12.2099" }, "expires_at", ""],
    ];
    for (const [body, field, message] of cases) {
      const res = await credits(ada.accessToken, cora.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const { detail } = (await res.json()) as { detail: Array<{ loc: unknown[]; msg: string }> };
      expect(detail[0], JSON.stringify(body)).toMatchObject({ loc: ["body", field] });
      expect(detail[0]?.msg, JSON.stringify(body)).toContain(message);
    }
    const past = await credits(ada.accessToken, cora.id, { amount: 10, expires_at: "2000-01-01T00:00:00Z" });
    expect(past.status).toBe(422);
    expect(await auditRowsAbout(ctx.t, cora.id)).toEqual([]);
  });

  it("refuses staff acting on their own account and an unknown customer", async () => {
    const ada = await staffMember(ctx.t, "ada", "admin");
    const own = await credits(ada.accessToken, ada.id, { amount: 10 });
    expect(own.status).toBe(403);
    expect(await own.json()).toEqual({ detail: ADMIN_TEXT.notOwnAccount });
    const unknown = await credits(ada.accessToken, "00000000-0000-4000-8000-000000000000", { amount: 10 });
    expect(unknown.status).toBe(404);
    expect(await auditRowsWithoutSignIns(ctx.t)).toHaveLength(0);
  });

  it("disables an account: login, tokens, API keys and charges are refused; enabling restores them", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const key = await createKey(ctx.t, cora.accessToken);
    const service = await serviceKey(ctx.t);
    const path = `/v1/admin/customers/${cora.id}`;

    expect((await adminCall(ctx.t, `${path}/disable`, ada.accessToken, { reason: REASON })).status).toBe(200);
    const again = await adminCall(ctx.t, `${path}/disable`, ada.accessToken, { reason: REASON });
    expect(again.status).toBe(409);

    const loginRes = await login(ctx.t, "cora");
    expect(loginRes.status).toBe(403);
    expect(await loginRes.json()).toEqual({ detail: DETAIL.accountDisabled });
    const meRes = await getJson(ctx.t.app, "/v1/users/me", cora.accessToken);
    expect(meRes.status).toBe(403);
    expect(await meRes.json()).toEqual({ detail: DETAIL.accountDisabled });
    expect(await introspect(ctx.t, service, key.key)).toEqual({ active: false });
    expect(await introspect(ctx.t, service, cora.accessToken)).toEqual({ active: false });
    const charge = await consumeRequest(ctx.t, service, {
      api_key_id: key.id,
      feature: "comic",
      people: "one",
      quantity: 1,
      idempotency_key: "job-1",
    });
    expect(charge.status).toBe(404);
    const direct = await consumeRequest(ctx.t, service, {
      user_id: cora.id,
      feature: "comic",
      people: "one",
      quantity: 1,
      idempotency_key: "job-2",
    });
    expect(direct.status).toBe(403);
    expect(await direct.json()).toEqual({ detail: DETAIL.accountDisabled });
    const shown = await adminGet(ctx.t, path, ada.accessToken);
    expect(shown.disabled_at).toBe(ctx.t.clock.now().toISOString());

    expect(
      (await adminCall(ctx.t, `${path}/enable`, ada.accessToken, { reason: "Owner confirmed" })).status,
    ).toBe(200);
    expect((await introspect(ctx.t, service, key.key)).active).toBe(true);
    expect((await getJson(ctx.t.app, "/v1/users/me", cora.accessToken)).status).toBe(200);
    expect((await login(ctx.t, "cora")).status).toBe(200);
    expect((await auditRowsAbout(ctx.t, cora.id)).map((r) => r.action)).toEqual([
      "account.disable",
      "account.enable",
    ]);
  });

  it("changes a role, never one's own, and keeps the last admin", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const role = (id: string, body: Record<string, unknown>) =>
      adminCall(ctx.t, `/v1/admin/customers/${id}/role`, ada.accessToken, { reason: REASON, ...body });
    // No staff role without a second factor: whoever had only the password would enrol their own.
    const early = await role(cora.id, { role: "support" });
    expect(early.status).toBe(409);
    expect(await early.json()).toEqual({ detail: ADMIN_TEXT.staffNeedsSecondFactor });
    const coraToken = (await turnOnTwoFactor(ctx.t, cora.accessToken)).accessToken;
    expect((await role(cora.id, { role: "support" })).status).toBe(200);
    expect((await role(cora.id, { role: "support" })).status).toBe(409);
    expect((await role(ada.id, { role: "user" })).status).toBe(403);
    expect((await role(cora.id, { role: "owner" })).status).toBe(422);
    const [row] = await ctx.t.deps.db.select().from(users).where(eq(users.id, cora.id));
    expect(row?.role).toBe("support");
    // With cora promoted to admin, she may demote ada; then ada is not an admin and cora is the last.
    expect((await role(cora.id, { role: "admin" })).status).toBe(200);
    expect(
      (
        await adminCall(ctx.t, `/v1/admin/customers/${ada.id}/role`, coraToken, {
          role: "user",
          reason: REASON,
        })
      ).status,
    ).toBe(200);
    const last = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/role`, coraToken, {
      role: "user",
      reason: REASON,
    });
    expect(last.status).toBe(403); // her own account first of all
    expect((await auditRowsAbout(ctx.t, cora.id)).map((r) => r.details)).toEqual([
      { from: "user", to: "support" },
      { from: "support", to: "admin" },
    ]);
  });

  it("keeps the last admin when two admins demote each other at once", async () => {
    const ada = await staffMember(ctx.t, "ada", "admin");
    const bob = await staffMember(ctx.t, "bob", "admin");
    const demote = (token: string, id: string) =>
      adminCall(ctx.t, `/v1/admin/customers/${id}/role`, token, { role: "user", reason: REASON });
    const answers = await Promise.all([demote(ada.accessToken, bob.id), demote(bob.accessToken, ada.id)]);
    // The loser is refused either by the lock (409: it would leave no admin) or, when its request
    // starts after the winner's commit, by its own role, which is then user (403).
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const refused = answers.find((r) => r.status !== 200) as Response;
    const { detail } = (await refused.json()) as { detail: string };
    expect([ADMIN_TEXT.lastAdmin, ADMIN_TEXT.staffOnly]).toContain(detail);
    const admins = await ctx.t.deps.db.select().from(users).where(eq(users.role, "admin"));
    expect(admins).toHaveLength(1);
    expect((await auditRowsWithoutSignIns(ctx.t)).map((r) => r.action)).toEqual(["role.change"]);
  });

  it("sends the verification or reset mail, and refuses a verification mail once verified", async () => {
    const sue = await staffMember(ctx.t, "sue", "support");
    const unverified = await register(ctx.t, "newbie");
    const path = `/v1/admin/customers/${unverified.id}/emails`;
    const sent = await adminCall(ctx.t, path, sue.accessToken, { kind: "verification", reason: REASON });
    expect(sent.status).toBe(200);
    await ctx.t.tasks.idle();
    expect((await latestMailTo(ctx.t, unverified.email)).link).toContain("/verify-email/");
    const reset = await adminCall(ctx.t, path, sue.accessToken, { kind: "password_reset", reason: REASON });
    expect(reset.status).toBe(200);
    await ctx.t.tasks.idle();
    expect((await latestMailTo(ctx.t, unverified.email)).link).toContain("/reset-password/");

    const cora = await verifiedUser(ctx.t, "cora");
    const refused = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/emails`, sue.accessToken, {
      kind: "verification",
      reason: REASON,
    });
    expect(refused.status).toBe(409);
    expect((await auditRowsAbout(ctx.t, unverified.id)).map((r) => r.details)).toEqual([
      { kind: "verification", to: unverified.email },
      { kind: "password_reset", to: unverified.email },
    ]);
  });

  it("revokes a customer's key: it introspects inactive at once", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const sue = await staffMember(ctx.t, "sue", "support");
    const key = await createKey(ctx.t, cora.accessToken);
    const service = await serviceKey(ctx.t);
    const res = await adminCall(
      ctx.t,
      `/v1/admin/api-keys/${key.id}`,
      sue.accessToken,
      { reason: REASON },
      "DELETE",
    );
    expect(res.status).toBe(200);
    expect(await introspect(ctx.t, service, key.key)).toEqual({ active: false });
    expect(
      (await adminCall(ctx.t, `/v1/admin/api-keys/${key.id}`, sue.accessToken, { reason: REASON }, "DELETE"))
        .status,
    ).toBe(409);
    expect(
      (await adminCall(ctx.t, "/v1/admin/api-keys/nope", sue.accessToken, { reason: REASON }, "DELETE"))
        .status,
    ).toBe(404);
    const [row] = await auditRowsAbout(ctx.t, cora.id);
    expect(row).toMatchObject({
      action: "key.revoke",
      details: { key_id: key.id, prefix: key.prefix, name: "My program" },
    });
    const customer = await adminGet<{ api_keys: Array<Record<string, unknown>> }>(
      ctx.t,
      `/v1/admin/customers/${cora.id}`,
      sue.accessToken,
    );
    expect(customer.api_keys).toEqual([
      expect.objectContaining({ id: key.id, revoked_at: expect.any(String) }),
    ]);
    expect(JSON.stringify(customer)).not.toContain(key.key);
  });

  it("cancels a subscription at the period end or now", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    await subscribe(ctx.t, cora.accessToken, "B");
    const path = `/v1/admin/customers/${cora.id}/subscription/cancel`;
    expect((await adminCall(ctx.t, path, ada.accessToken, { at: "period_end", reason: REASON })).status).toBe(
      200,
    );
    expect((await me(ctx.t, cora.accessToken)).subscription).toMatchObject({
      plan: "Tier B",
      cancel_at_period_end: true,
    });
    expect((await adminCall(ctx.t, path, ada.accessToken, { at: "now", reason: REASON })).status).toBe(200);
    expect((await me(ctx.t, cora.accessToken)).subscription).toMatchObject({ plan: "FREE" });
    const none = await adminCall(ctx.t, path, ada.accessToken, { at: "now", reason: REASON });
    expect(none.status).toBe(400);
    expect((await auditRowsAbout(ctx.t, cora.id)).map((r) => r.details)).toEqual([
      { at: "period_end" },
      { at: "now" },
    ]);
  });

  it("refunds a top-up through the local checkout: credits back, 'refunded' in the history, credit notes", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const sue = await staffMember(ctx.t, "sue", "support");
    await subscribe(ctx.t, cora.accessToken, "A"); // top-ups are for paying customers
    const balanceBefore = (await me(ctx.t, cora.accessToken)).credit_balance;
    await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, cora.accessToken, "500"));
    const payments = async () => await customerPayments(ctx.t, cora.id, ada.accessToken);
    const [payment] = await payments();
    if (!payment) throw new Error("no payment");
    const path = `/v1/admin/payments/${payment.id}/refund`;
    const refund = (token: string, body: Record<string, unknown>) =>
      adminCall(ctx.t, path, token, { reason: "Bought by mistake", ...body });

    expect((await refund(sue.accessToken, { idempotency_key: "r0" })).status).toBe(403);
    const tooMuch = await refund(ada.accessToken, { amount: payment.total + 1, idempotency_key: "r1" });
    expect(tooMuch.status).toBe(409);
    expect(await tooMuch.json()).toMatchObject({ refundable: payment.total });

    const half = Math.floor(payment.total / 2);
    const first = await refund(ada.accessToken, { amount: half, idempotency_key: "r2" });
    expect(first.status).toBe(202);
    const answer = (await first.json()) as { refund_id: string; status: string };
    expect(answer).toMatchObject({ refund_id: expect.stringMatching(/^re_/), status: "succeeded" });
    // Asked again before the provider's event is back: the same refund, nothing more.
    const again = await refund(ada.accessToken, { amount: half, idempotency_key: "r2" });
    expect(await again.json()).toMatchObject({ refund_id: answer.refund_id });
    // The rest, asked for before the first refund's event arrived, counts the first as made.
    const rest = await refund(ada.accessToken, { idempotency_key: "r3" });
    expect(rest.status).toBe(202);
    await ctx.t.local.runJob();
    await ctx.t.tasks.idle();

    const [after] = await payments();
    expect(after).toMatchObject({ status: "refunded", refunded: payment.total });
    expect(after?.credit_notes.map((n) => n.number)).toEqual(["CN-2026-000001", "CN-2026-000002"]);
    expect(after?.credit_notes.map((n) => n.total)).toEqual([half, payment.total - half]);
    expect((await me(ctx.t, cora.accessToken)).credit_balance).toBe(balanceBefore);
    expect((await refund(ada.accessToken, { idempotency_key: "r4" })).status).toBe(409);
    const history = await adminGet<{ data: Array<{ document?: string; number: string }> }>(
      ctx.t,
      "/v1/billing/invoices",
      cora.accessToken,
    );
    expect(history.data.filter((r) => r.document === "credit_note")).toHaveLength(2);
    expect(
      (await auditRowsAbout(ctx.t, cora.id)).map((r) => [r.action, (r.details as { amount: number }).amount]),
    ).toEqual([
      ["payment.refund", half],
      ["payment.refund", payment.total - half],
    ]);
  });

  it("keeps one valid chain over the actions, and the audit log lists and streams them", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    await credits(ada.accessToken, cora.id, { amount: 5 });
    await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/disable`, ada.accessToken, { reason: REASON });
    await credits(ada.accessToken, cora.id, { amount: -1 });
    // The chain holds the sign-ins of the setup too.
    expect((await auditRowsWithoutSignIns(ctx.t)).map((r) => r.action)).toEqual([
      "credits.grant",
      "account.disable",
      "credits.take_back",
    ]);
    const everyRow = await ctx.t.deps.db.select().from(auditLog);
    expect(await verifyAuditChain(ctx.t.deps.db)).toMatchObject({ ok: true, rows: everyRow.length });

    const page = await adminGet<{ data: Array<{ action: string }>; next_cursor: string | null }>(
      ctx.t,
      `/v1/admin/audit?subject=${cora.id}&action=credits.`,
      ada.accessToken,
    );
    expect(page.data.map((e) => e.action)).toEqual(["credits.take_back", "credits.grant"]);
    const trail = await adminGet<{ data: Array<{ action: string }> }>(
      ctx.t,
      `/v1/admin/customers/${cora.id}/audit`,
      ada.accessToken,
    );
    // The customer's trail shows their security events (here the setup's sign-in) beside staff actions.
    expect(trail.data.map((e) => e.action)).toEqual([
      "credits.take_back",
      "account.disable",
      "credits.grant",
      "login.succeeded",
    ]);
    const bad = await getJson(ctx.t.app, "/v1/admin/audit?from=yesterday", ada.accessToken);
    expect(bad.status).toBe(422);

    const csv = await getJson(ctx.t.app, `/v1/admin/audit.csv?actor=${ada.id}`, ada.accessToken);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toBe("seq,at,actor_id,actor,action,subject_user_id,reason,details,ip,hash");
    // ada's own sign-ins and two-factor setup are hers too.
    expect(
      lines
        .slice(1)
        .map((l) => l.split(",")[4])
        .filter((a) => !a?.startsWith("login.") && a !== "mfa.enabled"),
    ).toEqual(["credits.grant", "account.disable", "credits.take_back"]);
  });
});

describe.each(TEST_DATABASES)("customer search and page (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("finds a customer by every form of q, newest first, twenty a page", async () => {
    const sue = await staffMember(ctx.t, "sue", "support");
    const cora = await verifiedUser(ctx.t, "Cora_B");
    const key = await createKey(ctx.t, cora.accessToken);
    await subscribe(ctx.t, cora.accessToken, "A");
    const search = async (q: string) =>
      (
        await adminGet<{ data: Array<{ id: string }> }>(
          ctx.t,
          `/v1/admin/customers?q=${encodeURIComponent(q)}`,
          sue.accessToken,
        )
      ).data.map((r) => r.id);
    const [invoice] = await customerPayments(ctx.t, cora.id, sue.accessToken);
    const [customerRow] = await ctx.t.deps.db
      .select({ customer_id: billingCustomers.customerId })
      .from(billingCustomers)
      .where(eq(billingCustomers.userId, cora.id));
    for (const q of [
      "cora_b@",
      "CORA",
      cora.id,
      key.prefix.slice(0, 8),
      `${key.prefix}…`,
      key.key,
      invoice?.invoice_number ?? "missing",
      customerRow?.customer_id ?? "missing",
    ]) {
      expect(await search(q), q).toEqual([cora.id]);
    }
    expect(await search("cora%")).toEqual([]);
    expect(await search("nobody")).toEqual([]);

    for (let i = 0; i < 21; i++) await register(ctx.t, `bulk${String(i).padStart(2, "0")}`);
    const first = await adminGet<{ data: Array<{ username: string }>; next_cursor: string }>(
      ctx.t,
      "/v1/admin/customers?q=bulk",
      sue.accessToken,
    );
    expect(first.data).toHaveLength(20);
    const second = await adminGet<{ data: Array<{ username: string }>; next_cursor: string | null }>(
      ctx.t,
      `/v1/admin/customers?q=bulk&cursor=${first.next_cursor}`,
      sue.accessToken,
    );
    expect(second).toMatchObject({ next_cursor: null });
    expect([...first.data, ...second.data].map((r) => r.username).sort()).toEqual(
      Array.from({ length: 21 }, (_, i) => `bulk${String(i).padStart(2, "0")}`),
    );
  });

  it("shows a customer's account, plan, credits and billing without secrets", async () => {
    const sue = await staffMember(ctx.t, "sue", "support");
    const cora = await verifiedUser(ctx.t, "cora");
    await subscribe(ctx.t, cora.accessToken, "A");
    const customer = await adminGet(ctx.t, `/v1/admin/customers/${cora.id}`, sue.accessToken);
    expect(customer).toMatchObject({
      id: cora.id,
      username: "cora",
      role: "user",
      email_verified: true,
      disabled_at: null,
      last_login_at: expect.any(String),
      subscription: { plan: "Tier A", status: "active" },
      billing_details: { country: "DE" },
    });
    expect(JSON.stringify(customer)).not.toMatch(/argon2|password|token_version/);
    const payments = await adminGet<{ data: Array<Record<string, unknown>> }>(
      ctx.t,
      `/v1/admin/customers/${cora.id}/payments`,
      sue.accessToken,
    );
    expect(payments.data).toEqual([
      expect.objectContaining({
        status: "paid",
        invoice_number: expect.stringMatching(/^INV-/),
        refunded: 0,
        dispute: null,
        credit_notes: [],
      }),
    ]);
    const usage = await adminGet(
      ctx.t,
      `/v1/admin/customers/${cora.id}/usage?group_by=feature`,
      sue.accessToken,
    );
    expect(usage).toMatchObject({ data: [], total: { uses: 0, credits: 0 } });
    expect(
      (await getJson(ctx.t.app, `/v1/admin/customers/${cora.id}/usage?from=x`, sue.accessToken)).status,
    ).toBe(422);
    expect((await getJson(ctx.t.app, "/v1/admin/customers/not-an-id", sue.accessToken)).status).toBe(404);
  });
});

describe.each(TEST_DATABASES)("a customer's expired credits on the console (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("dates the answer, so a grant past its expiry reads as expired and the parts add up to the balance", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    await subscribe(ctx.t, cora.accessToken, "A");
    // Two months on, the first month's Tier A grant has expired with all of it unspent.
    await advanceDays(ctx.t, 62);
    const sue = await staffMember(ctx.t, "sue", "support");
    const customer = await adminGet<Customer>(ctx.t, `/v1/admin/customers/${cora.id}`, sue.accessToken);
    expect(customer.as_of).toBe(ctx.t.clock.now().toISOString());
    const asOf = Date.parse(customer.as_of ?? "");
    const expired = customer.credits.filter((g) => g.expires_at !== null && Date.parse(g.expires_at) <= asOf);
    expect(expired).toContainEqual(
      expect.objectContaining({
        kind: "subscription",
        source: "Tier A subscription",
        remaining: TIERS[0]?.creditsPerMonth,
      }),
    );
    const live = customer.credits.filter(
      (g) => Date.parse(g.granted_at) <= asOf && (g.expires_at === null || asOf < Date.parse(g.expires_at)),
    );
    expect(live.reduce((sum, g) => sum + g.remaining, 0)).toBe(customer.credit_balance);
    expect(customer.credit_balance).toBe((await me(ctx.t, await tokenFor(ctx.t, "cora"))).credit_balance);
  });
});

describe.each(TEST_DATABASES)("the quarterly VAT report (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("separates domestic, OSS and reverse-charge sales, and counts a refund as a negative line", async () => {
    const ada = await staffMember(ctx.t, "ada", "admin");
    const buyers: Array<[string, TestBuyer]> = [
      ["erika", GERMAN_CONSUMER],
      ["marie", { name: "Marie Dupont", country: "FR", vat_id: "" }],
      ["sarl", { name: "Exemple SARL", country: "FR", vat_id: "FR40303265045" }],
    ];
    const ids: Record<string, string> = {};
    for (const [name, buyer] of buyers) {
      const user = await verifiedUser(ctx.t, name);
      ids[name] = user.id;
      await payAndSettle(
        ctx.t,
        await openSubscriptionCheckout(ctx.t, user.accessToken, "A"),
        undefined,
        buyer,
      );
    }
    const net = TIERS.find((t) => t.key === "A")?.unitAmount ?? 0;
    // Marie's payment is refunded in full.
    const [marieInvoice] = await customerPayments(ctx.t, ids.marie ?? "", ada.accessToken);
    const refund = await adminCall(ctx.t, `/v1/admin/payments/${marieInvoice?.id}/refund`, ada.accessToken, {
      reason: "Asked within 14 days",
      idempotency_key: "vat-1",
    });
    expect(refund.status).toBe(202);
    await ctx.t.local.runJob();
    await ctx.t.tasks.idle();

    const quarter = quarterOf(ctx.t.clock.now());
    const report = await adminGet<VatReportView>(
      ctx.t,
      `/v1/admin/reports/vat?quarter=${quarter}`,
      ada.accessToken,
    );
    const de = vatOf(net, 1900);
    const fr = vatOf(net, 2000);
    expect(report.lines).toEqual([
      {
        section: "domestic",
        country: null,
        rate: 19,
        vat_id: null,
        original_quarter: null,
        currency: "eur",
        net,
        vat: de,
        documents: 1,
      },
      {
        section: "oss",
        country: "FR",
        rate: 20,
        vat_id: null,
        original_quarter: null,
        currency: "eur",
        net,
        vat: fr,
        documents: 1,
      },
      {
        section: "oss",
        country: "FR",
        rate: 20,
        vat_id: null,
        original_quarter: quarter,
        currency: "eur",
        net: -net,
        vat: -fr,
        documents: 1,
      },
      {
        section: "reverse_charge",
        country: "FR",
        rate: null,
        vat_id: "FR40303265045",
        original_quarter: null,
        currency: "eur",
        net,
        vat: 0,
        documents: 1,
      },
    ]);
    expect(report.totals).toContainEqual({ section: "all", currency: "eur", net: 2 * net, vat: de });

    const csv = await getJson(ctx.t.app, `/v1/admin/reports/vat.csv?quarter=${quarter}`, ada.accessToken);
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toBe(
      "section,country,rate_percent,buyer_vat_id,original_quarter,currency,net,vat,documents",
    );
    expect(lines[3]).toBe(`oss,FR,20,,${quarter},EUR,-${(net / 100).toFixed(2)},-${(fr / 100).toFixed(2)},1`);
    expect((await getJson(ctx.t.app, "/v1/admin/reports/vat?quarter=2026-Q5", ada.accessToken)).status).toBe(
      422,
    );
  });
});
