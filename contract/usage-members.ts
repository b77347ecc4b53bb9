// How usage names its member groups (ORGANISATIONS.md: usage by member), without zod: the usage
// page and the console draw these labels, and importing contract/usage.ts for them put zod into
// every page that draws a chart (the signed-in pages' 100 kB budget).

/**
 * Whose charges a `member` group holds: a member's (the keys they made), the organisation's shared
 * keys', or those made without a key (an access token's, or staff's manual charges).
 */
export const MEMBER_GROUPS = ["member", "shared_keys", "without_key"] as const;
export type MemberGroup = (typeof MEMBER_GROUPS)[number];

/** How pages and the CSV name a group that is not one member's. */
export const MEMBER_GROUP_LABELS = {
  shared_keys: "Shared keys",
  without_key: "Without a key",
  /** A key whose maker's account is gone. */
  unknown_member: "Former member",
} as const;

/** A member group's label: the member's username, or what the group stands for. */
export function memberGroupLabel(group: MemberGroup, username: string | null | undefined): string {
  if (group === "shared_keys") return MEMBER_GROUP_LABELS.shared_keys;
  if (group === "without_key") return MEMBER_GROUP_LABELS.without_key;
  return username ?? MEMBER_GROUP_LABELS.unknown_member;
}
