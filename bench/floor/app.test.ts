import { describe, expect, it } from "vitest";
import { decideBatch, type FloorCharge } from "./app.ts";

const NOW = new Date("2026-11-28T12:00:00Z");
const ORG = "00000000-0000-4000-8000-000000000001";
const MEMBER = "00000000-0000-4000-8000-000000000002";

const charge = (idempotencyKey: string, overrides: Partial<FloorCharge> = {}): FloorCharge => ({
  apiKeyId: "key1",
  feature: "background-remover",
  people: "one",
  quantity: 1,
  idempotencyKey,
  now: NOW,
  ...overrides,
});

/** The batch reads' answers as postgres.js gives them (bigints as text): lock, keys, earlier, grants, key usage, member usage. */
function reads(
  overrides: { remaining?: string; cap?: string | null; earlier?: Record<string, unknown>[] } = {},
) {
  return [
    [
      {
        id: ORG,
        personal: false,
        disabled_at: null,
        deleted_at: null,
        dispute_hold_at: null,
        user_disabled_at: null,
      },
    ],
    [
      {
        id: "key1",
        user_id: ORG,
        created_by: MEMBER,
        shared: false,
        monthly_credit_limit: null,
        features: null,
        expires_at: null,
        revoked_at: null,
        creator_disabled_at: null,
        monthly_credit_cap: overrides.cap === undefined ? null : overrides.cap,
        member_user_id: MEMBER,
      },
    ],
    overrides.earlier ?? [],
    [
      {
        id: "grant1",
        kind: "topup",
        amount: "1000000",
        remaining: overrides.remaining ?? "1000000",
        granted_at: new Date("2026-01-01T00:00:00Z"),
        expires_at: null,
        source: "Benchmark credits",
        user_id: ORG,
      },
    ],
    [{ api_key_id: "key1", month: "2026-11-01", amount: "500" }],
    [{ org_id: ORG, user_id: MEMBER, month: "2026-11-01", amount: "500" }],
  ];
}

describe("the floor's consume batch", () => {
  it("decides in arrival order: a repeat in the same batch answers the first, one write sums the rest", () => {
    const { answers, write } = decideBatch([charge("a"), charge("a"), charge("b")], reads());
    expect(answers.map((a) => [a.status, a.replayed ?? false])).toEqual([
      [200, false],
      [200, true],
      [200, false],
    ]);
    expect(answers[1]?.body).toMatchObject({ credit_balance: 999.9, charged: 0.1, replayed: true });
    expect(answers[2]?.body).toMatchObject({ credit_balance: 999.8, replayed: false });
    const [grantIds, amounts, spends, daily, keyUsage, memberUsage] = write ?? [];
    expect([grantIds, amounts]).toEqual([["grant1"], ["200"]]);
    expect(JSON.parse(spends as string)).toHaveLength(2);
    expect(JSON.parse(daily as string)).toEqual([
      {
        user_id: ORG,
        day: "2026-11-28",
        feature: "background-remover",
        api_key_id: "key1",
        uses: 2,
        credits: 200,
      },
    ]);
    expect(JSON.parse(keyUsage as string)).toEqual([
      { api_key_id: "key1", month: "2026-11-01", amount: 200, reserved: 0 },
    ]);
    expect(JSON.parse(memberUsage as string)).toEqual([
      { org_id: ORG, user_id: MEMBER, month: "2026-11-01", amount: 200, reserved: 0 },
    ]);
  });

  it("answers what the project answers: unknown key 404, credits short or the member's cap reached 402, no write", () => {
    expect(decideBatch([charge("a", { apiKeyId: "nope" })], reads()).answers[0]?.status).toBe(404);
    const short = decideBatch([charge("a")], reads({ remaining: "50" }));
    expect([short.answers[0]?.status, short.write]).toEqual([402, undefined]);
    const capped = decideBatch([charge("a")], reads({ cap: "550" }));
    expect(capped.answers[0]?.status).toBe(402);
  });

  it("answers an earlier spend of the same organisation and idempotency key as a replay", () => {
    const earlier = [
      { id: "spend0", user_id: ORG, idempotency_key: "a", amount: "100", balance_after: "5000" },
    ];
    const { answers, write } = decideBatch([charge("a")], reads({ earlier }));
    expect(answers[0]).toEqual({
      status: 200,
      replayed: true,
      body: { credit_balance: 5, charged: 0.1, ledger_entry_id: "spend0", replayed: true },
    });
    expect(write).toBeUndefined();
  });
});
