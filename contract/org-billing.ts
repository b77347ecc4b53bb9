// Whether the account area offers billing (plans, top-ups, the Billing page) in the chosen
// organisation: to its owners and billing members; a personal account (none chosen) bills itself.
// On its own because the top bar on every page asks it: org-roles.ts, with the whole table of what
// each role may do, would add 0.4 KB gzip to every page. org-roles.test.ts checks that the two
// agree for every role (`can(role, "billing")`).
import type { OrgRole } from "./org-roles.ts";

/** The roles whose account area offers billing. */
export const BILLING_ROLES: readonly OrgRole[] = ["owner", "billing"];

export const seesBilling = (org: { role: OrgRole } | undefined): boolean =>
  !org || BILLING_ROLES.includes(org.role);
