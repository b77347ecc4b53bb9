// The security review of the operator console (issue 30), through the API on PGlite and PostgreSQL:
// ids in any case name the same customer and never break the audit chain, free text is printable,
// staff charges and grants are audited and limited, keys and exports are security events, and a
// deleted account stays deleted.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ADMIN_TEXT } from "../../../contract/admin.ts";
import { notPrintable } from "../../../contract/free-text.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { verifyAuditChain } from "../../audit/audit-log.ts";
import { auditLog, creditSpends, users } from "../../db/schema/index.ts";
import { adminCall, adminGet, auditRowsAbout, customerPayments, staffMember } from "../../testing/admin.ts";
import { consumeRequest, createKey } from "../../testing/api-access.ts";
import { fromIp, getJson, verifiedUser } from "../../testing/api-client.ts";
import { me, openTopUpCheckout, payAndSettle, subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

const REASON = "Outage on 24 November";

/** The 422's field names and messages. */
async function refusals(res: Response): Promise<[string, string][]> {
  const body = (await res.json()) as { detail: { loc: string[]; msg: string }[] };
  return body.detail.map((d) => [d.loc.join("."), d.msg]);
}

describe.each(TEST_DATABASES)("staff actions under review (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const upper = (id: string) => id.toUpperCase();

  it("refuses a support member's grant to their own account however the id is spelled", async () => {
    const sue = await staffMember(ctx.t, "sue", "support");
    for (const id of [sue.id, upper(sue.id)]) {
      const res = await adminCall(ctx.t, `/v1/admin/customers/${id}/credits`, sue.accessToken, {
        amount: 500,
        reason: REASON,
        idempotency_key: `self-${id}`,
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: ADMIN_TEXT.notOwnAccount });
    }
    expect((await me(ctx.t, sue.accessToken)).credit_balance).toBe(50);
    expect(await auditRowsAbout(ctx.t, sue.id)).toEqual([]);
  });

  it("refuses an admin's cancel of their own plan, now or at the period's end", async () => {
    const ada = await staffMember(ctx.t, "ada", "admin");
    await subscribe(ctx.t, ada.accessToken, "A");
    for (const at of ["now", "period_end"]) {
      const res = await adminCall(
        ctx.t,
        `/v1/admin/customers/${upper(ada.id)}/subscription/cancel`,
        ada.accessToken,
        { at, reason: REASON },
      );
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: ADMIN_TEXT.notOwnAccount });
    }
    expect(await me(ctx.t, ada.accessToken)).toMatchObject({
      subscription: { plan: "Tier A", cancel_at_period_end: false },
    });
    expect(await auditRowsAbout(ctx.t, ada.id)).toEqual([]);
  });

  it("acts on the customer an upper-case id names, and every entry keeps the chain whole", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    await subscribe(ctx.t, cora.accessToken, "A");
    await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, cora.accessToken, "500"));
    const key = await createKey(ctx.t, cora.accessToken);
    const id = upper(cora.id);
    const act = (path: string, body: Record<string, unknown>, method?: "DELETE") =>
      adminCall(ctx.t, path, ada.accessToken, { reason: REASON, ...body }, method);

    for (const path of ["", "/ledger", "/payments", "/usage", "/audit"]) {
      expect((await getJson(ctx.t.app, `/v1/admin/customers/${id}${path}`, ada.accessToken)).status).toBe(
        200,
      );
    }
    expect(
      (await act(`/v1/admin/customers/${id}/credits`, { amount: 10, idempotency_key: "g" })).status,
    ).toBe(201);
    // The same key, spelled the other way, is the same grant: answered, not repeated.
    const again = await act(`/v1/admin/customers/${cora.id}/credits`, { amount: 10, idempotency_key: "g" });
    expect(await again.json()).toMatchObject({ replayed: true });
    expect(
      (await act(`/v1/admin/customers/${id}/credits`, { amount: -5, idempotency_key: "t" })).status,
    ).toBe(201);
    const [payment] = await customerPayments(ctx.t, cora.id, ada.accessToken);
    expect(
      (
        await act(`/v1/admin/payments/${upper(payment?.id ?? "")}/refund`, {
          amount: 100,
          idempotency_key: "r",
        })
      ).status,
    ).toBe(202);
    expect((await act(`/v1/admin/customers/${id}/emails`, { kind: "password_reset" })).status).toBe(200);
    expect((await act(`/v1/admin/customers/${id}/disable`, {})).status).toBe(200);
    expect((await act(`/v1/admin/customers/${id}/enable`, {})).status).toBe(200);
    expect((await act(`/v1/admin/customers/${id}/subscription/cancel`, { at: "period_end" })).status).toBe(
      200,
    );
    // An API key's id is case-sensitive base62: the upper-case spelling names no key.
    expect((await act(`/v1/admin/api-keys/${upper(key.id)}`, {}, "DELETE")).status).toBe(404);
    expect((await act(`/v1/admin/api-keys/${key.id}`, {}, "DELETE")).status).toBe(200);
    const charged = await consumeRequest(ctx.t, ada.accessToken, {
      user_id: id,
      amount: 1,
      reason: REASON,
      idempotency_key: "c",
    });
    expect(charged.status).toBe(200);

    const rows = await auditRowsAbout(ctx.t, cora.id);
    expect(rows.map((r) => r.action)).toEqual([
      "credits.grant",
      "credits.take_back",
      "payment.refund",
      "mail.send",
      "account.disable",
      "account.enable",
      "subscription.cancel",
      "key.revoke",
      "credits.charge",
    ]);
    const filtered = await adminGet<{ data: unknown[] }>(
      ctx.t,
      `/v1/admin/audit?subject=${id}`,
      ada.accessToken,
    );
    expect(filtered.data.length).toBeGreaterThanOrEqual(rows.length);
    expect(await verifyAuditChain(ctx.t.deps.db)).toMatchObject({ ok: true });
  });

  it("finds an upper-case user id in the customer search", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const sue = await staffMember(ctx.t, "sue", "support");
    const found = await adminGet<{ data: { id: string }[] }>(
      ctx.t,
      `/v1/admin/customers?q=${upper(cora.id)}`,
      sue.accessToken,
    );
    expect(found.data.map((c) => c.id)).toEqual([cora.id]);
  });

  it("refuses control characters and broken Unicode in free text with a 422 naming the field", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    await subscribe(ctx.t, cora.accessToken, "A");
    for (const [i, reason] of ["Goodwill\u0000credits", "Goodwill \ud800", "Bell \u0007 rings"].entries()) {
      const grant = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/credits`, ada.accessToken, {
        amount: 10,
        reason,
        idempotency_key: `k-${i}`,
      });
      expect(grant.status).toBe(422);
      expect(await refusals(grant)).toEqual([["body.reason", notPrintable("The reason")]]);
      const cancel = await adminCall(
        ctx.t,
        `/v1/admin/customers/${cora.id}/subscription/cancel`,
        ada.accessToken,
        {
          at: "now",
          reason,
        },
      );
      expect(cancel.status).toBe(422);
    }
    // Idempotency keys are kept in the audit log too: the same rule, the same 422.
    const badKey = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/credits`, ada.accessToken, {
      amount: 10,
      reason: REASON,
      idempotency_key: "k\u0000",
    });
    expect(badKey.status).toBe(422);
    expect(await refusals(badKey)).toEqual([["body.idempotency_key", notPrintable("The idempotency key")]]);
    const badCharge = await consumeRequest(ctx.t, ada.accessToken, {
      user_id: cora.id,
      amount: 1,
      reason: REASON,
      idempotency_key: "k\ud800",
    });
    expect(badCharge.status).toBe(422);
    // A reason over several lines is still a reason.
    const multiLine = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/credits`, ada.accessToken, {
      amount: 10,
      reason: "Outage.\nTicket 4711",
      idempotency_key: "lines",
    });
    expect(multiLine.status).toBe(201);
    const keyName = await ctx.t.app.request("/v1/api-keys", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Bearer ${cora.accessToken}`,
        ...fromIp(),
      },
      body: JSON.stringify({ name: "Render\nfarm" }),
    });
    expect(keyName.status).toBe(422);
    expect(await refusals(keyName)).toEqual([["body.name", notPrintable("The name")]]);
    expect((await me(ctx.t, cora.accessToken)).subscription.plan).not.toBe("FREE");
    expect(await verifyAuditChain(ctx.t.deps.db)).toMatchObject({ ok: true });
  });

  it("audits staff charges of either form with the actor and the reason, once per idempotency key", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const manual = { user_id: cora.id, amount: 2, reason: "Manual correction", idempotency_key: "m" };
    const feature = {
      user_id: cora.id,
      feature: "comic",
      people: "one",
      reason: "Re-ran a failed render",
      idempotency_key: "f",
    };
    for (const body of [manual, manual, feature, feature]) {
      expect((await consumeRequest(ctx.t, ada.accessToken, body)).status).toBe(200);
    }
    const rows = await auditRowsAbout(ctx.t, cora.id);
    expect(rows.map((r) => [r.action, r.actorId, r.actorLabel, r.reason])).toEqual([
      ["credits.charge", ada.id, "ada", "Manual correction"],
      ["credits.charge", ada.id, "ada", "Re-ran a failed render"],
    ]);
    expect(rows[0]?.details).toMatchObject({ credits: 2, idempotency_key: "m", balance_after: 48 });
    expect(rows[1]?.details).toMatchObject({
      feature: "comic",
      people: "one",
      quantity: 1,
      idempotency_key: "f",
    });
    const spends = await ctx.t.deps.db.select().from(creditSpends).where(eq(creditSpends.userId, cora.id));
    expect(spends.map((s) => s.requestedBy)).toEqual([ada.id, ada.id]);
  });

  it("charges nothing, and writes nothing, for a staff charge the customer cannot pay", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const res = await consumeRequest(ctx.t, ada.accessToken, {
      user_id: cora.id,
      amount: 51,
      reason: "Too much",
      idempotency_key: "big",
    });
    expect(res.status).toBe(402);
    expect(await auditRowsAbout(ctx.t, cora.id)).toEqual([]);
  });

  it("limits support's grants to SUPPORT_GRANT_DAILY_LIMIT a Berlin day, all customers together", async () => {
    ctx.t.clock.set("2030-01-15T22:40:00.000Z"); // 23:40 in Berlin
    const sue = await staffMember(ctx.t, "sue", "support");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const customers = [await verifiedUser(ctx.t, "cora"), await verifiedUser(ctx.t, "dan")];
    const grant = (token: string, customerId: string, amount: number, key: string) =>
      adminCall(ctx.t, `/v1/admin/customers/${customerId}/credits`, token, {
        amount,
        reason: REASON,
        idempotency_key: key,
      });
    for (const [i, c] of [...customers, ...customers].entries()) {
      expect((await grant(sue.accessToken, c.id, 500, `g${i}`)).status).toBe(201);
    }
    const over = await grant(sue.accessToken, customers[0]?.id ?? "", 1, "g-over");
    expect(over.status).toBe(403);
    expect(await over.json()).toEqual({
      detail: ADMIN_TEXT.overDailyGrantLimit(2_000, 0),
      limit: 2_000,
      left: 0,
    });
    // A repeat of an earlier grant is answered, not refused; an admin has no daily limit.
    expect(await (await grant(sue.accessToken, customers[0]?.id ?? "", 500, "g0")).json()).toMatchObject({
      replayed: true,
    });
    expect((await grant(ada.accessToken, customers[0]?.id ?? "", 5_000, "a0")).status).toBe(201);
    // The next Berlin day starts a new total (00:00 in Berlin is 23:00 UTC in winter).
    ctx.t.clock.set("2030-01-15T22:59:59.000Z");
    expect((await grant(sue.accessToken, customers[1]?.id ?? "", 1, "g-same-day")).status).toBe(403);
    ctx.t.clock.set("2030-01-15T23:00:00.000Z");
    expect((await grant(sue.accessToken, customers[1]?.id ?? "", 500, "g-next-day")).status).toBe(201);
  });

  it("counts concurrent grants of one support member exactly against the daily limit", async () => {
    const sue = await staffMember(ctx.t, "sue", "support");
    const customers = await Promise.all(
      ["cora", "dan", "eve", "finn", "gus"].map((n) => verifiedUser(ctx.t, n)),
    );
    const answers = await Promise.all(
      customers.map((c, i) =>
        adminCall(ctx.t, `/v1/admin/customers/${c.id}/credits`, sue.accessToken, {
          amount: 500,
          reason: REASON,
          idempotency_key: `p${i}`,
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 403]);
  });

  it("refuses staff actions on a deleted account with 409", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const deleted = await ctx.t.app.request("/v1/users/me", {
      method: "DELETE",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Bearer ${cora.accessToken}`,
        ...fromIp(),
      },
      body: JSON.stringify({ confirm: "cora" }),
    });
    expect(deleted.status).toBe(200);
    const before = (await ctx.t.deps.db.select().from(auditLog)).length;
    const [rowBefore] = await ctx.t.deps.db.select().from(users).where(eq(users.id, cora.id));
    const actions: [string, Record<string, unknown>][] = [
      ["credits", { amount: 100, idempotency_key: "g" }],
      ["disable", {}],
      ["enable", {}],
      ["role", { role: "support" }],
      ["emails", { kind: "password_reset" }],
      ["subscription/cancel", { at: "now" }],
    ];
    for (const [action, body] of actions) {
      const res = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/${action}`, ada.accessToken, {
        reason: REASON,
        ...body,
      });
      expect([action, res.status]).toEqual([action, 409]);
      expect(await res.json()).toEqual({ detail: ADMIN_TEXT.accountDeleted });
    }
    expect((await ctx.t.deps.db.select().from(auditLog)).length).toBe(before);
    // Still deleted and disabled: nothing staff did brought it back.
    const [row] = await ctx.t.deps.db.select().from(users).where(eq(users.id, cora.id));
    expect(row).toEqual(rowBefore);
    expect(row?.disabledAt).not.toBeNull();
  });
});

describe.each(TEST_DATABASES)("staff charges under the write limit (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: { accountWritePerMinute: 6 } });

  it("counts staff charges against the staff member's signed-in writes: 429 past them, nothing charged", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const charge = (i: number) =>
      consumeRequest(ctx.t, ada.accessToken, {
        user_id: cora.id,
        amount: 1,
        reason: "Manual correction",
        idempotency_key: `w${i}`,
      });
    // The staff member's two-factor setup spent some of the 6 writes; the charges spend the rest.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await charge(i)).status);
    const charged = statuses.filter((s) => s === 200).length;
    expect(charged).toBeGreaterThan(0);
    expect(statuses).toEqual([...Array(charged).fill(200), ...Array(8 - charged).fill(429)]);
    expect((await me(ctx.t, cora.accessToken)).credit_balance).toBe(50 - charged);
    expect(await auditRowsAbout(ctx.t, cora.id)).toHaveLength(charged);
  });
});
