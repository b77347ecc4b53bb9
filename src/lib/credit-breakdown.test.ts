import { describe, expect, it } from "vitest";
import { GOODWILL_SOURCE, type LedgerEntry } from "../../contract/billing.ts";
import { creditBreakdown, describePart } from "./credit-breakdown.ts";

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
