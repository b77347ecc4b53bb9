// The audit log's actor and subject filters as staff type them (a username, an e-mail address or a
// user id), the names of each entry's subject, and the browser read from a sign-in's User-Agent, on
// PGlite and PostgreSQL.
import { describe, expect, it } from "vitest";
import { ADMIN_TEXT, type AuditEntryView } from "../../../contract/admin.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { adminCall, adminGet, staffMember } from "../../testing/admin.ts";
import { fromIp, GOOD_PASSWORD, getJson, postForm, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

const FIREFOX =
  "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 with a long tail";

describe.each(TEST_DATABASES)("audit log filters by name (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  const page = (query: string, token: string) =>
    adminGet<{ data: AuditEntryView[] }>(ctx.t, `/v1/admin/audit?${query}`, token);

  /** Ada grants Cora 5 credits; Cora signs in once more with Firefox. */
  async function setUp() {
    const cora = await verifiedUser(ctx.t, "Cora_F");
    const ada = await staffMember(ctx.t, "ada", "admin");
    const grant = await adminCall(ctx.t, `/v1/admin/customers/${cora.id}/credits`, ada.accessToken, {
      amount: 5,
      reason: "Outage on 24 November",
      idempotency_key: "g-1",
    });
    expect(grant.status).toBe(201);
    const signIn = await postForm(
      ctx.t.app,
      "/v1/token",
      { username: cora.username, password: GOOD_PASSWORD },
      { ...fromIp(), "User-Agent": FIREFOX },
    );
    expect(signIn.status).toBe(200);
    return { cora, ada };
  }

  it("takes a username, an e-mail address (any case) or a user id, and names the subject", async () => {
    const { cora, ada } = await setUp();
    const byId = await page(`subject=${cora.id}&action=credits.`, ada.accessToken);
    expect(byId.data.map((e) => e.action)).toEqual(["credits.grant"]);
    for (const subject of ["cora_f", "CORA_F@example.com", cora.id.toUpperCase()]) {
      const named = await page(`subject=${encodeURIComponent(subject)}&action=credits.`, ada.accessToken);
      expect(named.data, subject).toEqual(byId.data);
    }
    expect(byId.data[0]).toMatchObject({
      actor_label: "ada",
      subject_user_id: cora.id,
      subject_username: "Cora_F",
      subject_email: "Cora_F@example.com",
    });

    const byActor = await page("actor=ADA&action=credits.", ada.accessToken);
    expect(byActor.data.map((e) => [e.action, e.subject_username])).toEqual([["credits.grant", "Cora_F"]]);
    // The CSV takes the same names.
    const csv = await getJson(ctx.t.app, "/v1/admin/audit.csv?actor=ada%40example.com", ada.accessToken);
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain(",credits.grant,");
  });

  it("answers a 422 naming the field for a name no account has or a day not in ISO form", async () => {
    const { ada } = await setUp();
    for (const [path, field] of [
      ["/v1/admin/audit?subject=nobody", "subject"],
      ["/v1/admin/audit?actor=nobody%40example.com", "actor"],
      ["/v1/admin/audit.csv?actor=ghost", "actor"],
      ["/v1/admin/audit?subject=bad%00name", "subject"],
    ] as const) {
      const res = await getJson(ctx.t.app, path, ada.accessToken);
      expect(res.status, path).toBe(422);
      expect(await res.json(), path).toEqual({
        detail: [{ loc: ["query", field], msg: ADMIN_TEXT.noSuchAccount, type: "value_error" }],
      });
    }
    const badDay = await getJson(ctx.t.app, "/v1/admin/audit?from=24.11.2026", ada.accessToken);
    expect(await badDay.json()).toEqual({
      detail: [{ loc: ["query", "from"], msg: ADMIN_TEXT.notIsoTime, type: "value_error" }],
    });
    // A user id stays a filter without an account (one deleted since still has its entries).
    const gone = await page("subject=00000000-0000-4000-8000-000000000000", ada.accessToken);
    expect(gone.data).toEqual([]);
    // Blank means no filter.
    expect((await page("subject=%20%20&action=credits.", ada.accessToken)).data).toHaveLength(1);
  });

  it("finds an account by an e-mail address as long as addresses may be", async () => {
    const { ada } = await setUp();
    const email = `${"l".repeat(64)}@${"d".repeat(60)}.${"e".repeat(60)}.example.com`;
    expect(email.length).toBeGreaterThan(180);
    const long = await verifiedUser(ctx.t, "longmail", { email });
    const grant = await adminCall(ctx.t, `/v1/admin/customers/${long.id}/credits`, ada.accessToken, {
      amount: 5,
      reason: "A long address is still an address",
      idempotency_key: "long-1",
    });
    expect(grant.status).toBe(201);
    const found = await page(
      `subject=${encodeURIComponent(email.toUpperCase())}&action=credits.`,
      ada.accessToken,
    );
    expect(found.data.map((e) => e.subject_email)).toEqual([email]);
  });

  it("reads the browser and system from a sign-in's User-Agent, and keeps the full string", async () => {
    const { cora, ada } = await setUp();
    const signIns = await page(`subject=${cora.username}&action=login.succeeded`, ada.accessToken);
    const firefox = signIns.data.find((e) => e.details.user_agent === FIREFOX);
    expect(firefox?.browser).toBe("Firefox 133 on Ubuntu");
    // A staff action carries no User-Agent, and so no browser.
    const [grant] = (await page(`subject=${cora.username}&action=credits.grant`, ada.accessToken)).data;
    expect(grant?.browser).toBeNull();
  });
});
