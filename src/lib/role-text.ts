// The names of an organisation's roles and what each may do, in a line: the members page, the
// switcher and the invitation page show them (a module of its own: the invitation page is public
// and carries nothing else of the organisation pages' words).
import type { OrgRole } from "../../contract/org-roles.ts";

export const ROLE_NAMES: Readonly<Record<OrgRole, string>> = {
  owner: "Owner",
  manager: "Manager",
  billing: "Billing",
  developer: "Developer",
};

/**
 * What each role may do, in a line (the invite form, the role dialog and the invitation page say
 * it), true to ORGANISATIONS.md's role tables: a manager changes developers and managers only
 * (never billing members or owners, never their own cap) and neither sees nor makes shared keys.
 */
export const ROLE_SUMMARIES: Readonly<Record<OrgRole, string>> = {
  owner: "Everything, including billing, shared API keys, transfer and deletion",
  manager: "Invitations, roles and caps of developers and managers; API keys except shared ones; no billing",
  billing: "Plans, top-ups, invoices, billing details and usage; no API keys",
  // Read by the inviter and by the invitee alike: no "their", no "your".
  developer: "Own API keys and the usage of those keys",
};
