// A goodwill grant as the customer meets it (issue 31): its own ledger entry with staff's note,
// and one mail with the amount and the note, never the staff-only reason, on PGlite and PostgreSQL.
import { describe, expect, it } from "vitest";
import { ADMIN_TEXT, type AdminLedgerEntry } from "../../../contract/admin.ts";
import { GOODWILL_SOURCE, type LedgerEntry } from "../../../contract/billing.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { adminCall, adminGet, staffMember } from "../../testing/admin.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

const REASON = "Ticket 4711: refunds delayed, customer upset";
const NOTE = "Sorry for the failed generations on Tuesday.";
/** "2026-12-26 23:59": the mail's expiry, worked out apart from the server's Temporal code. */
const BERLIN_MINUTE = new Intl.DateTimeFormat("sv-SE", {
  timeZone: "Europe/Berlin",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
});

describe.each(TEST_DATABASES)("goodwill grants seen by the customer (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  const grant = (token: string, customerId: string, body: Record<string, unknown>) =>
    adminCall(ctx.t, `/v1/admin/customers/${customerId}/credits`, token, {
      reason: REASON,
      idempotency_key: `k-${Math.random()}`,
      ...body,
    });
  const ledger = async (token: string) =>
    (await adminGet<{ data: LedgerEntry[] }>(ctx.t, "/v1/credits/ledger", token)).data;
  const grantMails = async (to: string) =>
    (await ctx.t.mails()).filter((m) => m.to.includes(to) && m.subject.includes("from"));

  it("lists the grant apart from the sign-up credits, with its note, and mails the customer once", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const sue = await staffMember(ctx.t, "sue", "support");
    const body = { amount: 250, note: `  ${NOTE} `, idempotency_key: "grant-1" };
    expect((await grant(sue.accessToken, cora.id, body)).status).toBe(201);
    // A retry after a lost answer: the same grant, no second one, no second mail.
    const retry = await grant(sue.accessToken, cora.id, body);
    expect(await retry.json()).toMatchObject({ replayed: true });

    const entries = await ledger(cora.accessToken);
    expect(entries).toHaveLength(2);
    expect(entries.find((e) => e.source === GOODWILL_SOURCE)).toMatchObject({
      kind: "free",
      amount: 250,
      remaining: 250,
      expires_at: null,
      note: NOTE,
    });
    expect(entries.find((e) => e.source !== GOODWILL_SOURCE)).not.toHaveProperty("note");

    const mails = await grantMails(cora.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toBe("250 credits from GenAI Studio support");
    expect(mails[0]?.text).toContain("added 250 credits to your account. They do not expire.");
    // The order /profile shows: older free credits go before these, so the mail names no fixed place.
    expect(mails[0]?.text).toContain("your profile lists all your credits in the order they are spent");
    expect(mails[0]?.text).toContain(`"${NOTE}"`);
    expect(mails[0]?.text).not.toContain("Ticket 4711");
    expect(mails[0]?.links.some((l) => l.endsWith("/profile"))).toBe(true);

    // Staff see what the customer read, in the console's ledger.
    const staffView = await adminGet<{ data: AdminLedgerEntry[] }>(
      ctx.t,
      `/v1/admin/customers/${cora.id}/ledger`,
      sue.accessToken,
    );
    expect(staffView.data.map((l) => l.description)).toContain(`${GOODWILL_SOURCE}: ${NOTE}`);
  });

  it("mails a grant without a note with its expiry, and a take-back not at all", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const expiresAt = new Date(ctx.t.clock.now().getTime() + 30 * 86_400_000);
    expiresAt.setUTCHours(22, 59, 59, 0);
    const granted = await grant(ada.accessToken, cora.id, {
      amount: 12.5,
      note: "   ",
      expires_at: expiresAt.toISOString(),
    });
    expect(granted.status).toBe(201);
    expect((await grant(ada.accessToken, cora.id, { amount: -5 })).status).toBe(201);

    const goodwill = (await ledger(cora.accessToken)).find((e) => e.source === GOODWILL_SOURCE);
    expect(goodwill).not.toHaveProperty("note");
    const mails = await grantMails(cora.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toBe("12.5 credits from GenAI Studio support");
    expect(mails[0]?.text).toContain(`They expire on ${BERLIN_MINUTE.format(expiresAt)} (Berlin time)`);
    expect(mails[0]?.text).not.toContain("Their note");
  });

  it("refuses a note too long for /profile, granting nothing", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const sue = await staffMember(ctx.t, "sue", "support");
    const refused = await grant(sue.accessToken, cora.id, { amount: 10, note: "x".repeat(201) });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain(ADMIN_TEXT.noteTooLong);
    expect(await ledger(cora.accessToken)).toHaveLength(1);
    expect(await grantMails(cora.email)).toEqual([]);
  });
});
