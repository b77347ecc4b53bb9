// The words of organisations in the portal (ORGANISATIONS.md "Pages"): the account menu's
// switcher, /org/members, /org/settings, /profile's organisation parts and /invitations/{token}.
// Kept out of UI_TEXT, which every page loads: only the pages and the menu part that show
// organisations carry them. The API's own sentences are contract/org-messages.ts's ORG_DETAIL.

export const ORG_PAGE_TEXT = {
  switcherTitle: "Organisation",
  switching: "Switching…",
  members: "Members",
  settings: "Organisation settings",
  /** The screen reader's word for the organisation the portal acts on. */
  current: "current",
  /** /profile */
  membersOf: (org: string) => `Members of ${org}`,
  createTitle: "Create organisation",
  createName: "Name",
  createNameHelper: "2 to 60 characters, shown to its members and on its invoices.",
  create: "Create organisation",
  creating: "Creating…",
  created: (name: string) => `${name} created: you are its owner.`,
  cancel: "Cancel",
  close: "Close",
  /** /org/members */
  membersTitle: "Members",
  membersIntro:
    "Who belongs to the organisation, what each may do, and how many credits their API keys may " +
    "spend each month.",
  personalNotice:
    "Members and invitations belong to a team organisation. Create one on My Account, or choose one in the account menu.",
  personalLink: "Go to My Account",
  loading: "Loading the organisation…",
  loadFailed: "The organisation could not be loaded. Reload the page to try again.",
  retry: "Try again",
  columns: {
    member: "Member",
    role: "Role",
    cap: "Monthly cap",
    spent: "Spent this month",
    actions: "Actions",
  },
  noCap: "No cap",
  memberCount: (count: number) => (count === 1 ? "1 member" : `${count} members`),
  you: "you",
  // ORGANISATIONS.md: pages say when the month resets in the viewer's local time; said so, as
  // the auto top-up's limit does, or the time reads as Berlin's after "Berlin time".
  monthNote: (resetsOn: string) =>
    `Spending is counted per calendar month in Berlin time; it starts again on ${resetsOn} (your local time).`,
  edit: "Change",
  editTitle: (name: string) => `Change ${name}'s role and cap`,
  role: "Role",
  cap: "Monthly credit cap",
  capHelper:
    "Credits this member's API keys may spend per month. Leave empty for no cap; 0 stops their keys.",
  save: "Save",
  saving: "Saving…",
  saved: (name: string) => `${name}'s role and cap saved`,
  /** After `saved`: the invitations they sent for a role the new one cannot give. */
  invitationsRevoked: (count: number) =>
    count === 1
      ? "The invitation they sent for a role their new one cannot give was revoked."
      : `The ${count} invitations they sent for roles their new one cannot give were revoked.`,
  lostKeys: (count: number) =>
    count === 1 ? "1 API key of this member was revoked:" : `${count} API keys of this member were revoked:`,
  remove: "Remove",
  leave: "Leave organisation",
  removeTitle: (name: string) => `Remove ${name}?`,
  leaveTitle: (org: string) => `Leave ${org}?`,
  removeBody: (name: string, org: string) =>
    `${name} loses access to ${org} at once, and the invitations they sent are revoked.`,
  /** The keys the leaver made are named below it, as for a removal (MemberDialogs.tsx). */
  leaveBody: (org: string) => `You lose access to ${org} at once.`,
  keysWillStop: "These API keys they made will stop working:",
  ownKeysWillStop: "These API keys you made will stop working:",
  noKeys: "They have made no API keys here.",
  keysUnknown: "Every API key they made in the organisation will stop working.",
  ownNoKeys: "You have made no API keys here.",
  ownKeysUnknown: "Every API key you made in the organisation will stop working.",
  keepMember: "Keep",
  loadingKeys: "Looking up their API keys…",
  loadingOwnKeys: "Looking up your API keys…",
  removedTitle: "Member removed",
  apiKeysLink: "Go to API keys",
  roleStopsKeys: (role: string) =>
    `A ${role} member has no API keys: the keys they made in this organisation stop working when you save.`,
  confirmRemove: "Remove member",
  confirmLeave: "Leave",
  removed: (name: string) => `${name} was removed`,
  left: (org: string) => `You left ${org}`,
  revokedKeys: (count: number) =>
    count === 1 ? "1 API key stopped working:" : `${count} API keys stopped working:`,
  sharedKeysLeft:
    "Shared keys they made keep working. Revoke them on the API keys page if they should stop too:",
  invite: "Invite a member",
  inviteIntro:
    "We e-mail a link that is valid for 7 days. They join once they accept it, signed in with that address.",
  inviteEmail: "E-mail address",
  inviteRole: "Role",
  sendInvite: "Send invitation",
  sending: "Sending…",
  invited: (email: string) => `Invitation sent to ${email}`,
  /** Below the API's "That address already has a pending invitation": the next step. */
  pendingHint: "To mail the link again, press Resend on it under Pending invitations.",
  pendingTitle: "Pending invitations",
  noPending: "No invitations are waiting.",
  invitedBy: (name: string) => `invited by ${name}`,
  expires: (day: string) => `expires ${day}`,
  resend: "Resend",
  resent: (email: string) => `A new link was sent to ${email}; the old one no longer works`,
  revoke: "Revoke",
  revoked: (email: string) => `The invitation to ${email} was revoked`,
  /** /org/settings */
  settingsTitle: "Organisation settings",
  settingsIntro: "The organisation's name, who owns it, and deleting it.",
  nameTitle: "Name",
  rename: "Save name",
  renamed: "Name saved",
  transferTitle: "Transfer ownership",
  transferIntro:
    "The member you choose becomes an owner and you become a manager, in one step. You can no longer change billing afterwards.",
  transferTo: "New owner",
  chooseMember: "Choose a member",
  transfer: "Transfer ownership",
  transferConfirmTitle: (name: string) => `Make ${name} the owner?`,
  transferConfirmBody: (name: string, org: string) =>
    `${name} becomes an owner of ${org}, and you become a manager. Only an owner can give ownership back.`,
  transferred: (name: string) => `${name} is now an owner; you are a manager`,
  noOtherMembers: "Invite a member first: ownership goes to a member of the organisation.",
  deleteTitle: "Delete organisation",
  deleteIntro:
    "Deleting ends the organisation for every member: its API keys stop, its invitations are revoked and its subscription ends without a refund. Its invoices are kept.",
  delete: "Delete organisation",
  deleteConfirmTitle: (org: string) => `Delete ${org}?`,
  deleteConfirmBody: "Every member loses access and every API key of the organisation stops working at once.",
  /** Asked only when something would be lost; with nothing, Delete deletes at once. */
  forfeit: (credits: string, days: number) =>
    days > 0
      ? `${credits} credits and ${days} paid days of the subscription will be lost. This cannot be undone.`
      : `${credits} credits will be lost. This cannot be undone.`,
  /** Before the figures, when the answer given was for less: credits or paid days landed meanwhile. */
  forfeitGrew: "More would be lost now than when you were asked:",
  keepOrg: "Keep organisation",
  confirmDelete: "Delete",
  confirmForfeit: "Delete and lose them",
  deleted: (org: string) => `${org} was deleted`,
  notAllowedHere: "Your role in this organisation cannot change its settings.",
} as const;
