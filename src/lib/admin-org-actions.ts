// Which actions the console offers on an organisation page, by the viewer's staff role and the
// organisation's state: the server's rules (server/operations/org-permissions.ts, permissions.ts)
// drawn as buttons, so staff are not offered what would be refused.
import type { Role } from "../../contract/account.ts";
import type { AdminOrg } from "../../contract/admin-orgs.ts";
import type { OrgRole } from "../../contract/org-roles.ts";

export type OrgActionKind =
  | "grant"
  | "takeBack"
  | "disable"
  | "enable"
  | "clearDisputeHold"
  | "cancelAtEnd"
  | "cancelNow";

type OrgFacts = Pick<AdminOrg, "deleted_at" | "disabled_at" | "dispute_hold_at" | "subscription">;

/**
 * The organisation actions `viewer` may take: none on a deleted organisation or one they are a
 * member of; support grants credits; an admin also takes back, disables or enables, clears a
 * dispute hold, and cancels a paid plan (at the period's end only while it is not already ending).
 */
export function orgActionsFor(viewer: Role, viewerIsMember: boolean, org: OrgFacts): OrgActionKind[] {
  if (viewer === "user" || viewerIsMember || org.deleted_at !== null) return [];
  if (viewer === "support") return ["grant"];
  const kinds: OrgActionKind[] = ["grant", "takeBack", org.disabled_at ? "enable" : "disable"];
  if (org.dispute_hold_at) kinds.push("clearDisputeHold");
  if (org.subscription.plan !== "FREE") {
    if (!org.subscription.cancel_at_period_end) kinds.push("cancelAtEnd");
    kinds.push("cancelNow");
  }
  return kinds;
}

/** Whether an admin may make this member an owner: a team organisation's member who is not one yet, never themselves. */
export function mayMakeOwner(
  viewer: { id: string; role: Role },
  viewerIsMember: boolean,
  org: { personal: boolean; deleted_at: string | null },
  member: { user_id: string; role: OrgRole },
): boolean {
  return (
    viewer.role === "admin" &&
    !viewerIsMember &&
    !org.personal &&
    org.deleted_at === null &&
    member.role !== "owner" &&
    member.user_id !== viewer.id
  );
}
