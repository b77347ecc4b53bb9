// ORGANISATIONS.md's two role tables, cell by cell: what each role may do, and who may change whom.
import { describe, expect, it } from "vitest";
import { makesKeys, seesBilling } from "./account-area.ts";
import {
  can,
  canGiveRole,
  capChangeRefusal,
  INVITABLE_ROLES,
  invitationRolesBeyond,
  isOrgRole,
  losesOwnKeys,
  ORG_ROLES,
  type OrgAbility,
  type OrgRole,
  removalRefusal,
  roleChangeRefusal,
  roleNeedsRecentAuth,
} from "./org-roles.ts";

// The contract's first table: Y where the role may, by row.
const TABLE: Record<OrgAbility, Record<OrgRole, boolean>> = {
  seeMemberEmails: { owner: true, manager: true, billing: false, developer: false },
  manageMembers: { owner: true, manager: true, billing: false, developer: false },
  ownKeys: { owner: true, manager: true, billing: false, developer: true },
  allKeys: { owner: true, manager: true, billing: false, developer: false },
  makeSharedKeys: { owner: true, manager: false, billing: false, developer: false },
  allUsage: { owner: true, manager: true, billing: true, developer: false },
  ledger: { owner: true, manager: true, billing: true, developer: false },
  billing: { owner: true, manager: false, billing: true, developer: false },
  activity: { owner: true, manager: true, billing: false, developer: false },
  billingActivity: { owner: true, manager: true, billing: true, developer: false },
  rename: { owner: true, manager: true, billing: false, developer: false },
  transfer: { owner: true, manager: false, billing: false, developer: false },
  delete: { owner: true, manager: false, billing: false, developer: false },
};

const member = (userId: string, role: OrgRole) => ({ userId, role });

