// The roles of an organisation and what each may do (ORGANISATIONS.md, "Roles"), as plain
// functions: the server enforces them on every call and the portal offers only what they allow.
// Without zod, so a page may import them for drawing.

export const ORG_ROLES = ["owner", "manager", "billing", "developer"] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
/** What an invitation may offer: an owner is made by a role change or a transfer, never invited. */
export const INVITABLE_ROLES = ["manager", "billing", "developer"] as const;

export const isOrgRole = (value: unknown): value is OrgRole =>
  typeof value === "string" && (ORG_ROLES as readonly string[]).includes(value);

/** What a member may do in their organisation, by role (the contract's first table). */
export type OrgAbility =
  /** The member list with e-mail addresses (others see names and roles). */
  | "seeMemberEmails"
  /** Invitations, roles and caps, within canChange/canInvite below. */
  | "manageMembers"
  /** Make API keys and manage the keys they made. */
  | "ownKeys"
  /** See and revoke every key of the organisation (shared keys: see makeSharedKeys). */
  | "allKeys"
  | "makeSharedKeys"
  /** Usage of every member (the others see the charges of the keys they made). */
  | "allUsage"
  | "ledger"
  /** Plans, top-ups, invoices, billing details, saved card, Billing Portal, auto top-up, low-balance alert. */
  | "billing"
  /** The whole activity log (billing members see its billing and auto top-up events). */
  | "activity"
  | "billingActivity"
  | "rename"
  | "transfer"
  | "delete";

const ABILITIES: Readonly<Record<OrgRole, readonly OrgAbility[]>> = {
  owner: [
    "seeMemberEmails",
    "manageMembers",
    "ownKeys",
    "allKeys",
    "makeSharedKeys",
    "allUsage",
    "ledger",
    "billing",
    "activity",
    "billingActivity",
    "rename",
    "transfer",
    "delete",
  ],
  manager: [
    "seeMemberEmails",
    "manageMembers",
    "ownKeys",
    "allKeys",
    "allUsage",
    "ledger",
    "activity",
    "billingActivity",
    "rename",
  ],
  billing: ["allUsage", "ledger", "billing", "billingActivity"],
  developer: ["ownKeys"],
};

export const can = (role: OrgRole, ability: OrgAbility): boolean => ABILITIES[role].includes(ability);

/** Who may invite with, or set, a role: owners any; managers developer and manager only. */
export function canGiveRole(actor: OrgRole, role: OrgRole): boolean {
  if (actor === "owner") return true;
  return actor === "manager" && (role === "developer" || role === "manager");
}

/**
 * The invitation roles `role` cannot give: a member moved to it no longer stands behind the
 * invitations they sent for these (revoked at the change, decision 045).
 */
export function invitationRolesBeyond(role: OrgRole): (typeof INVITABLE_ROLES)[number][] {
  return INVITABLE_ROLES.filter((invited) => !canGiveRole(role, invited));
}

export interface MemberRef {
  userId: string;
  role: OrgRole;
}

/** Why a change to a member is refused: not allowed (403) or it would leave no owner (409). */
export type MemberChangeRefusal = "forbidden" | "last_owner";

/**
 * May `actor` change `target`'s role to `role`? The change table: owners make and change anyone
 * (never demoting the last owner), managers move developers and managers between those two roles,
 * and nobody but an owner changes their own role.
 */
export function roleChangeRefusal(
  actor: MemberRef,
  target: MemberRef,
  role: OrgRole,
  ownerCount: number,
): MemberChangeRefusal | null {
  if (actor.role === "owner") {
    return target.role === "owner" && role !== "owner" && ownerCount <= 1 ? "last_owner" : null;
  }
  if (actor.role !== "manager" || actor.userId === target.userId) return "forbidden";
  const movable = (r: OrgRole) => r === "developer" || r === "manager";
  return movable(target.role) && movable(role) ? null : "forbidden";
}

/** May `actor` set `target`'s monthly cap? Owners anyone's; managers developers' and managers', never their own. */
export function capChangeRefusal(actor: MemberRef, target: MemberRef): MemberChangeRefusal | null {
  if (actor.role === "owner") return null;
  if (actor.role !== "manager" || actor.userId === target.userId) return "forbidden";
  return target.role === "developer" || target.role === "manager" ? null : "forbidden";
}

/**
 * May `actor` remove `target` (or leave, when they are the same)? Anyone may leave but the last
 * owner; owners remove anyone but the last owner; managers remove developers, billing members and
 * other managers.
 */
export function removalRefusal(
  actor: MemberRef,
  target: MemberRef,
  ownerCount: number,
): MemberChangeRefusal | null {
  const lastOwner = target.role === "owner" && ownerCount <= 1;
  if (actor.userId === target.userId) return lastOwner ? "last_owner" : null;
  if (actor.role === "owner") return lastOwner ? "last_owner" : null;
  if (actor.role !== "manager") return "forbidden";
  return target.role === "owner" ? "forbidden" : null;
}

/** A role change that takes away "own API keys" revokes the member's keys in the organisation. */
export const losesOwnKeys = (from: OrgRole, to: OrgRole): boolean =>
  can(from, "ownKeys") && !can(to, "ownKeys");

/** Making an owner or a billing member needs recent authentication (ACCOUNT-SECURITY.md's 10 minutes). */
export const roleNeedsRecentAuth = (role: OrgRole): boolean => role === "owner" || role === "billing";
