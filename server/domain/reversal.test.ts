import { describe, expect, it } from "vitest";
import {
  closedDisputeOutcome,
  creditsToTakeBack,
  disputeStep,
  lostDisputeNeedsHold,
  type PaymentRecord,
  refundedByUs,
  refundStep,
  takenBackByBank,
} from "./reversal.ts";

// A 50 EUR top-up (5,000 cents) that granted 500 credits (500,000 milli-credits).
const PAID: PaymentRecord = { total: 5000, refunded: 0, status: "paid" };
const GRANT = { amount: 500_000, remaining: 500_000, frozen: 0 };

describe("creditsToTakeBack", () => {
  it.each([
    ["a fifth refunded: a fifth of the grant", { delta: 1000, refundedSoFar: 1000 }, GRANT, 100_000],
    [
      "a share rounds down to whole milli-credits",
      { delta: 1, refundedSoFar: 1 },
      { ...GRANT, amount: 333 },
      0,
    ],
    [
      "a share is at most what is left",
      { delta: 2500, refundedSoFar: 2500 },
      { ...GRANT, remaining: 1000 },
      1000,
    ],
    [
      "the whole payment refunded: all that is left",
      { delta: 5000, refundedSoFar: 5000 },
      { ...GRANT, remaining: 123_456 },
      123_456,
    ],
    [
      "the last part of a refund: all that is left",
      { delta: 1000, refundedSoFar: 5000 },
      { ...GRANT, remaining: 400_000 },
      400_000,
    ],
    [
      "more than the total counts as the whole",
      { delta: 6000, refundedSoFar: 6000 },
      { ...GRANT, remaining: 7 },
      7,
    ],
    ["nothing refunded: nothing", { delta: 0, refundedSoFar: 1000 }, GRANT, 0],
    ["nothing new, though all is refunded: nothing", { delta: 0, refundedSoFar: 5000 }, GRANT, 0],
    ["a negative delta: nothing", { delta: -1, refundedSoFar: 1000 }, GRANT, 0],
  ])("%s", (_case, p, grant, expected) => {
    expect(creditsToTakeBack(grant, { ...p, total: 5000 })).toBe(expected);
  });

  it.each([0, -100])("a payment of %i takes nothing back", (total) => {
    expect(creditsToTakeBack(GRANT, { delta: 100, refundedSoFar: 100, total })).toBe(0);
  });
});

describe("refundStep", () => {
  it("a partial refund takes back its share and keeps the status", () => {
    expect(refundStep(PAID, 2000, GRANT)).toEqual({
      refundedSoFar: 2000,
      takenBack: 200_000,
      fromFrozen: 0,
      status: "paid",
    });
  });

  it("counts only what is new since the last refund (Stripe's amount is cumulative)", () => {
    const once = { ...PAID, refunded: 2000 };
    expect(refundStep(once, 3000, GRANT)).toEqual({
      refundedSoFar: 3000,
      takenBack: 100_000,
      fromFrozen: 0,
      status: "paid",
    });
  });

  it("the rest refunded: all credits left, and the payment is refunded", () => {
    const once = { ...PAID, refunded: 2000 };
    expect(refundStep(once, 5000, { ...GRANT, remaining: 250_000 })).toEqual({
      refundedSoFar: 5000,
      takenBack: 250_000,
      fromFrozen: 0,
      status: "refunded",
    });
  });

  it("a refund above the total counts as the total", () => {
    expect(refundStep(PAID, 9000, GRANT)).toEqual({
      refundedSoFar: 5000,
      takenBack: 500_000,
      fromFrozen: 0,
      status: "refunded",
    });
  });

  it("during a dispute takes from what it froze first, then from what is left", () => {
    // 150,000 spent before the dispute froze the 350,000 left.
    const disputed = { ...PAID, status: "disputed" as const };
    const grant = { amount: 500_000, remaining: 0, frozen: 350_000 };
    // Half the payment: half the grant, all of it out of the frozen.
    expect(refundStep(disputed, 2500, grant)).toEqual({
      refundedSoFar: 2500,
      takenBack: 250_000,
      fromFrozen: 250_000,
      status: "disputed",
    });
    // All of it: every unspent credit.
    expect(refundStep(disputed, 5000, grant)).toMatchObject({ takenBack: 350_000, fromFrozen: 350_000 });
    // Where both hold some, the frozen go first.
    expect(refundStep(disputed, 5000, { ...grant, remaining: 50_000, frozen: 300_000 })).toMatchObject({
      takenBack: 350_000,
      fromFrozen: 300_000,
    });
  });

  it("keeps a disputed payment disputed while part is refunded", () => {
    expect(refundStep({ ...PAID, status: "disputed" }, 1000, GRANT)?.status).toBe("disputed");
  });

  it.each([
    ["a redelivery", 2000],
    ["a late event of an earlier partial refund", 1000],
  ])("%s changes nothing", (_case, amountRefunded) => {
    expect(refundStep({ ...PAID, refunded: 2000 }, amountRefunded, GRANT)).toBeNull();
  });

  it("a payment without a grant is refunded with no credits to take", () => {
    expect(refundStep(PAID, 5000, undefined)).toEqual({
      refundedSoFar: 5000,
      takenBack: 0,
      fromFrozen: 0,
      status: "refunded",
    });
  });
});

