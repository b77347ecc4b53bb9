import { describe, expect, it } from "vitest";
import { ADMIN_ORG_TEXT } from "../../contract/admin-org-rules.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { makeOwnerRefusal, orgFlagRefusal, staffOnOrgRefusal } from "./org-permissions.ts";

const team = { personal: false, deleted: false };

describe("staffOnOrgRefusal", () => {
  it.each([
    ["a team organisation the staff member is not in", team, undefined, null],
    ["a personal organisation of someone else", { personal: true, deleted: false }, undefined, null],
    ["one they own", team, "owner", { status: 403, detail: ADMIN_ORG_TEXT.notOwnOrganisation }],
    [
      "one they are a developer of",
      team,
      "developer",
      { status: 403, detail: ADMIN_ORG_TEXT.notOwnOrganisation },
    ],
    [
      "one they are a billing member of",
      team,
      "billing",
      { status: 403, detail: ADMIN_ORG_TEXT.notOwnOrganisation },
    ],
    [
      "a deleted one",
      { personal: false, deleted: true },
      undefined,
      { status: 409, detail: ADMIN_ORG_TEXT.orgDeleted },
    ],
    [
      "a deleted one they were in",
      { personal: false, deleted: true },
      "manager",
      { status: 409, detail: ADMIN_ORG_TEXT.orgDeleted },
    ],
  ] as const)("staff acting on %s", (_what, org, role, expected) => {
    expect(staffOnOrgRefusal(org, role)).toEqual(expected);
  });
});

describe("makeOwnerRefusal", () => {
  it.each([
    ["a developer", "u2", { role: "developer" }, null],
    ["a manager", "u2", { role: "manager" }, null],
    ["a billing member", "u2", { role: "billing" }, null],
    ["an owner already", "u2", { role: "owner" }, { status: 409, detail: ADMIN_ORG_TEXT.alreadyOwner }],
    ["someone who is no member", "u2", undefined, { status: 404, detail: ADMIN_ORG_TEXT.memberNotFound }],
    ["the staff member themselves", "u1", undefined, { status: 403, detail: ADMIN_ORG_TEXT.notSelfOwner }],
    [
      "the staff member themselves, a member",
      "u1",
      { role: "developer" },
      { status: 403, detail: ADMIN_ORG_TEXT.notSelfOwner },
    ],
  ] as const)("staff u1 making %s an owner of a team", (_what, target, membership, expected) => {
    expect(makeOwnerRefusal("u1", team, target, membership)).toEqual(expected);
  });

  it("refuses any change to a personal organisation's one owner", () => {
    expect(makeOwnerRefusal("u1", { personal: true, deleted: false }, "u2", { role: "developer" })).toEqual({
      status: 409,
      detail: ORG_DETAIL.personalHasNoMembers,
    });
  });
});

describe("orgFlagRefusal", () => {
  const messages = { alreadySet: "already", notSet: "not set" };
  it.each([
    [true, false, null],
    [false, true, null],
    [true, true, { status: 409, detail: "already" }],
    [false, false, { status: 409, detail: "not set" }],
  ] as const)("setting=%s when set=%s", (on, isSet, expected) => {
    expect(orgFlagRefusal(on, isSet, messages)).toEqual(expected);
  });
});
