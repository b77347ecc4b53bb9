// POST /v1/credits/consume by feature: priced from the credit-cost table, recorded with user, key,
// feature, people, quantity and credits, once per idempotency key, within the key's feature
// restriction and monthly limit (also under 200 parallel charges) and the user's balance.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { creditSpends } from "../../db/schema/index.ts";
import { staffMember } from "../../testing/admin.ts";
import { bearer, consumeRequest, createKey, introspect, serviceKey } from "../../testing/api-access.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { me, subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS, TEST_FREE_CREDITS } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("metering (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  async function setUp() {
    const ann = await verifiedUser(ctx.t, "ann");
    return { ann, service: await serviceKey(ctx.t) };
  }

  it("charges by feature, people and quantity from the credit-cost table and records the charge", async () => {
    const { ann, service } = await setUp();
    const key = await createKey(ctx.t, ann.accessToken);
    const res = await consumeRequest(ctx.t, service, {
      api_key_id: key.id,
      feature: "background-remover",
      people: "multiple",
      quantity: 3,
      idempotency_key: "gen-1",
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { credit_balance: number; charged: number; ledger_entry_id: string };
    expect(answer).toEqual({
      credit_balance: TEST_FREE_CREDITS - 0.3,
      charged: 0.3,
      ledger_entry_id: expect.any(String),
      replayed: false,
    });
    const [row] = await ctx.database.db
      .select()
      .from(creditSpends)
      .where(eq(creditSpends.id, answer.ledger_entry_id));
    expect(row).toMatchObject({
      userId: ann.id,
      apiKeyId: key.id,
      feature: "background-remover",
      people: "multiple",
      quantity: 3,
      amount: 300,
      idempotencyKey: "gen-1",
      requestedBy: null,
    });
    expect((await me(ctx.t, ann.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS - 0.3);
  });

  it("charges a user without a key (access-token callers), quantity 1 by default", async () => {
    const { ann, service } = await setUp();
    const res = await consumeRequest(ctx.t, service, {
      user_id: ann.id,
      feature: "image-to-video",
      people: "one",
      idempotency_key: "gen-2",
    });
    expect(await res.json()).toMatchObject({ credit_balance: TEST_FREE_CREDITS - 10, charged: 10 });
    const [row] = await ctx.database.db.select().from(creditSpends);
    expect(row).toMatchObject({ apiKeyId: null, feature: "image-to-video", quantity: 1, amount: 10_000 });
  });

  it("an identical repeat of an idempotency key answers the first result, replayed, and charges nothing", async () => {
    const { ann, service } = await setUp();
    const key = await createKey(ctx.t, ann.accessToken);
    const body = { api_key_id: key.id, feature: "comic", people: "one", idempotency_key: "same" };
    const firstResponse = await consumeRequest(ctx.t, service, body);
    expect(firstResponse.headers.get("idempotent-replayed")).toBeNull();
    const first = await firstResponse.json();
    expect(first.replayed).toBe(false);
    const again = await consumeRequest(ctx.t, service, body);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual({ ...first, replayed: true });
    expect((await me(ctx.t, ann.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS - 5);
    expect(await ctx.database.db.select().from(creditSpends)).toHaveLength(1);
  });

  it("409 for an idempotency key reused with another feature, people, quantity or key; nothing charged", async () => {
    // The review's attack: a cheap charge's key reused for an expensive generation.
    const { ann, service } = await setUp();
    const key = await createKey(ctx.t, ann.accessToken);
    const other = await createKey(ctx.t, ann.accessToken);
    const body = {
      api_key_id: key.id,
      feature: "background-remover",
      people: "one",
      idempotency_key: "job-1",
    };
    expect((await consumeRequest(ctx.t, service, body)).status).toBe(200);
    for (const change of [
      { feature: "image-to-video", quantity: 4 },
      { people: "multiple" },
      { quantity: 2 },
      { api_key_id: other.id },
    ]) {
      const reused = await consumeRequest(ctx.t, service, { ...body, ...change });
      expect(reused.status).toBe(409);
      expect(await reused.json()).toEqual({ detail: DETAIL.idempotencyKeyReused });
    }
    expect(await ctx.database.db.select().from(creditSpends)).toHaveLength(1);
  });

  it("403 for a feature the key may not be used for; 422 for an unknown feature", async () => {
    const { ann, service } = await setUp();
    const key = await createKey(ctx.t, ann.accessToken, { features: ["comic"] });
    const refused = await consumeRequest(ctx.t, service, {
      api_key_id: key.id,
      feature: "multiswap",
      people: "one",
      idempotency_key: "a",
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ detail: DETAIL.featureNotAllowed });
    const unknown = await consumeRequest(ctx.t, service, {
      api_key_id: key.id,
      feature: "teleport",
      people: "one",
      idempotency_key: "b",
    });
    expect(unknown.status).toBe(422);
    expect((await me(ctx.t, ann.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS);
  });

  it("402 once the key's monthly limit would be passed; the limit starts over with the Berlin month", async () => {
    // 12:00 Berlin on 30 November: the month ends in 12 hours.
    ctx.t.clock.set(new Date("2026-11-30T11:00:00Z"));
    const { ann, service } = await setUp();
    const key = await createKey(ctx.t, ann.accessToken, { monthly_credit_limit: 12 });
    const charge = (id: string) =>
      consumeRequest(ctx.t, service, {
        api_key_id: key.id,
        feature: "comic",
        people: "one",
        idempotency_key: id,
      });
    expect((await charge("1")).status).toBe(200);
    expect((await charge("2")).status).toBe(200);
    const third = await charge("3");
    expect(third.status).toBe(402);
    expect(await third.json()).toEqual({ detail: DETAIL.apiKeyCreditLimit });
    // 00:30 Berlin on 1 December is 23:30 UTC on 30 November: a new month.
    ctx.t.clock.set(new Date("2026-11-30T23:30:00Z"));
    expect((await charge("4")).status).toBe(200);
    expect((await introspect(ctx.t, service, key.key)).credits_used_this_month).toBe(5);
  });

  it("402 Insufficient credits beyond the balance; nothing is charged", async () => {
    const { ann, service } = await setUp();
    const res = await consumeRequest(ctx.t, service, {
      user_id: ann.id,
      feature: "image-to-video",
      people: "one",
      quantity: 6,
      idempotency_key: "big",
    });
    expect(res.status).toBe(402);
    expect(await res.json()).toEqual({ detail: "Insufficient credits" });
    expect(await ctx.database.db.select().from(creditSpends)).toHaveLength(0);
  });

  it("404 for an unknown user, an unknown key, a revoked or an expired key", async () => {
    const { ann, service } = await setUp();
    const revoked = await createKey(ctx.t, ann.accessToken, { name: "r" });
    await ctx.t.app.request(`/v1/api-keys/${revoked.id}`, {
      method: "DELETE",
      headers: bearer(ann.accessToken),
    });
    const expired = await createKey(ctx.t, ann.accessToken, { name: "e", expires_in_days: 1 });
    ctx.t.clock.advance(86_400_000);
    const base = { feature: "comic", people: "one", idempotency_key: "x" };
    for (const [target, detail] of [
      [{ user_id: "6c5b1c8e-0000-4000-8000-000000000000" }, DETAIL.userNotFound],
      [{ user_id: "not-a-uuid" }, DETAIL.userNotFound],
      [{ api_key_id: "nosuchkey123" }, DETAIL.apiKeyNotFound],
      [{ api_key_id: revoked.id }, DETAIL.apiKeyNotFound],
      [{ api_key_id: expired.id }, DETAIL.apiKeyNotFound],
    ] as const) {
      const res = await consumeRequest(ctx.t, service, { ...base, ...target });
      expect(res.status, JSON.stringify(target)).toBe(404);
      expect(await res.json()).toEqual({ detail });
    }
  });

  it("422 unless exactly one of user_id and api_key_id is given, and for bad people or quantity", async () => {
    const { ann, service } = await setUp();
    const key = await createKey(ctx.t, ann.accessToken);
    const base = { feature: "comic", people: "one", idempotency_key: "x" };
    for (const body of [
      base,
      { ...base, user_id: ann.id, api_key_id: key.id },
      { ...base, user_id: ann.id, people: "two" },
      { ...base, user_id: ann.id, quantity: 0 },
      { ...base, user_id: ann.id, quantity: 1.5 },
      { ...base, user_id: ann.id, quantity: 10_001 },
      { ...base, user_id: ann.id, idempotency_key: "" },
    ]) {
      expect((await consumeRequest(ctx.t, service, body)).status, JSON.stringify(body)).toBe(422);
    }
  });

  it("takes a service key with scope credits:consume or an admin token; the manual form only from an admin", async () => {
    const { ann } = await setUp();
    const introspectOnly = await serviceKey(ctx.t, ["introspect"]);
    const body = { user_id: ann.id, feature: "comic", people: "one", idempotency_key: "k" };
    expect((await consumeRequest(ctx.t, introspectOnly, body)).status).toBe(403);
    expect((await consumeRequest(ctx.t, ann.accessToken, body)).status).toBe(403);
    const admin = (await staffMember(ctx.t, "boss", "admin")).accessToken;
    // Staff charge by feature only with a reason, which the audit log keeps (staff-charges.test.ts).
    const noReason = await consumeRequest(ctx.t, admin, body);
    expect(noReason.status).toBe(422);
    expect(JSON.stringify(await noReason.json())).toContain('"loc":["body","reason"]');
    expect((await consumeRequest(ctx.t, admin, { ...body, reason: "Test render" })).status).toBe(200);
    const manual = { user_id: ann.id, amount: 1, reason: "goodwill", idempotency_key: "m" };
    expect((await consumeRequest(ctx.t, await serviceKey(ctx.t), manual)).status).toBe(403);
    expect((await consumeRequest(ctx.t, admin, manual)).status).toBe(200);
    expect((await consumeRequest(ctx.t, "nonsense", body)).status).toBe(401);
    // A text that claims to be a service key is judged as one: a wrong checksum or a cut-off key
    // is refused as a service key, never tried as an access token.
    const service = await serviceKey(ctx.t);
    for (const claimed of [`${service.slice(0, -1)}${service.endsWith("0") ? "1" : "0"}`, "gsk_short"]) {
      const refused = await consumeRequest(ctx.t, claimed, body);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe("Bearer");
      expect(await refused.json()).toEqual({ detail: DETAIL.invalidServiceKey });
    }
    const ledger = await getJson(ctx.t.app, "/v1/credits/ledger", ann.accessToken);
    expect(ledger.status).toBe(200);
    expect((await me(ctx.t, ann.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS - 6);
  });

  it("200 parallel charges on one key with a limit never pass the limit", async () => {
    const { ann, service } = await setUp();
    await subscribe(ctx.t, ann.accessToken, "E");
    const key = await createKey(ctx.t, ann.accessToken, { monthly_credit_limit: 333 });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        consumeRequest(ctx.t, service, {
          api_key_id: key.id,
          feature: i % 2 === 0 ? "comic" : "multiswap",
          people: "one",
          idempotency_key: `p-${i}`,
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([200, 402]));
    const spends = await ctx.database.db.select().from(creditSpends).where(eq(creditSpends.apiKeyId, key.id));
    const total = spends.reduce((sum, s) => sum + s.amount, 0);
    expect(total).toBeLessThanOrEqual(333_000);
    // Charged until no charge fits any more. The charges are decided in the order they arrive, which
    // a busy machine shuffles: when the last multiswap (2 credits) comes early, only comics (5) are
    // left to decide, so the total ends within one comic of the limit (330,000 was seen in a run).
    expect(total).toBeGreaterThan(333_000 - 5_000);
    expect(spends).toHaveLength(statuses.filter((s) => s === 200).length);
    expect((await introspect(ctx.t, service, key.key)).credits_used_this_month).toBe(total / 1000);
  });
});
