// /invitations/{token}: reading an invitation (public) and accepting it (signed in). Apart from
// stores/organizations.ts: the page is public and loads only these two calls.
import { apiRequest } from "../lib/api-client.ts";

const invitationPath = (token: string, rest = "") => `/v1/invitations/${encodeURIComponent(token)}${rest}`;

/** `GET /v1/invitations/{token}`: who invites, to what, as what; 404 when it cannot be used. */
export function loadInvitation(token: string) {
  return apiRequest(invitationPath(token), "publicInvitationSchema");
}

/** `POST /v1/invitations/{token}/accept`: the organisation joined (the portal's choice is unchanged). */
export function acceptInvitation(token: string) {
  return apiRequest(invitationPath(token, "/accept"), "acceptedInvitationSchema", {
    method: "POST",
    auth: true,
  });
}
