import { describe, expect, it } from "vitest";
import { autoTopUpDueAfter, decideInLease, type HeldLease, LEASE_END_MARGIN_MS } from "./lease-decisions.ts";
import type { SpendRequest } from "./spends.ts";

const NOW = new Date("2026-11-20T12:00:00.000Z");
const LATER = new Date(NOW.getTime() + 30_000);

function held(over: Partial<HeldLease> = {}): HeldLease {
  return {
    id: "lease",
    orgId: "org",
    apiKeyId: "key",
    memberId: null,
    month: "2026-11-01",
    key: { revokedAt: null, expiresAt: null, features: null },
    autoTopUpThreshold: null,
    grants: [
      {
        id: "sub",
        kind: "subscription",
        amount: 10_000,
        remaining: 1000,
        grantedAt: new Date("2026-11-01T00:00:00Z"),
        expiresAt: new Date("2026-12-01T00:00:00Z"),
        source: "Tier A",
      },
      {
        id: "free",
        kind: "free",
        amount: 50_000,
        remaining: 2000,
        grantedAt: new Date("2026-01-01T00:00:00Z"),
        expiresAt: null,
        source: "Free",
      },
    ],
    expiresAt: LATER,
    ...over,
  };
}

function request(over: Partial<SpendRequest> = {}, meter: Partial<NonNullable<SpendRequest["meter"]>> = {}) {
  return {
    userId: undefined,
    amount: 1500,
    reason: "Comic",
    idempotencyKey: "i",
    requestedBy: null,
    now: NOW,
    meter: { apiKeyId: "key", feature: "comic", people: "one", quantity: 1, month: "2026-11-01", ...meter },
    ...over,
  } satisfies SpendRequest;
}

describe("decideInLease", () => {
  it("takes a charge from the lease's grants in spending order", () => {
    expect(decideInLease(held(), request())).toEqual({
      through: "lease",
      takes: [
        { grantId: "sub", amount: 1000 },
        { grantId: "free", amount: 500 },
      ],
    });
  });

  it("takes all the lease has left, and sends more than that to the lock for a new lease", () => {
    expect(decideInLease(held(), request({ amount: 3000 }))).toMatchObject({ through: "lease" });
    expect(decideInLease(held(), request({ amount: 3001 }))).toEqual({ through: "lock", renew: true });
  });

  it("stops a margin before the lease's end, for a new lease", () => {
    const end = new Date(NOW.getTime() + LEASE_END_MARGIN_MS);
    expect(decideInLease(held({ expiresAt: end }), request())).toEqual({ through: "lock", renew: true });
    const justBefore = new Date(end.getTime() + 1);
    expect(decideInLease(held({ expiresAt: justBefore }), request())).toMatchObject({ through: "lease" });
  });

  it("leaves to the lock what it cannot decide, keeping the lease", () => {
    const lock = { through: "lock", renew: false };
    expect(decideInLease(held(), { ...request(), meter: undefined })).toEqual(lock);
    expect(decideInLease(held(), request({}, { apiKeyId: "other" }))).toEqual(lock);
    expect(decideInLease(held(), request({}, { month: "2026-12-01" }))).toEqual(lock);
    expect(decideInLease(held(), request({ recordedAt: new Date("2026-10-01T00:00:00Z") }))).toEqual(lock);
    expect(decideInLease(held(), request({ userId: "org" }))).toEqual(lock);
    const features = (list: string[] | null) =>
      held({ key: { revokedAt: null, expiresAt: null, features: list } });
    expect(decideInLease(features(["filters"]), request())).toEqual(lock);
    expect(decideInLease(features(["filters", "comic"]), request())).toMatchObject({ through: "lease" });
  });

  it("leaves a key that expired or was revoked to the lock, which refuses it", () => {
    const key = (k: Partial<HeldLease["key"]>) =>
      held({ key: { revokedAt: null, expiresAt: null, features: null, ...k } });
    expect(decideInLease(key({ expiresAt: NOW }), request())).toEqual({ through: "lock", renew: false });
    expect(decideInLease(key({ expiresAt: new Date(NOW.getTime() + 1) }), request())).toMatchObject({
      through: "lease",
    });
    expect(decideInLease(key({ revokedAt: NOW }), request())).toEqual({ through: "lock", renew: false });
  });
});

describe("autoTopUpDueAfter", () => {
  it("asks auto top-up to look when a lease's charge left the balance below its threshold", () => {
    const on = { autoTopUpThreshold: 100_000 };
    expect(autoTopUpDueAfter(on, 99_999)).toBe(true);
    expect(autoTopUpDueAfter(on, 0)).toBe(true);
  });

  it("does not at or above the threshold, nor when auto top-up was off when the lease was taken", () => {
    expect(autoTopUpDueAfter({ autoTopUpThreshold: 100_000 }, 100_000)).toBe(false);
    expect(autoTopUpDueAfter({ autoTopUpThreshold: 100_000 }, 250_000)).toBe(false);
    expect(autoTopUpDueAfter({ autoTopUpThreshold: null }, 0)).toBe(false);
    // Off is off, not a threshold of 0 (JavaScript would compare with null as with 0).
    expect(autoTopUpDueAfter({ autoTopUpThreshold: null }, -1)).toBe(false);
  });
});
