import { describe, expect, it } from "vitest";
import {
  allowanceLeft,
  LEASE_GRANT_MARGIN_MS,
  type LeaseRoom,
  leaseAmount,
  leaseEnd,
  leaseGrants,
  memberCapRoom,
  outlasting,
  planLease,
  type ReservableGrant,
  unreserved,
  unspentOf,
} from "./credit-leases.ts";
import type { GrantKind } from "./ledger.ts";

// 2026-11-20 13:00 in Berlin (UTC+1).
const NOW = new Date("2026-11-20T12:00:00.000Z");
const MINUTE = 60_000;
const DAY = 86_400_000;

function grant(
  id: string,
  kind: GrantKind,
  remaining: number,
  reserved = 0,
  expiresAt: Date | null = new Date(NOW.getTime() + 10 * DAY),
): ReservableGrant {
  return {
    id,
    kind,
    amount: remaining + 1000,
    remaining,
    reserved,
    grantedAt: new Date(NOW.getTime() - DAY),
    expiresAt,
    source: id,
  };
}

describe("unreserved", () => {
  it("leaves a spend outside leases what leases do not hold", () => {
    const g = grant("a", "topup", 5000, 1200);
    expect(unreserved(g)).toEqual({
      id: "a",
      kind: "topup",
      amount: 6000,
      remaining: 3800,
      grantedAt: g.grantedAt,
      expiresAt: g.expiresAt,
      source: "a",
    });
  });
});

describe("allowanceLeft", () => {
  it("is null without an allowance", () => {
    expect(allowanceLeft(null, 5000, 1000)).toBeNull();
  });
  it("is the allowance less what is used and held", () => {
    expect(allowanceLeft(10_000, 5000, 1000)).toBe(4000);
  });
  it("is never negative (an allowance lowered below what was used)", () => {
    expect(allowanceLeft(4000, 5000, 0)).toBe(0);
  });
});

describe("memberCapRoom", () => {
  it("is null without a cap", () => {
    expect(memberCapRoom(null, 0, 0)).toBeNull();
  });
  it("stops at 80 % of the cap while the month is below it", () => {
    expect(memberCapRoom(10_000, 5000, 1000)).toBe(2000);
    expect(memberCapRoom(10_000, 8000, 0)).toBe(0);
    // 80 % of 10,001 is 8,000.8: the room ends at 8,000, never past the mark.
    expect(memberCapRoom(10_001, 7000, 0)).toBe(1000);
  });
  it("gives the rest of the cap once the month is past the mark", () => {
    expect(memberCapRoom(10_000, 8000, 1)).toBe(1999);
    expect(memberCapRoom(10_000, 9000, 500)).toBe(500);
  });
  it("is never negative (a cap lowered below what was used)", () => {
    expect(memberCapRoom(5000, 6000, 0)).toBe(0);
  });
});

