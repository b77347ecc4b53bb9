import { describe, expect, it } from "vitest";
import { ADMIN_TEXT } from "../../contract/admin-rules.ts";
import {
  availableActions,
  creditsProblem,
  parseCredits,
  parseIsoDayEnd,
  parseMoney,
  refundable,
  refundMade,
  refundRecorded,
  refundsNotRecorded,
  refusedField,
} from "./admin-actions.ts";
import { adminCustomer } from "./admin-customer-fixture.ts";
import { CREDIT_PROBLEMS } from "./admin-text.ts";

const customer = adminCustomer;
const paid = customer({
  subscription: {
    plan: "Tier B",
    product_id: "prod_b",
    status: "active",
    expires_at: "2026-12-01T00:00:00.000Z",
    cancel_at_period_end: false,
    scheduled_plan: null,
  },
});

describe("availableActions (OPERATIONS.md's permission table, as the page offers it)", () => {
  it.each([
    ["support, a verified customer", "support", customer(), ["grant", "sendReset"]],
    [
      "support, an unverified one",
      "support",
      customer({ email_verified: false }),
      ["grant", "sendVerification", "sendReset"],
    ],
    ["admin, a FREE customer", "admin", customer(), ["grant", "takeBack", "sendReset", "role", "disable"]],
    [
      "admin, a paying customer",
      "admin",
      paid,
      ["grant", "takeBack", "sendReset", "cancelAtEnd", "cancelNow", "role", "disable"],
    ],
    [
      "admin, a plan cancelled at the period end",
      "admin",
      customer({ ...paid, subscription: { ...paid.subscription, cancel_at_period_end: true } }),
      ["grant", "takeBack", "sendReset", "cancelNow", "role", "disable"],
    ],
    [
      "admin, a disabled account",
      "admin",
      customer({ disabled_at: "2026-11-20T10:00:00.000Z" }),
      ["grant", "takeBack", "sendReset", "role", "enable"],
    ],
  ] as const)("%s", (_case, role, shown, expected) => {
    expect(availableActions(role, "staff-1", shown)).toEqual(expected);
  });

  it("offers to clear a dispute hold to admins only", () => {
    const held = customer({ dispute_hold_at: "2026-11-20T10:00:00.000Z" });
    expect(availableActions("admin", "staff-1", held)).toContain("clearDisputeHold");
    expect(availableActions("support", "staff-1", held)).not.toContain("clearDisputeHold");
  });

  it("offers nothing that touches credits, the role or access on one's own account", () => {
    expect(availableActions("admin", "c1", customer())).toEqual(["sendReset"]);
    // An admin whose own account was disabled (by another admin) cannot enable it themselves.
    expect(availableActions("admin", "c1", customer({ disabled_at: "2026-11-20T10:00:00.000Z" }))).toEqual([
      "sendReset",
    ]);
  });

  it("offers support neither disabling nor enabling an account", () => {
    const disabled = customer({ disabled_at: "2026-11-20T10:00:00.000Z" });
    expect(availableActions("support", "staff-1", disabled)).toEqual(["grant", "sendReset"]);
  });
});

describe("parseCredits", () => {
  it.each([
    ["100", 100],
    [" 2.5 ", 2.5],
    ["0,125", 0.125],
    ["0.001", 0.001],
  ])("%j -> %s", (text, credits) => {
    expect(parseCredits(text)).toBe(credits);
  });

  it.each([[""], ["0"], ["-5"], ["1.0001"], ["abc"], ["Infinity"]])("refuses %j", (text) => {
    expect(parseCredits(text)).toBeNull();
  });
});

describe("creditsProblem", () => {
  it.each([
    ["100", "grant"],
    [" 2,5 ", "grant"],
    ["0.001", "takeBack"],
    ["1000000", "grant"],
  ] as const)("reads %j for a %s", (text, kind) => {
    expect(creditsProblem(text, kind)).toBeNull();
  });

  it.each([
    ["", "grant", ADMIN_TEXT.amountRequired],
    ["   ", "takeBack", ADMIN_TEXT.amountRequired],
    ["abc", "grant", CREDIT_PROBLEMS.notANumber],
    ["Infinity", "grant", CREDIT_PROBLEMS.notANumber],
    // A minus sign in a grant: the console takes credits back with its own action, never here.
    ["-10", "grant", CREDIT_PROBLEMS.grantAboveZero],
    ["0", "grant", CREDIT_PROBLEMS.grantAboveZero],
    ["-10", "takeBack", CREDIT_PROBLEMS.takeBackAboveZero],
    ["0,0", "takeBack", CREDIT_PROBLEMS.takeBackAboveZero],
    ["1.0001", "grant", CREDIT_PROBLEMS.decimals],
    // A decimal comma is a decimal point: 0,0001 is a ten-thousandth, not 1.
    ["0,0001", "grant", CREDIT_PROBLEMS.decimals],
    ["-1.0001", "grant", CREDIT_PROBLEMS.grantAboveZero],
    ["1000000.001", "grant", ADMIN_TEXT.amountTooLarge],
    ["2000000", "takeBack", ADMIN_TEXT.amountTooLarge],
  ] as const)("%j for a %s: %s", (text, kind, message) => {
    expect(creditsProblem(text, kind)).toBe(message);
  });

  it("says nothing untrue of a negative amount", () => {
    expect(creditsProblem("-10", "grant")).not.toMatch(/other than 0|decimals/);
  });
});

