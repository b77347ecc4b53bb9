// The roles' one-line summaries say no more than the contract's role tables allow.
import { describe, expect, it } from "vitest";
import { can, canGiveRole, ORG_ROLES } from "../../contract/org-roles.ts";
import { ROLE_SUMMARIES } from "./role-text.ts";

describe("ROLE_SUMMARIES", () => {
  it("words each role's line", () => {
    expect(ROLE_SUMMARIES).toEqual({
      owner: "Everything, including billing, shared API keys, transfer and deletion",
      manager:
        "Invitations, roles and caps of developers and managers; API keys except shared ones; no billing",
      billing: "Plans, top-ups, invoices, billing details and usage; no API keys",
      developer: "Own API keys and the usage of those keys",
    });
  });

  it.each(ORG_ROLES)("promises %s no key or member it may not manage", (role) => {
    const line = ROLE_SUMMARIES[role];
    // "every API key" would take in the shared keys, which only owners see.
    if (!can(role, "makeSharedKeys")) expect(line).not.toMatch(/every API key|all API keys/i);
    if (can(role, "makeSharedKeys")) expect(line).toMatch(/shared API keys|Everything/);
    // Members in general would take in billing members and owners.
    if (!canGiveRole(role, "billing")) expect(line).not.toMatch(/^Members\b/);
    if (!can(role, "billing")) expect(line).toMatch(/no billing|^Own API keys/);
    if (!can(role, "ownKeys")) expect(line).toMatch(/no API keys/);
  });
});