describe("leaseAmount", () => {
  const room = (over: Partial<LeaseRoom> = {}): LeaseRoom => ({
    wanted: 2000,
    unreservedBalance: 100_000,
    keepAbove: 0,
    keyLimitLeft: null,
    memberCapLeft: null,
    lasting: 100_000,
    minimum: 500,
    ...over,
  });

  it("gives what is wanted when there is room", () => {
    expect(leaseAmount(room())).toBe(2000);
  });
  it("holds at most half of what is unreserved above the thresholds", () => {
    expect(leaseAmount(room({ unreservedBalance: 3000 }))).toBe(1500);
    expect(leaseAmount(room({ unreservedBalance: 5000, keepAbove: 1000 }))).toBe(2000);
    expect(leaseAmount(room({ unreservedBalance: 4000, keepAbove: 1000 }))).toBe(1500);
    // Half of an odd number rounds down: what is left stays at least as large as the lease.
    expect(leaseAmount(room({ unreservedBalance: 1001, minimum: 1 }))).toBe(500);
  });
  it("takes none below the thresholds", () => {
    expect(leaseAmount(room({ unreservedBalance: 900, keepAbove: 1000, minimum: 0 }))).toBe(0);
    expect(leaseAmount(room({ unreservedBalance: 1000, keepAbove: 1000, minimum: 0 }))).toBe(0);
  });
  it("holds at most half of what is left of the key's limit or the member's cap", () => {
    expect(leaseAmount(room({ keyLimitLeft: 1400 }))).toBe(700);
    expect(leaseAmount(room({ memberCapLeft: 1201 }))).toBe(600);
    expect(leaseAmount(room({ keyLimitLeft: 1800, memberCapLeft: 1600 }))).toBe(800);
    expect(leaseAmount(room({ keyLimitLeft: 1600, memberCapLeft: 1800 }))).toBe(800);
    expect(leaseAmount(room({ keyLimitLeft: 8000, memberCapLeft: 8000 }))).toBe(2000);
  });
  it("takes none smaller than the minimum, and at the minimum one", () => {
    expect(leaseAmount(room({ keyLimitLeft: 999 }))).toBe(0);
    expect(leaseAmount(room({ keyLimitLeft: 1000 }))).toBe(500);
  });
  it("takes none while unreserved credits would expire before it ends: the lock spends them first", () => {
    expect(leaseAmount(room({ lasting: 99_999 }))).toBe(0);
    expect(leaseAmount(room({ unreservedBalance: 3000, lasting: 2999, minimum: 0 }))).toBe(0);
    expect(leaseAmount(room({ lasting: 100_000 }))).toBe(2000);
    expect(leaseAmount(room({ unreservedBalance: 3000, lasting: 3000 }))).toBe(1500);
  });
  it("takes none of nothing, whatever the minimum", () => {
    expect(leaseAmount(room({ keyLimitLeft: 0, minimum: 0 }))).toBe(0);
    expect(leaseAmount(room({ unreservedBalance: 0, minimum: 0 }))).toBe(0);
  });
});

describe("planLease", () => {
  it("reserves where a spend would take, from unreserved credits", () => {
    const grants = [grant("free", "free", 9000, 0, null), grant("sub", "subscription", 3000, 2000)];
    expect(planLease(grants, 2500, NOW, MINUTE)).toEqual({
      takes: [
        { grantId: "sub", amount: 1000 },
        { grantId: "free", amount: 1500 },
      ],
      expiresAt: new Date(NOW.getTime() + MINUTE),
    });
  });
  it("is null when the unreserved credits are short", () => {
    expect(planLease([grant("a", "topup", 3000, 2000)], 1001, NOW, MINUTE)).toBeNull();
    expect(planLease([grant("a", "topup", 3000, 2000)], 1000, NOW, MINUTE)).not.toBeNull();
  });
  it("reserves only on grants live past its end and the sweep's margin, soonest-expiring first", () => {
    const end = NOW.getTime() + MINUTE;
    const soon = grant("soon", "subscription", 1000, 0, new Date(end + LEASE_GRANT_MARGIN_MS));
    const later = grant("later", "topup", 1000, 0, new Date(end + LEASE_GRANT_MARGIN_MS + 1));
    const never = grant("never", "free", 5000, 0, null);
    expect(planLease([soon, later, never], 1500, NOW, MINUTE)).toEqual({
      takes: [
        { grantId: "later", amount: 1000 },
        { grantId: "never", amount: 500 },
      ],
      expiresAt: new Date(end),
    });
  });
  it("is null when the grants that outlast it are short, however much expires sooner", () => {
    const soon = grant("soon", "subscription", 9000, 0, new Date(NOW.getTime() + 10_000));
    expect(planLease([soon, grant("b", "topup", 1000)], 1001, NOW, MINUTE)).toBeNull();
    expect(planLease([soon, grant("b", "topup", 1000)], 1000, NOW, MINUTE)).toEqual({
      takes: [{ grantId: "b", amount: 1000 }],
      expiresAt: new Date(NOW.getTime() + MINUTE),
    });
  });
  it("ends at the next Berlin month, in which its charges would count elsewhere", () => {
    // 23:59:30 on 30 November in Berlin (UTC+1): the month ends in 30 s.
    const late = new Date("2026-11-30T22:59:30.000Z");
    const grants = [{ ...grant("a", "free", 5000, 0, null), grantedAt: new Date("2026-01-01T00:00:00Z") }];
    expect(planLease(grants, 1000, late, MINUTE)?.expiresAt).toEqual(new Date("2026-11-30T23:00:00.000Z"));
    // A month of 31 days, in summer time (UTC+2).
    const july = new Date("2026-07-31T21:59:00.000Z");
    expect(planLease(grants, 1000, july, 5 * MINUTE)?.expiresAt).toEqual(
      new Date("2026-07-31T22:00:00.000Z"),
    );
    // Early in the month the lifetime decides.
    const early = new Date("2026-12-01T00:00:00.000Z");
    expect(planLease(grants, 1000, early, MINUTE)?.expiresAt).toEqual(new Date(early.getTime() + MINUTE));
  });
});

