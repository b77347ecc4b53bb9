import { describe, expect, it } from "vitest";
import { FREE_SUBSCRIPTION } from "../../contract/account.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { mayMakeOwner, orgActionsFor } from "./admin-org-actions.ts";
import { ADMIN_ORG_PAGE_TEXT } from "./admin-org-text.ts";

const org = {
  deleted_at: null,
  disabled_at: null,
  dispute_hold_at: null,
  subscription: FREE_SUBSCRIPTION,
};
const paid = { ...FREE_SUBSCRIPTION, plan: "Tier B", status: "active" };
const AT = "2026-11-20T10:00:00.000Z";

describe("orgActionsFor", () => {
  it.each([
    ["a user", "user", false, org, []],
    ["support", "support", false, org, ["grant"]],
    ["an admin, free plan", "admin", false, org, ["grant", "takeBack", "disable"]],
    ["an admin, disabled", "admin", false, { ...org, disabled_at: AT }, ["grant", "takeBack", "enable"]],
    [
      "an admin, on hold",
      "admin",
      false,
      { ...org, dispute_hold_at: AT },
      ["grant", "takeBack", "disable", "clearDisputeHold"],
    ],
    [
      "an admin, paid plan",
      "admin",
      false,
      { ...org, subscription: paid },
      ["grant", "takeBack", "disable", "cancelAtEnd", "cancelNow"],
    ],
    [
      "an admin, paid plan ending",
      "admin",
      false,
      { ...org, subscription: { ...paid, cancel_at_period_end: true } },
      ["grant", "takeBack", "disable", "cancelNow"],
    ],
    ["an admin who is a member", "admin", true, org, []],
    ["support who is a member", "support", true, org, []],
    ["an admin, deleted", "admin", false, { ...org, deleted_at: AT }, []],
  ] as const)("%s", (_what, role, member, state, expected) => {
    expect(orgActionsFor(role, member, state)).toEqual(expected);
  });
});

describe("mayMakeOwner", () => {
  const admin = { id: "a1", role: "admin" } as const;
  const team = { personal: false, deleted_at: null };
  it.each([
    ["a developer, by an admin", admin, false, team, { user_id: "u2", role: "developer" }, true],
    ["a billing member", admin, false, team, { user_id: "u2", role: "billing" }, true],
    ["an owner", admin, false, team, { user_id: "u2", role: "owner" }, false],
    ["themselves", admin, false, team, { user_id: "a1", role: "developer" }, false],
    ["by support", { id: "s1", role: "support" }, false, team, { user_id: "u2", role: "developer" }, false],
    ["by a member admin", admin, true, team, { user_id: "u2", role: "developer" }, false],
    [
      "in a personal organisation",
      admin,
      false,
      { ...team, personal: true },
      { user_id: "u2", role: "manager" },
      false,
    ],
    [
      "in a deleted one",
      admin,
      false,
      { ...team, deleted_at: AT },
      { user_id: "u2", role: "manager" },
      false,
    ],
  ] as const)("%s", (_what, viewer, member, state, target, expected) => {
    expect(mayMakeOwner(viewer, member, state, target)).toBe(expected);
  });
});

it("names a personal organisation as the portal does", () => {
  expect(ADMIN_ORG_PAGE_TEXT.personal).toBe(ORG_DETAIL.personalName);
  expect(ADMIN_ORG_PAGE_TEXT.personalOf("ann")).toBe(`${ORG_DETAIL.personalName} (ann)`);
});
