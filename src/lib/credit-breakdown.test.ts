import { describe, expect, it } from "vitest";
import { GOODWILL_SOURCE, type LedgerEntry } from "../../contract/billing.ts";
import { creditBreakdown, creditsLeft, describePart, grantStanding } from "./credit-breakdown.ts";

const NOW = new Date("2026-11-24T10:00:00Z");

const grant = (overrides: Partial<LedgerEntry>): LedgerEntry => ({
  kind: "free",
  amount: 50,
  remaining: 50,
  granted_at: "2026-01-01T00:00:00Z",
  expires_at: null,
  source: "Free credits",
  ...overrides,
});

describe("creditBreakdown", () => {
  it("lists the live parts with credits left in the spend order: subscription, top-up, free", () => {
    // In an order the sort must put right: neither the ledger's nor its reverse is the spend order.
    const entries = [
      grant({ kind: "topup", remaining: 100, expires_at: "2027-02-01T23:00:00Z" }),
      grant({}),
      grant({ kind: "subscription", remaining: 5000, expires_at: "2026-12-22T23:00:00Z" }),
      grant({ kind: "topup", remaining: 500, expires_at: "2027-05-22T22:00:00Z" }),
    ];
    expect(creditBreakdown(entries, NOW)).toEqual([
      { kind: "subscription", credits: 5000, expiresAt: "2026-12-22T23:00:00Z" },
      { kind: "topup", credits: 100, expiresAt: "2027-02-01T23:00:00Z" },
      { kind: "topup", credits: 500, expiresAt: "2027-05-22T22:00:00Z" },
      { kind: "free", credits: 50, expiresAt: null },
    ]);
  });

  it("leaves out spent, expired and not yet granted credits", () => {
    const entries = [
      grant({ remaining: 0 }),
      grant({ kind: "subscription", expires_at: "2026-11-24T10:00:00Z" }), // expires exactly now
      grant({ kind: "subscription", granted_at: "2026-11-24T23:00:00Z", expires_at: "2026-12-24T23:00:00Z" }),
    ];
    expect(creditBreakdown(entries, NOW)).toEqual([]);
  });

  it("counts credits granted at this very instant", () => {
    expect(creditBreakdown([grant({ granted_at: NOW.toISOString() })], NOW)).toEqual([
      { kind: "free", credits: 50, expiresAt: null },
    ]);
  });

  it("merges grants of one kind that expire together, in exact sums", () => {
    const expires = "2027-05-22T22:00:00Z";
    const entries = [
      grant({ kind: "topup", remaining: 0.1, expires_at: expires }),
      grant({ kind: "topup", remaining: 0.2, expires_at: expires }),
    ];
    expect(creditBreakdown(entries, NOW)).toEqual([{ kind: "topup", credits: 0.3, expiresAt: expires }]);
  });

  it("keeps support's grants apart from the sign-up credits, one part per note, oldest first", () => {
    // Newest first, as the ledger answers.
    const entries = [
      grant({ source: GOODWILL_SOURCE, remaining: 5, granted_at: "2026-11-20T00:00:00Z" }),
      grant({
        source: GOODWILL_SOURCE,
        remaining: 250,
        note: "Sorry for Tuesday",
        granted_at: "2026-11-10T00:00:00Z",
      }),
      grant({ source: GOODWILL_SOURCE, remaining: 20, granted_at: "2026-11-05T00:00:00Z" }),
      grant({ granted_at: "2026-01-01T00:00:00Z" }),
    ];
    expect(creditBreakdown(entries, NOW)).toEqual([
      { kind: "free", credits: 50, expiresAt: null },
      { kind: "free", credits: 25, expiresAt: null, goodwill: { note: null } },
      { kind: "free", credits: 250, expiresAt: null, goodwill: { note: "Sorry for Tuesday" } },
    ]);
  });
});

describe("describePart", () => {
  it.each([
    [
      { kind: "subscription", credits: 5000, expiresAt: "2026-12-22T23:00:00Z" },
      "5,000 subscription credits until 2026-12-23 00:00 CET",
    ],
    [
      { kind: "topup", credits: 500, expiresAt: "2027-05-22T22:00:00Z" },
      "500 top-up credits until 2027-05-23 00:00 CEST",
    ],
    [{ kind: "free", credits: 49.9, expiresAt: null }, "49.9 free credits, no expiry"],
    [
      { kind: "free", credits: 250, expiresAt: null, goodwill: { note: "Sorry" } },
      "250 goodwill credits from support, no expiry",
    ],
  ] as const)("%j reads %s", (part, text) => {
    expect(describePart(part)).toBe(text);
  });
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