describe("outlasting", () => {
  const end = new Date(NOW.getTime() + MINUTE);
  it("keeps grants without an end, and those live past the lease's end and the margin", () => {
    const grants = [
      grant("never", "free", 1, 0, null),
      grant("edge", "topup", 1, 0, new Date(end.getTime() + LEASE_GRANT_MARGIN_MS)),
      grant("after", "topup", 1, 0, new Date(end.getTime() + LEASE_GRANT_MARGIN_MS + 1)),
      grant("before", "subscription", 1, 0, new Date(end.getTime() - 1)),
    ];
    expect(outlasting(grants, end).map((g) => g.id)).toEqual(["never", "after"]);
  });
});

describe("leaseEnd", () => {
  it("is the lifetime after now, within the Berlin month", () => {
    expect(leaseEnd(NOW, MINUTE)).toEqual(new Date(NOW.getTime() + MINUTE));
    expect(leaseEnd(new Date("2026-11-30T22:59:30.000Z"), MINUTE)).toEqual(
      new Date("2026-11-30T23:00:00.000Z"),
    );
  });
});

describe("unspentOf", () => {
  const lease = [
    { grantId: "a", amount: 1000 },
    { grantId: "b", amount: 500 },
  ];
  it("gives back all of a lease that charged nothing", () => {
    expect(unspentOf(lease, [])).toEqual({ perGrant: lease, total: 1500 });
  });
  it("gives back what the charges left, per grant, and leaves out grants spent to the end", () => {
    expect(
      unspentOf(lease, [
        { grantId: "a", amount: 600 },
        { grantId: "a", amount: 400 },
        { grantId: "b", amount: 100 },
      ]),
    ).toEqual({ perGrant: [{ grantId: "b", amount: 400 }], total: 400 });
  });
  it("adds up a grant named twice in the reservation", () => {
    expect(unspentOf([...lease, { grantId: "a", amount: 200 }], [{ grantId: "a", amount: 1100 }])).toEqual({
      perGrant: [
        { grantId: "a", amount: 100 },
        { grantId: "b", amount: 500 },
      ],
      total: 600,
    });
  });
  it("refuses charges that took more than the lease held, or from a grant it did not hold", () => {
    expect(() => unspentOf(lease, [{ grantId: "b", amount: 501 }])).toThrow(/more from grant b/);
    expect(unspentOf(lease, [{ grantId: "b", amount: 500 }]).total).toBe(1000);
    expect(() => unspentOf(lease, [{ grantId: "c", amount: 1 }])).toThrow(/grant c, which it did not hold/);
  });
});

describe("leaseGrants", () => {
  it("shows a charge through a lease only the lease's grants, with what it has left of each", () => {
    const grants = [
      grant("a", "subscription", 5000, 3000),
      grant("b", "topup", 5000),
      grant("c", "free", 10),
    ];
    expect(
      leaseGrants(grants, [
        { grantId: "c", amount: 10 },
        { grantId: "a", amount: 2000 },
      ]),
    ).toEqual([
      { ...grants[0], remaining: 2000 },
      { ...grants[2], remaining: 10 },
    ]);
  });
});
