// What the account area (the top bar's menu, /profile, the plan badge) offers in the chosen
// organisation, for the two abilities it draws on every page: billing (plans, top-ups, the Billing
// page) for owners and billing members, and API keys for everyone who may make them. A personal
// account (none chosen) does both. On its own because the top bar on every page asks it:
// org-roles.ts, with the whole table of what each role may do, would add 0.4 KB gzip to every page.
// org-roles.test.ts checks that these agree with `can(role, "billing")` and `can(role, "ownKeys")`
// for every role.
import type { OrgRole } from "./org-roles.ts";

/** The roles whose account area offers billing. */
export const BILLING_ROLES: readonly OrgRole[] = ["owner", "billing"];

/** The roles that may make API keys of their own (every role but billing). */
export const KEY_ROLES: readonly OrgRole[] = ["owner", "manager", "developer"];

export const seesBilling = (org: { role: OrgRole } | undefined): boolean =>
  !org || BILLING_ROLES.includes(org.role);

export const makesKeys = (org: { role: OrgRole } | undefined): boolean =>
  !org || KEY_ROLES.includes(org.role);
