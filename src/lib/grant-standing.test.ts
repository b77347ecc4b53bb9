import { describe, expect, it } from "vitest";
import { creditsLeft, type Grant, grantStanding } from "./grant-standing.ts";

const NOW = new Date("2026-11-24T10:00:00Z");

const grant = (overrides: Partial<Grant & { kind: string; amount: number }>): Grant => ({
  remaining: 50,
  granted_at: "2026-01-01T00:00:00Z",
  expires_at: null,
  ...overrides,
});

describe("grantStanding and creditsLeft (the console's credits table)", () => {
  // A Tier A grant that ran out two months before NOW with all of it unspent.
  const expired = grant({
    kind: "subscription",
    amount: 1000,
    remaining: 1000,
    granted_at: "2026-08-31T22:00:00Z",
    expires_at: "2026-09-30T22:00:00Z",
  });

  it("an expired grant has nothing left, whatever the ledger kept of it", () => {
    expect(grantStanding(expired, NOW)).toBe("expired");
    expect(creditsLeft(expired, NOW)).toBe(0);
  });

  it("expires exactly at its expiry, not a millisecond later", () => {
    const atExpiry = grant({ remaining: 7, expires_at: NOW.toISOString() });
    expect(grantStanding(atExpiry, NOW)).toBe("expired");
    expect(creditsLeft(atExpiry, NOW)).toBe(0);
    const justBefore = grant({ remaining: 7, expires_at: new Date(NOW.getTime() + 1).toISOString() });
    expect(grantStanding(justBefore, NOW)).toBe("live");
    expect(creditsLeft(justBefore, NOW)).toBe(7);
  });

  it("a live grant keeps what it has left; credits that never expire stay live", () => {
    expect(grantStanding(grant({ remaining: 12.5 }), NOW)).toBe("live");
    expect(creditsLeft(grant({ remaining: 12.5 }), NOW)).toBe(12.5);
    const grantedNow = grant({ granted_at: NOW.toISOString(), expires_at: "2026-12-24T23:00:00Z" });
    expect(grantStanding(grantedNow, NOW)).toBe("live");
  });

  it("a renewal granted after now is upcoming, its credits still to come", () => {
    const renewal = grant({
      kind: "subscription",
      remaining: 1000,
      granted_at: new Date(NOW.getTime() + 1).toISOString(),
      expires_at: "2026-12-24T23:00:00Z",
    });
    expect(grantStanding(renewal, NOW)).toBe("upcoming");
    expect(creditsLeft(renewal, NOW)).toBe(1000);
  });

  it("sums to the balance the page shows for the live grants", () => {
    const entries = [expired, grant({ remaining: 50 }), grant({ kind: "topup", remaining: 0.5 })];
    const left = entries.reduce((sum, e) => sum + creditsLeft(e, NOW), 0);
    expect(left).toBe(50.5);
  });
});
