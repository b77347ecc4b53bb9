// The organisation calls' request schemas: names, caps and member changes as the forms and the
// server check them.
import { describe, expect, it } from "vitest";
import {
  invitationRequestSchema,
  MEMBER_CAP_MAX,
  memberCapSchema,
  memberChangeSchema,
  ORG_TEXT,
  orgNameRequestSchema,
} from "./orgs.ts";

describe("orgNameRequestSchema", () => {
  it.each([
    ["Acme", "Acme"],
    ["  Acme Labs  ", "Acme Labs"],
    ["ab", "ab"],
    ["a".repeat(60), "a".repeat(60)],
    ["Müller & Söhne (EU) #1", "Müller & Söhne (EU) #1"],
  ])("accepts %j as %j", (name, stored) => {
    expect(orgNameRequestSchema.parse({ name })).toEqual({ name: stored });
  });

  it.each([
    ["a", "Use 2 to 60 characters"],
    ["  a  ", "Use 2 to 60 characters"],
    ["a".repeat(61), "Use 2 to 60 characters"],
    ["a/b", "Use letters, digits, spaces and punctuation other than < > / :"],
    ["tab\there", "Use letters, digits, spaces and punctuation other than < > / :"],
    ["PERSONAL", '"Personal" is the name of your own account'],
  ])("refuses %j: %s", (name, message) => {
    const result = orgNameRequestSchema.safeParse({ name });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => [i.path, i.message])).toEqual([[["name"], message]]);
  });

  it("refuses a name that is not text", () => {
    expect(orgNameRequestSchema.safeParse({ name: 42 }).success).toBe(false);
  });
});

describe("memberCapSchema", () => {
  it.each([0, 0.001, 0.1, 12.345, 1000, MEMBER_CAP_MAX, 99_999_999.999])("accepts %d", (cap) => {
    expect(memberCapSchema.parse(cap)).toBe(cap);
  });

  it.each([-0.001, -1, 0.0001, 1.2345, MEMBER_CAP_MAX + 0.001, Number.NaN, Number.POSITIVE_INFINITY])(
    "refuses %d with the cap's message",
    (cap) => {
      const result = memberCapSchema.safeParse(cap);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe(ORG_TEXT.capInvalid);
    },
  );
});

describe("memberChangeSchema", () => {
  it.each([
    [{ role: "manager" }],
    [{ monthly_credit_cap: null }],
    [{ monthly_credit_cap: 5 }],
    [{ role: "owner", monthly_credit_cap: 1.5 }],
  ])("accepts %j", (body) => {
    expect(memberChangeSchema.parse(body)).toEqual(body);
  });

  it("says beside the role that a change needs a role or a cap", () => {
    const result = memberChangeSchema.safeParse({});
    expect(result.error?.issues.map((i) => [i.path, i.message])).toEqual([
      [["role"], ORG_TEXT.nothingToChange],
    ]);
  });

  it("refuses an unknown role", () => {
    expect(memberChangeSchema.safeParse({ role: "admin" }).success).toBe(false);
  });
});

describe("invitationRequestSchema", () => {
  it.each(["manager", "billing", "developer"])("invites as %s", (role) => {
    expect(invitationRequestSchema.parse({ email: "a@example.com", role })).toEqual({
      email: "a@example.com",
      role,
    });
  });

  it("never invites an owner", () => {
    expect(invitationRequestSchema.safeParse({ email: "a@example.com", role: "owner" }).success).toBe(false);
  });
});
