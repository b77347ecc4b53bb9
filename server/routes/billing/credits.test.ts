// GET /v1/credits/ledger and POST /v1/credits/consume: spending order, idempotency keys, 402, roles,
// and (on PostgreSQL) concurrent spends that never overspend.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { creditGrants, creditSpends } from "../../db/schema/index.ts";
import { setRole, staffMember } from "../../testing/admin.ts";
import { getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import { ledger, me, openTopUpCheckout, payAndSettle, subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_FREE_CREDITS } from "../../testing/test-app.ts";

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

describe.each(TEST_DATABASES)("credits (%s)", (kind) => {
  // Room for the concurrency tests' 100 staff charges in a minute (the write limit that staff
  // charges count against has its own test in staff-safety.test.ts).
  const ctx = useTestApp(kind, { limits: { accountWritePerMinute: 1_000 } });

  async function adminAndUser() {
    const adminToken = (await staffMember(ctx.t, "boss", "admin")).accessToken;
    const user = await verifiedUser(ctx.t, "ann");
    return { adminToken, user };
  }

  function consume(token: string, body: Record<string, unknown>) {
    return postJson(ctx.t.app, "/v1/credits/consume", body, auth(token));
  }

  it("the ledger lists grants newest first; 401 without a token", async () => {
    expect((await getJson(ctx.t.app, "/v1/credits/ledger")).status).toBe(401);
    const user = await verifiedUser(ctx.t, "ann");
    expect(await ledger(ctx.t, user.accessToken)).toEqual([
      {
        kind: "free",
        amount: TEST_FREE_CREDITS,
        remaining: TEST_FREE_CREDITS,
        granted_at: ctx.t.clock.now().toISOString(),
        expires_at: null,
        source: "Free plan",
      },
    ]);
  });

  it("the ledger and the key list say the server's time, by which expiry is judged", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    // The app's clock, not real time (billing:advance moves it).
    ctx.t.clock.advance(10 * 60_000);
    const asOf = ctx.t.clock.now().toISOString();
    for (const path of ["/v1/credits/ledger", "/v1/api-keys"]) {
      const res = await getJson(ctx.t.app, path, user.accessToken);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { as_of: string }).as_of).toBe(asOf);
    }
  });

  it("spends subscription credits first, then top-up, then free; fractions are exact", async () => {
    const { adminToken, user } = await adminAndUser();
    await subscribe(ctx.t, user.accessToken, "A");
    ctx.t.clock.advance(1000);
    await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, user.accessToken, "500"));
    const res = await consume(adminToken, {
      user_id: user.id,
      amount: 1000.1,
      reason: "render",
      idempotency_key: "k1",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      credit_balance: TEST_FREE_CREDITS + 500 - 0.1,
      charged: 1000.1,
      ledger_entry_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      replayed: false,
    });
    const remaining = Object.fromEntries(
      (await ledger(ctx.t, user.accessToken)).map((g) => [g.kind, g.remaining]),
    );
    expect(remaining).toEqual({ subscription: 0, topup: 499.9, free: TEST_FREE_CREDITS });
  });

  it("an identical repeat of an idempotency key answers the first result, replayed, and spends nothing", async () => {
    const { adminToken, user } = await adminAndUser();
    const body = { user_id: user.id, amount: 10, reason: "filter", idempotency_key: "same" };
    const first = await (await consume(adminToken, body)).json();
    const second = await consume(adminToken, body);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ ...first, replayed: true });
    expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS - 10);
  });

  it("409 for an idempotency key reused with another amount, and nothing spent", async () => {
    const { adminToken, user } = await adminAndUser();
    const body = { user_id: user.id, amount: 10, reason: "filter", idempotency_key: "same" };
    await consume(adminToken, body);
    const reused = await consume(adminToken, { ...body, amount: 20 });
    expect(reused.status).toBe(409);
    expect(await reused.json()).toEqual({ detail: DETAIL.idempotencyKeyReused });
    expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS - 10);
  });

  it("answers 402 Insufficient credits and takes nothing", async () => {
    const { adminToken, user } = await adminAndUser();
    const res = await consume(adminToken, {
      user_id: user.id,
      amount: TEST_FREE_CREDITS + 0.001,
      reason: "x",
      idempotency_key: "big",
    });
    expect(res.status).toBe(402);
    expect(await res.json()).toEqual({ detail: "Insufficient credits" });
    expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS);
  });

  it.each([
    ["a zero amount", { amount: 0 }],
    ["four decimals", { amount: 0.0001 }],
    ["no idempotency key", { idempotency_key: "" }],
  ])("answers 422 for %s", async (_label, override) => {
    const { adminToken, user } = await adminAndUser();
    const res = await consume(adminToken, {
      user_id: user.id,
      amount: 1,
      reason: "x",
      idempotency_key: "k",
      ...override,
    });
    expect(res.status).toBe(422);
  });

  it("is for admins only (403), and 404 for an unknown user", async () => {
    const { adminToken, user } = await adminAndUser();
    const res = await consume(user.accessToken, {
      user_id: user.id,
      amount: 1,
      reason: "x",
      idempotency_key: "k",
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: DETAIL.notEnoughPermissions });
    const unknown = await consume(adminToken, {
      user_id: "00000000-0000-4000-8000-000000000000",
      amount: 1,
      reason: "x",
      idempotency_key: "k",
    });
    expect(unknown.status).toBe(404);
  });

  it("takes an admin's token only from a sign-in with two factors, as /v1/admin does", async () => {
    const { user } = await adminAndUser();
    const passwordOnly = await verifiedUser(ctx.t, "ada");
    await setRole(ctx.t, passwordOnly.id, "admin");
    const body = { user_id: user.id, amount: 1, reason: "x", idempotency_key: "k" };
    const res = await consume(passwordOnly.accessToken, body);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: DETAIL.staffMfaRequired });
    expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS);
  });

  // Registered for PostgreSQL only (TEST_DATABASE_URL set): PGlite has one connection, so nothing
  // there runs concurrently.
  if (kind === "postgres")
    it("100 concurrent spends for one user never overspend and the ledger adds up (PostgreSQL, TEST_DATABASE_URL)", async () => {
      const { adminToken, user } = await adminAndUser();
      // 50 free credits; 100 spends of 1 credit each: exactly 50 succeed.
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          consume(adminToken, { user_id: user.id, amount: 1, reason: "load", idempotency_key: `c${i}` }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(TEST_FREE_CREDITS);
      expect(statuses.filter((s) => s === 402)).toHaveLength(100 - TEST_FREE_CREDITS);
      const db = ctx.t.deps.db;
      const grants = await db.select().from(creditGrants).where(eq(creditGrants.userId, user.id));
      const spends = await db.select().from(creditSpends).where(eq(creditSpends.userId, user.id));
      const granted = grants.reduce((s, g) => s + g.amount, 0);
      const left = grants.reduce((s, g) => s + g.remaining, 0);
      const spent = spends.reduce((s, g) => s + g.amount, 0);
      expect(left).toBe(0);
      expect(granted - left).toBe(spent);
      expect(spends.flatMap((s) => s.takes).reduce((sum, t) => sum + t.amount, 0)).toBe(spent);
      expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(0);
    });
});
