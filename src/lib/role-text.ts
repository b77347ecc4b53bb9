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

/** What each role may do, in a line (the invite form and the role dialog say it). */
export const ROLE_SUMMARIES: Readonly<Record<OrgRole, string>> = {
  owner: "Everything, including billing, transfer and deletion",
  manager: "Members, invitations, caps and every API key; no billing",
  billing: "Plans, top-ups, invoices, billing details and usage; no API keys",
  // Read by the inviter and by the invitee alike: no "their", no "your".
  developer: "Own API keys and the usage of those keys",
};
