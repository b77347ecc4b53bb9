// What staff may do to an organisation (ORGANISATIONS.md, "The operator console"), as plain
// functions: the same permission table as for a customer (permissions.ts), and besides it, staff
// never act on an organisation they are a member of, and an admin makes a member an owner but
// never themselves.

import { ADMIN_ORG_TEXT } from "../../contract/admin-org-rules.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import type { OrgRole } from "../../contract/org-roles.ts";

export interface StaffOrgRefusal {
  status: 403 | 404 | 409;
  detail: string;
}

/** The organisation as the rules need it: its kind and whether it was deleted. */
export interface OrgState {
  personal: boolean;
  deleted: boolean;
}

/**
 * Whether staff may act on the organisation at all: never on a deleted one (it keeps only what the
 * law keeps), never on one they are a member of (`actorRole`: their role there, or undefined).
 */
export function staffOnOrgRefusal(org: OrgState, actorRole: OrgRole | undefined): StaffOrgRefusal | null {
  if (org.deleted) return { status: 409, detail: ADMIN_ORG_TEXT.orgDeleted };
  if (actorRole !== undefined) return { status: 403, detail: ADMIN_ORG_TEXT.notOwnOrganisation };
  return null;
}

/**
 * Whether staff member `actorId` may make `targetUserId` an owner; `target` is that user's
 * membership (undefined: not a member). A personal organisation has one member, its owner.
 */
export function makeOwnerRefusal(
  actorId: string,
  org: OrgState,
  targetUserId: string,
  target: { role: OrgRole } | undefined,
): StaffOrgRefusal | null {
  if (actorId === targetUserId) return { status: 403, detail: ADMIN_ORG_TEXT.notSelfOwner };
  if (org.personal) return { status: 409, detail: ORG_DETAIL.personalHasNoMembers };
  if (!target) return { status: 404, detail: ADMIN_ORG_TEXT.memberNotFound };
  if (target.role === "owner") return { status: 409, detail: ADMIN_ORG_TEXT.alreadyOwner };
  return null;
}

/**
 * Whether a flag of the organisation (disabled, dispute hold) may be set (`on`) or cleared, given
 * whether it is set now: setting a set flag or clearing a clear one is a 409 with its message.
 */
export function orgFlagRefusal(
  on: boolean,
  isSet: boolean,
  messages: { alreadySet: string; notSet: string },
): StaffOrgRefusal | null {
  if (on === isSet) return { status: 409, detail: on ? messages.alreadySet : messages.notSet };
  return null;
}