describe("organisation roles", () => {
  it("names the four roles, and invitations offer all but owner", () => {
    expect(ORG_ROLES).toEqual(["owner", "manager", "billing", "developer"]);
    expect(INVITABLE_ROLES).toEqual(["manager", "billing", "developer"]);
    expect(isOrgRole("billing")).toBe(true);
    expect(isOrgRole("admin")).toBe(false);
    expect(isOrgRole(3)).toBe(false);
  });

  it.each(Object.entries(TABLE))(
    "gives %s to exactly the roles of the contract's table",
    (ability, byRole) => {
      for (const role of ORG_ROLES) expect(can(role, ability as OrgAbility), role).toBe(byRole[role]);
    },
  );

  it("names the invitations a member moved to a role no longer stands behind", () => {
    expect(invitationRolesBeyond("owner")).toEqual([]);
    expect(invitationRolesBeyond("manager")).toEqual(["billing"]);
    expect(invitationRolesBeyond("billing")).toEqual(["manager", "billing", "developer"]);
    expect(invitationRolesBeyond("developer")).toEqual(["manager", "billing", "developer"]);
  });

  it("lets owners give any role and managers only developer and manager", () => {
    for (const role of ORG_ROLES) expect(canGiveRole("owner", role)).toBe(true);
    expect(canGiveRole("manager", "developer")).toBe(true);
    expect(canGiveRole("manager", "manager")).toBe(true);
    expect(canGiveRole("manager", "billing")).toBe(false);
    expect(canGiveRole("manager", "owner")).toBe(false);
    for (const role of ORG_ROLES) {
      expect(canGiveRole("billing", role)).toBe(false);
      expect(canGiveRole("developer", role)).toBe(false);
    }
  });

  it("checks a role change against the change table and the last owner", () => {
    const owner = member("o", "owner");
    expect(roleChangeRefusal(owner, member("d", "developer"), "owner", 1)).toBeNull();
    expect(roleChangeRefusal(owner, member("o2", "owner"), "manager", 2)).toBeNull();
    expect(roleChangeRefusal(owner, owner, "manager", 1)).toBe("last_owner");
    expect(roleChangeRefusal(owner, owner, "owner", 1)).toBeNull();
    expect(roleChangeRefusal(owner, owner, "manager", 2)).toBeNull();

    const manager = member("m", "manager");
    expect(roleChangeRefusal(manager, member("d", "developer"), "manager", 1)).toBeNull();
    expect(roleChangeRefusal(manager, member("m2", "manager"), "developer", 1)).toBeNull();
    expect(roleChangeRefusal(manager, member("d", "developer"), "billing", 1)).toBe("forbidden");
    expect(roleChangeRefusal(manager, member("b", "billing"), "developer", 1)).toBe("forbidden");
    expect(roleChangeRefusal(manager, member("o", "owner"), "manager", 2)).toBe("forbidden");
    expect(roleChangeRefusal(manager, member("d", "developer"), "owner", 1)).toBe("forbidden");
    expect(roleChangeRefusal(manager, manager, "developer", 1)).toBe("forbidden");

    expect(roleChangeRefusal(member("b", "billing"), member("d", "developer"), "manager", 1)).toBe(
      "forbidden",
    );
    expect(roleChangeRefusal(member("x", "developer"), member("d", "developer"), "manager", 1)).toBe(
      "forbidden",
    );
  });

  it("lets owners set anyone's cap and managers developers' and managers' but never their own", () => {
    const owner = member("o", "owner");
    expect(capChangeRefusal(owner, owner)).toBeNull();
    expect(capChangeRefusal(owner, member("b", "billing"))).toBeNull();
    const manager = member("m", "manager");
    expect(capChangeRefusal(manager, member("d", "developer"))).toBeNull();
    expect(capChangeRefusal(manager, member("m2", "manager"))).toBeNull();
    expect(capChangeRefusal(manager, manager)).toBe("forbidden");
    expect(capChangeRefusal(manager, member("b", "billing"))).toBe("forbidden");
    expect(capChangeRefusal(manager, member("o", "owner"))).toBe("forbidden");
    expect(capChangeRefusal(member("b", "billing"), member("d", "developer"))).toBe("forbidden");
    expect(capChangeRefusal(member("x", "developer"), member("d", "developer"))).toBe("forbidden");
  });

  it("lets anyone leave but the last owner, and removes by the change table", () => {
    for (const role of ["manager", "billing", "developer"] as const) {
      expect(removalRefusal(member("a", role), member("a", role), 1)).toBeNull();
    }
    expect(removalRefusal(member("o", "owner"), member("o", "owner"), 1)).toBe("last_owner");
    expect(removalRefusal(member("o", "owner"), member("o", "owner"), 2)).toBeNull();

    const owner = member("o", "owner");
    expect(removalRefusal(owner, member("o2", "owner"), 2)).toBeNull();
    expect(removalRefusal(owner, member("o2", "owner"), 1)).toBe("last_owner");
    expect(removalRefusal(owner, member("b", "billing"), 1)).toBeNull();

    const manager = member("m", "manager");
    expect(removalRefusal(manager, member("d", "developer"), 1)).toBeNull();
    expect(removalRefusal(manager, member("b", "billing"), 1)).toBeNull();
    expect(removalRefusal(manager, member("m2", "manager"), 1)).toBeNull();
    expect(removalRefusal(manager, member("o", "owner"), 2)).toBe("forbidden");

    expect(removalRefusal(member("b", "billing"), member("d", "developer"), 1)).toBe("forbidden");
    expect(removalRefusal(member("x", "developer"), member("d", "developer"), 1)).toBe("forbidden");
  });

  it("revokes keys only when a role change takes away own API keys", () => {
    expect(losesOwnKeys("developer", "billing")).toBe(true);
    expect(losesOwnKeys("manager", "billing")).toBe(true);
    expect(losesOwnKeys("owner", "billing")).toBe(true);
    expect(losesOwnKeys("developer", "manager")).toBe(false);
    expect(losesOwnKeys("billing", "developer")).toBe(false);
    expect(losesOwnKeys("billing", "billing")).toBe(false);
  });

  it("asks for recent authentication to make an owner or a billing member", () => {
    expect(roleNeedsRecentAuth("owner")).toBe(true);
    expect(roleNeedsRecentAuth("billing")).toBe(true);
    expect(roleNeedsRecentAuth("manager")).toBe(false);
    expect(roleNeedsRecentAuth("developer")).toBe(false);
  });
});

describe("seesBilling", () => {
  it.each([
    ["owner", true],
    ["manager", false],
    ["billing", true],
    ["developer", false],
  ] as const)("%s -> %s", (role, sees) => {
    expect(seesBilling({ role })).toBe(sees);
  });

  it("offers billing on a personal account (no organisation chosen)", () => {
    expect(seesBilling(undefined)).toBe(true);
  });

  it("agrees with what each role may do (account-area.ts keeps the top bar's copy)", () => {
    for (const role of ORG_ROLES) expect(seesBilling({ role })).toBe(can(role, "billing"));
  });
});

describe("makesKeys", () => {
  it.each([
    ["owner", true],
    ["manager", true],
    ["billing", false],
    ["developer", true],
  ] as const)("%s -> %s", (role, makes) => {
    expect(makesKeys({ role })).toBe(makes);
  });

  it("offers API keys on a personal account (no organisation chosen)", () => {
    expect(makesKeys(undefined)).toBe(true);
  });

  it("agrees with what each role may do (account-area.ts keeps the top bar's copy)", () => {
    for (const role of ORG_ROLES) expect(makesKeys({ role })).toBe(can(role, "ownKeys"));
  });
});
