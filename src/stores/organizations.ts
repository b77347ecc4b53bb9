// Organisations for the portal (ORGANISATIONS.md "Pages"): the list the account menu's switcher
// shows, choosing one (kept in localStorage, the page loads again for it), creating one, and the
// calls of /org/members, /org/settings and /invitations/{token}. Actions throw ApiError; the
// islands say what went wrong.
import { atom } from "nanostores";
import type { OrgRole } from "../../contract/org-roles.ts";
import type { Invitation, KeyRef, Member, Org, OrgListItem } from "../../contract/orgs.ts";
import { apiRequest } from "../lib/api-client.ts";
import { chooseOrganization, readStoredToken } from "../lib/auth-storage.ts";
import { serverClockOffset } from "../lib/server-clock.ts";
import { withReauth } from "./reauth.ts";

export type OrgListState =
  | { status: "idle" | "loading" | "failed"; orgs: readonly OrgListItem[] }
  | { status: "ready"; orgs: readonly OrgListItem[] };

export const $organizations = atom<OrgListState>({ status: "idle", orgs: [] });

/** `GET /v1/orgs` once per page (the switcher asks when the menu first opens). */
export async function loadOrganizations(): Promise<void> {
  // Signed out meanwhile (the menu holds Sign Out): there is no list to ask for.
  if ($organizations.get().status !== "idle" || !readStoredToken()) return;
  $organizations.set({ status: "loading", orgs: [] });
  try {
    const { data } = await apiRequest("/v1/orgs", "orgListSchema", { auth: true });
    $organizations.set({ status: "ready", orgs: data });
  } catch {
    $organizations.set({ status: "failed", orgs: [] });
  }
}

/**
 * Acts on `org` from now on: keeps the choice (none for the personal organisation) and loads the
 * page again, whose calls then carry it; other tabs follow through the storage event.
 */
export function switchOrganization(org: { id: string; personal: boolean }, path?: string): void {
  chooseOrganization(org.personal ? null : org.id);
  if (path) window.location.assign(path);
  else window.location.reload();
}

/** `POST /v1/orgs`: a team organisation the caller owns. */
export function createOrganization(name: string): Promise<Org> {
  return apiRequest("/v1/orgs", "orgSchema", { method: "POST", body: { name }, auth: true });
}

const orgPath = (orgId: string, rest = "") => `/v1/orgs/${encodeURIComponent(orgId)}${rest}`;

export function renameOrganization(orgId: string, name: string): Promise<Org> {
  return apiRequest(orgPath(orgId), "orgSchema", { method: "PATCH", body: { name }, auth: true });
}

/**
 * `DELETE /v1/orgs/{id}`: without `agreed` the server answers 409 with what would be lost
 * (credits, subscription days); the caller shows it and asks again. With `agreed` (those figures,
 * as the owner saw them) it deletes, unless more would be lost by now: then 409 with the new ones.
 */
export async function deleteOrganization(
  orgId: string,
  agreed: { credits: number; subscriptionDays: number } | null,
): Promise<void> {
  await withReauth(() =>
    apiRequest(orgPath(orgId), "anyAnswerSchema", {
      method: "DELETE",
      body: agreed
        ? {
            confirm_forfeit: true,
            forfeit: { credits: agreed.credits, subscription_days: agreed.subscriptionDays },
          }
        : {},
      auth: true,
    }),
  );
}

export function transferOwnership(orgId: string, userId: string): Promise<unknown> {
  return withReauth(() =>
    apiRequest(orgPath(orgId, "/transfer-ownership"), "anyAnswerSchema", {
      method: "POST",
      body: { user_id: userId },
      auth: true,
    }),
  );
}

export type MembersState = {
  status: "loading" | "ready" | "failed";
  members: readonly Member[];
  invitations: readonly Invitation[];
  /** How far the server's clock is ahead of this browser's: "this month" is the server's. */
  clockOffsetMs?: number;
};

export const $members = atom<MembersState>({ status: "loading", members: [], invitations: [] });

/** The members, and the pending invitations when the role may see them (`withInvitations`). */
export async function loadMembers(orgId: string, withInvitations: boolean): Promise<void> {
  const before = $members.get();
  $members.set({ ...before, status: "loading" });
  try {
    const [members, invitations] = await Promise.all([
      apiRequest(orgPath(orgId, "/members"), "memberListSchema", { auth: true }),
      withInvitations
        ? apiRequest(orgPath(orgId, "/invitations"), "invitationListSchema", { auth: true })
        : Promise.resolve({ data: [] }),
    ]);
    $members.set({
      status: "ready",
      members: members.data,
      invitations: invitations.data,
      clockOffsetMs: serverClockOffset(members.as_of),
    });
  } catch {
    $members.set({ ...before, status: "failed" });
  }
}

/** `PATCH .../members/{user_id}`: a new role and/or cap (null: none); what a lost role revoked. */
export async function changeMember(
  orgId: string,
  userId: string,
  change: { role?: OrgRole; monthly_credit_cap?: number | null },
  withInvitations: boolean,
): Promise<{ keys: readonly KeyRef[]; invitations: number }> {
  const answer = await withReauth(() =>
    apiRequest(orgPath(orgId, `/members/${encodeURIComponent(userId)}`), "memberChangedSchema", {
      method: "PATCH",
      body: change,
      auth: true,
    }),
  );
  void loadMembers(orgId, withInvitations);
  return { keys: answer.revoked_keys, invitations: answer.revoked_invitations };
}

/**
 * `DELETE .../members/{user_id}`: the keys it revoked and the shared keys it left. `withInvitations`
 * reloads the list (with the invitations); null, for leaving, does not: the list is no longer theirs.
 */
export async function removeMember(orgId: string, userId: string, withInvitations: boolean | null) {
  const answer = await apiRequest(
    orgPath(orgId, `/members/${encodeURIComponent(userId)}`),
    "memberRemovedSchema",
    { method: "DELETE", auth: true },
  );
  if (withInvitations !== null) void loadMembers(orgId, withInvitations);
  return answer;
}

/**
 * Inviting a billing member (or resending such an invitation) takes a recent sign-in
 * (ORGANISATIONS.md): the API answers reauth_required, and the password dialog asks and retries.
 */
export async function inviteMember(orgId: string, email: string, role: OrgRole): Promise<void> {
  await withReauth(() =>
    apiRequest(orgPath(orgId, "/invitations"), "anyAnswerSchema", {
      method: "POST",
      body: { email, role },
      auth: true,
    }),
  );
  void loadMembers(orgId, true);
}

export async function revokeInvitation(orgId: string, invitationId: string): Promise<void> {
  await apiRequest(orgPath(orgId, `/invitations/${encodeURIComponent(invitationId)}`), "anyAnswerSchema", {
    method: "DELETE",
    auth: true,
  });
  void loadMembers(orgId, true);
}

export async function resendInvitation(orgId: string, invitationId: string): Promise<void> {
  await withReauth(() =>
    apiRequest(orgPath(orgId, `/invitations/${encodeURIComponent(invitationId)}/resend`), "anyAnswerSchema", {
      method: "POST",
      auth: true,
    }),
  );
  void loadMembers(orgId, true);
}

/** The organisation's keys the caller may see (`GET /v1/api-keys`): the removal dialog names them. */
export async function loadOrgKeys() {
  return (await apiRequest("/v1/api-keys", "apiKeyListSchema", { auth: true })).data;
}