describe("disputeStep", () => {
  const spentSome = { remaining: 300_000, frozen: 0 };

  it("a new dispute freezes what is left", () => {
    expect(disputeStep(spentSome, PAID, { phase: "created", won: false })).toEqual({
      kind: "dispute_freeze",
      amount: 300_000,
      grant: { remaining: 0, frozen: 300_000 },
      payment: { status: "disputed", refunded: 0 },
    });
  });

  it("adds to what is frozen already", () => {
    expect(disputeStep({ remaining: 5, frozen: 10 }, PAID, { phase: "created", won: false }).grant).toEqual({
      remaining: 0,
      frozen: 15,
    });
  });

  it("a won dispute gives the frozen credits back and the payment is paid again", () => {
    expect(disputeStep({ remaining: 0, frozen: 300_000 }, PAID, { phase: "closed", won: true })).toEqual({
      kind: "dispute_won",
      amount: 300_000,
      grant: { remaining: 300_000, frozen: 0 },
      payment: { status: "paid", refunded: 0 },
    });
  });

  it("a won dispute of a payment refunded in full leaves it refunded", () => {
    const refunded = { ...PAID, refunded: 5000 };
    expect(disputeStep({ remaining: 2, frozen: 3 }, refunded, { phase: "closed", won: true })).toMatchObject({
      grant: { remaining: 5, frozen: 0 },
      payment: { status: "refunded", refunded: 5000 },
    });
  });

  it("a won dispute of a payment refunded in part is paid", () => {
    const part = { ...PAID, refunded: 4999 };
    expect(disputeStep({ remaining: 0, frozen: 1 }, part, { phase: "closed", won: true }).payment).toEqual({
      status: "paid",
      refunded: 4999,
    });
  });

  it("a lost dispute takes everything, frozen or not, and the money", () => {
    expect(disputeStep({ remaining: 7, frozen: 300_000 }, PAID, { phase: "closed", won: false })).toEqual({
      kind: "dispute_lost",
      amount: 300_007,
      grant: { remaining: 0, frozen: 0 },
      payment: { status: "refunded", refunded: 5000 },
    });
  });
});

describe("lostDisputeNeedsHold", () => {
  it.each([
    ["nothing spent: all frozen", { amount: 500, remaining: 0, frozen: 500 }, 0, false],
    ["nothing spent: some refunded back before", { amount: 500, remaining: 0, frozen: 300 }, 200, false],
    ["nothing spent: staff took some back", { amount: 500, remaining: 100, frozen: 300 }, 100, false],
    ["one credit spent", { amount: 500, remaining: 0, frozen: 499 }, 0, true],
    ["most spent", { amount: 500, remaining: 0, frozen: 20 }, 100, true],
    ["all spent", { amount: 500, remaining: 0, frozen: 0 }, 0, true],
  ])("%s", (_case, grant, takenBack, hold) => {
    expect(lostDisputeNeedsHold(grant, takenBack)).toBe(hold);
  });
});

describe("closedDisputeOutcome", () => {
  it("takes the money back only for a lost dispute", () => {
    expect(closedDisputeOutcome("lost")).toBe("lost");
    for (const kept of ["won", "warning_closed", "prevented"]) expect(closedDisputeOutcome(kept)).toBe("won");
    for (const other of ["charge_refunded", "needs_response", "warning_under_review", ""])
      expect(closedDisputeOutcome(other)).toBe("unknown");
  });
});

describe("takenBackByBank", () => {
  it("is what went back less our refunds before the dispute", () => {
    expect(takenBackByBank(5950, 0)).toBe(5950);
    expect(takenBackByBank(5950, 1000)).toBe(4950);
  });

  it("is nothing after a full refund, never below nothing", () => {
    expect(takenBackByBank(5950, 5950)).toBe(0);
    expect(takenBackByBank(5950, 6000)).toBe(0);
  });
});

describe("refundedByUs", () => {
  it("is nothing without a refund", () => {
    expect(refundedByUs([], 5950)).toBe(0);
  });

  it("is a charge's latest cumulative amount, whatever order the facts come in", () => {
    expect(refundedByUs(["refund:ch_1A2b:1000"], 5950)).toBe(1000);
    expect(refundedByUs(["refund:ch_1A2b:2500", "refund:ch_1A2b:1000"], 5950)).toBe(2500);
    expect(refundedByUs(["refund:ch_1A2b:1000", "refund:ch_1A2b:2500"], 5950)).toBe(2500);
  });

  it("adds up the charges' amounts", () => {
    expect(refundedByUs(["refund:ch_1:1000", "refund:ch_2:500", "refund:ch_1:1500"], 5950)).toBe(2000);
  });

  it("is never more than the payment's total", () => {
    expect(refundedByUs(["refund:ch_1:6000"], 5950)).toBe(5950);
    expect(refundedByUs([], 5950, 6000)).toBe(5950);
  });

  it("counts the credit notes when they say more (a refund that took no credits back)", () => {
    expect(refundedByUs([], 5950, 1000)).toBe(1000);
    expect(refundedByUs(["refund:ch_1:2500"], 5950, 1000)).toBe(2500);
    expect(refundedByUs(["refund:ch_1:1000"], 5950, 2500)).toBe(2500);
  });

  it("ignores what is not a refund fact", () => {
    const others = [
      "dispute:du_1:created",
      "xrefund:ch_1:100",
      "refund:ch_1:100x",
      "refund:ch_1:",
      "refund::100",
      "refund:ch_1:-100",
    ];
    expect(refundedByUs(others, 5950)).toBe(0);
  });
});
