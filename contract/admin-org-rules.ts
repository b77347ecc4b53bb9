// The operator console's words about organisations, without zod: the console's islands import
// them with the page (contract/admin-orgs.ts holds the schemas).

export const ADMIN_ORG_TEXT = {
  /** Staff may not act on an organisation they belong to (ORGANISATIONS.md "The operator console"). */
  notOwnOrganisation: "Staff cannot act on an organisation they are a member of",
  notSelfOwner: "Staff cannot make themselves an owner",
  memberNotFound: "Member not found",
  alreadyOwner: "The member is already an owner",
  /** Who ORG_DETAIL.memberOwnerLimit names in the console, which knows the member by id. */
  thisMember: "The member",
  orgDeleted: "The organisation was deleted: it can no longer be changed",
  alreadyDisabled: "The organisation is already disabled",
  notDisabled: "The organisation is not disabled",
  noDisputeHold: "The organisation has no dispute hold",
  userIdRequired: "Give the member's user id",
} as const;