describe("refusedField", () => {
  const fields = ["amount", "expires_at", "reason"];

  it("names the body's field of a 422's first error, when the dialog has it", () => {
    const detail = [
      { loc: ["body", "amount"], msg: ADMIN_TEXT.amountInvalid, type: "custom" },
      { loc: ["body", "reason"], msg: ADMIN_TEXT.reasonTooShort, type: "custom" },
    ];
    expect(refusedField(detail, fields)).toBe("amount");
    expect(refusedField([{ loc: ["body", "expires_at"], msg: "x" }], fields)).toBe("expires_at");
    expect(refusedField([{ loc: ["body", "reason", 0], msg: "x" }], fields)).toBe("reason");
  });

  it("leaves a refusal of the action as a whole, or of a field the dialog lacks, to the dialog", () => {
    expect(refusedField("Only an admin may do this", fields)).toBeNull();
    expect(refusedField(undefined, fields)).toBeNull();
    expect(refusedField([], fields)).toBeNull();
    expect(refusedField([{ msg: "x" }], fields)).toBeNull();
    expect(refusedField([{ loc: "body.amount" }], fields)).toBeNull();
    expect(refusedField([{ loc: ["body", "idempotency_key"] }], fields)).toBeNull();
    expect(refusedField([{ loc: ["query", "amount"] }], fields)).toBeNull();
    expect(refusedField([{ loc: ["body"] }], fields)).toBeNull();
    expect(refusedField([{ loc: ["body", 0] }], [...fields, "0"])).toBeNull();
  });
});

describe("parseIsoDayEnd", () => {
  it("reads an ISO day as the last second of that day in Berlin, in winter and in summer", () => {
    expect(parseIsoDayEnd("2026-12-31")).toBe("2026-12-31T22:59:59.000Z");
    expect(parseIsoDayEnd(" 2028-02-29 ")).toBe("2028-02-29T22:59:59.000Z");
    expect(parseIsoDayEnd("2026-07-15")).toBe("2026-07-15T21:59:59.000Z");
    // The days the clocks change end on the new offset: summer time from 29 March, winter from 25 October.
    expect(parseIsoDayEnd("2026-03-29")).toBe("2026-03-29T21:59:59.000Z");
    expect(parseIsoDayEnd("2026-10-25")).toBe("2026-10-25T22:59:59.000Z");
  });

  it.each([
    [""],
    ["2026-02-30"],
    ["2026-13-01"],
    ["26-12-31"],
    ["12/31/2026"],
    ["2026-12-31T10:00"],
    ["2026-1-05"],
    ["x2026-12-31"],
    ["2026-12-31x"],
    ["+002026-12-31"],
  ])("refuses %j", (text) => {
    expect(parseIsoDayEnd(text)).toBeNull();
  });
});

describe("parseMoney", () => {
  it.each([
    ["5", 500],
    ["5.95", 595],
    ["5,9", 590],
    ["12.50", 1250],
    [" 0.01 ", 1],
  ])("%j -> %s", (text, cents) => {
    expect(parseMoney(text)).toBe(cents);
  });

  it.each([[""], ["0"], ["0.00"], ["-1"], ["1.234"], ["1e3"], ["€5"]])("refuses %j", (text) => {
    expect(parseMoney(text)).toBeNull();
  });
});

describe("refundable", () => {
  it.each([
    ["a paid payment: all of it", { status: "paid", total: 1190, refunded: 0 }, 1190],
    ["a partly refunded one: the rest", { status: "paid", total: 1190, refunded: 190 }, 1000],
    ["a fully refunded one: nothing", { status: "refunded", total: 1190, refunded: 1190 }, 0],
    ["a failed one: nothing", { status: "failed", total: 1190, refunded: 0 }, 0],
    ["a disputed one: nothing", { status: "disputed", total: 1190, refunded: 0 }, 0],
  ])("%s", (_case, payment, left) => {
    expect(refundable(payment)).toBe(left);
  });
});

describe("refundMade", () => {
  it.each([
    ["succeeded", true],
    ["pending", true],
    ["requires_action", true],
    ["failed", false],
    ["canceled", false],
  ])("a refund the provider answered %s: money goes back is %s", (status, made) => {
    expect(refundMade(status)).toBe(made);
  });
});

describe("refundRecorded", () => {
  it.each([
    ["nothing refunded yet", 0, 1190, false],
    ["an earlier part only", 190, 1190, false],
    ["just that", 1190, 1190, true],
    ["more since (another refund)", 1190, 1000, true],
  ])("%s", (_case, listed, asked, recorded) => {
    expect(refundRecorded({ refunded: listed }, asked)).toBe(recorded);
  });
});

describe("refundsNotRecorded (the refunds asked from the console the list does not count yet)", () => {
  const listed = [
    { id: "p1", refunded: 0 },
    { id: "p2", refunded: 190 },
    { id: "p3", refunded: 1190 },
  ];

  // Strictly: a payment none was asked of has no key at all, not one holding undefined.
  it("is nothing when none was asked", () => {
    expect(refundsNotRecorded(listed, new Map())).toStrictEqual({});
  });

  it("keeps a refund the list does not count, whole or in part, with what it leaves refunded", () => {
    expect(refundsNotRecorded(listed, new Map([["p1", 1190]]))).toStrictEqual({ p1: 1190 });
    expect(refundsNotRecorded(listed, new Map([["p2", 690]]))).toStrictEqual({ p2: 690 });
    expect(refundsNotRecorded(listed, new Map([["p2", 191]]))).toStrictEqual({ p2: 191 });
  });

  it("leaves out a refund the list counts, or more than it, and a payment the list does not hold", () => {
    const asked = new Map([
      ["p1", 1190],
      ["p2", 190],
      ["p3", 1000],
      ["p9", 500],
    ]);
    expect(refundsNotRecorded(listed, asked)).toStrictEqual({ p1: 1190 });
  });
});
