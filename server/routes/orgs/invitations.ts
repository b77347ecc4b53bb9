// Invitations: an organisation's owners and managers invite an address (/v1/orgs/{id}/invitations),
// and the person at that address looks at the link and accepts it (/v1/invitations/{token}). The
// token is in the mail only; the database keeps its SHA-256.
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { maskEmail, ORG_DETAIL } from "../../../contract/org-messages.ts";
import { can, canGiveRole, type OrgRole, roleNeedsRecentAuth } from "../../../contract/org-roles.ts";
import {
  acceptedInvitationSchema,
  type Invitation,
  invitationListSchema,
  invitationRequestSchema,
  invitationSchema,
  ORG_TEXT,
  publicInvitationSchema,
} from "../../../contract/orgs.ts";
import { mailTime } from "../../accounts/security-mails.ts";
import { isUserId } from "../../accounts/users.ts";
import { normaliseEmail } from "../../auth/email-address.ts";
import { lockUser } from "../../billing/ledger-store.ts";
import { organizationInvitations, organizationMembers } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import {
  isRecentAuth,
  limitWrites,
  reauthRefusal,
  reauthRequired,
  requireUser,
} from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  PATH_IDS,
  PUBLIC,
  pathParameter,
  SIGNED_IN,
  schemaRef,
} from "../../http/openapi.ts";
import { pathId } from "../../http/path-id.ts";
import { enforceLimits, mailboxLimits } from "../../http/rate-limit.ts";
import { parseJsonBody, refuseUnusableAddress } from "../../http/validation.ts";
import {
  createInvitation,
  type InvitationView,
  invitationByToken,
  pendingInvitations,
  renewInvitation,
  revokeInvitation,
  takeInvitation,
} from "../../orgs/invitations.ts";
import { findMembership } from "../../orgs/membership.ts";
import { sameAddress } from "../../orgs/org-rules.ts";
import { auditOrg, lockMembership } from "../../orgs/orgs.ts";
import { actorOf, NOT_A_MEMBER, ORG_ID_PARAMETER, type OrgRouteDeps, pathOrg } from "./org-deps.ts";

const TAGS = ["organisations"];
const INVITATION_ID_PARAMETER = pathParameter("invitation_id", "The invitation's id", PATH_IDS.uuid);
const TOKEN_PARAMETER = pathParameter("token", "The token from the invitation's link", PATH_IDS.mailedToken);

function invitationAnswer({ row, inviter }: InvitationView): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invited_by: inviter ? { id: inviter.id, username: inviter.username } : null,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

/**
 * The refusal of an invitation with `role` by a member of `org` that their role or the personal
 * organisation never allows (the transaction asks again, under the lock).
 */
function refuseInviter(org: { personal: boolean; role: OrgRole }, role: OrgRole): void {
  if (org.personal) throw new ApiError(409, ORG_DETAIL.personalHasNoMembers);
  if (!can(org.role, "manageMembers") || !canGiveRole(org.role, role)) {
    throw new ApiError(403, ORG_DETAIL.notAllowed);
  }
}

export function invitationRoutes(deps: OrgRouteDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  const inOrg = pathOrg(deps.db);
  const security = SIGNED_IN;
  const invitationContent = () => jsonContent(schemaRef(registry, "Invitation", invitationSchema));
  const managing = `"${ORG_DETAIL.notAllowed}": only owners and managers manage invitations`;

  /** Mails the link of a new or renewed invitation, after its transaction committed. */
  function mailLink(view: InvitationView, token: string, orgName: string | null) {
    deps.orgMails.invitation({
      to: view.row.email,
      orgName: orgName ?? ORG_DETAIL.personalName,
      inviter: view.inviter?.username ?? "A member",
      role: view.row.role,
      token,
      expires: mailTime(view.row.expiresAt),
    });
  }

  addRoute(
    app,
    {
      method: "post",
      path: "/orgs/{id}/invitations",
      operationId: "createInvitation",
      tags: TAGS,
      summary: "Invite an e-mail address with a role (manager, billing or developer)",
      description:
        "Mails a link to /invitations/{token}: single use, 7 days. Managers invite developers and managers only. At most 20 invitations an hour per inviter, 50 a day and 100 pending per organisation; each counts against the invited mailbox's mails an hour and a day, as reset and verification mails do.",
      security,
      parameters: [ORG_ID_PARAMETER],
      request: {
        body: {
          content: jsonContent(schemaRef(registry, "InvitationRequest", invitationRequestSchema, "input")),
        },
      },
      responses: {
        201: { description: "The invitation (the link is in the mail only)", content: invitationContent() },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: reauthRefusal(registry, `${managing}, or (inviting a billing member) `),
          404: NOT_A_MEMBER,
          409: `"${ORG_DETAIL.alreadyMember}", "${ORG_DETAIL.alreadyInvited}", "${ORG_DETAIL.tooManyPending}", or "${ORG_DETAIL.personalHasNoMembers}"`,
          422: `An address that is not an e-mail address, or one no account may have: from a disposable-mail service ("${VALIDATION.emailDisposable}") or in a top-level domain that never receives mail, .invalid or .localhost ("${VALIDATION.emailReserved}"); or a role that cannot be invited (owner)`,
          429: `"${ORG_TEXT.tooManyInvitesPerHour}", "${ORG_TEXT.tooManyInvitesPerDay}"; "${ORG_DETAIL.mailboxBusy}", with Retry-After: too many mails to this address's mailbox in an hour or a day (invitations, reset, verification and change links together; nothing is stored); or "${DETAIL.tooManyRequests}", with Retry-After: too many signed-in writes`,
        }),
      },
    },
    auth,
    inOrg,
    limitWrites(deps.limiter),
    async (c) => {
      const body = await parseJsonBody(c, invitationRequestSchema);
      // An address no account may have (reserved or disposable) could never accept.
      refuseUnusableAddress(body.email);
      const actor = actorOf(c, deps.trustProxy);
      // Inviting a billing member makes one, as a role change does: it needs recent authentication,
      // asked once the role allows the invitation (nobody is asked for their password for what
      // their role can never do; the transaction asks again, under the lock).
      if (roleNeedsRecentAuth(body.role) && !isRecentAuth(deps.clock, c.var.claims)) {
        refuseInviter(c.var.org, body.role);
        throw await reauthRequired(deps, actor.id);
      }
      const now = deps.clock.now();
      const { view, token, orgName } = await deps.db.transaction(async (tx) => {
        const me = await lockMembership(tx, c.var.org.id, actor.id);
        if (me.personal) throw new ApiError(409, ORG_DETAIL.personalHasNoMembers);
        if (!can(me.role, "manageMembers") || !canGiveRole(me.role, body.role)) {
          throw new ApiError(403, ORG_DETAIL.notAllowed);
        }
        const made = await createInvitation(
          tx,
          actor,
          me.id,
          { email: normaliseEmail(body.email), role: body.role },
          now,
        );
        // The link is a mail to an address the inviter chose: it counts against that mailbox's
        // hour and day with the reset, verification and change-link mails (decision 024), once
        // nothing else refuses it; past either, the 429 rolls the invitation back.
        // Said in words of its own: the address's mails, not the inviter's writes, are used up.
        await enforceLimits(deps.limiter, mailboxLimits(made.view.row.email), ORG_DETAIL.mailboxBusy);
        return { ...made, orgName: me.name };
      });
      mailLink(view, token, orgName);
      return c.json(invitationAnswer(view), 201);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/orgs/{id}/invitations",
      operationId: "listInvitations",
      tags: TAGS,
      summary: "The pending invitations, oldest first (owners and managers)",
      security,
      parameters: [ORG_ID_PARAMETER],
      responses: {
        200: {
          description: "Pending invitations",
          content: jsonContent(schemaRef(registry, "InvitationList", invitationListSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token", 403: managing, 404: NOT_A_MEMBER }),
      },
    },
    auth,
    inOrg,
    async (c) => {
      if (!can(c.var.org.role, "manageMembers")) throw new ApiError(403, ORG_DETAIL.notAllowed);
      const list = await pendingInvitations(deps.db, c.var.org.id, deps.clock.now());
      return c.json({ data: list.map(invitationAnswer) }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "delete",
      path: "/orgs/{id}/invitations/{invitation_id}",
      operationId: "revokeInvitation",
      tags: TAGS,
      summary: "Revoke a pending invitation: its link stops working",
      security,
      parameters: [ORG_ID_PARAMETER, INVITATION_ID_PARAMETER],
      responses: {
        204: { description: "Revoked" },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: managing,
          404: `${NOT_A_MEMBER}; or "${ORG_DETAIL.invitationNotFound}" (also one used, revoked, expired or of another organisation)`,
        }),
      },
    },
    auth,
    inOrg,
    async (c) => {
      const invitationId = pathId(c, "invitation_id", "uuid");
      const actor = actorOf(c, deps.trustProxy);
      const now = deps.clock.now();
      await deps.db.transaction(async (tx) => {
        const me = await lockMembership(tx, c.var.org.id, actor.id);
        if (!can(me.role, "manageMembers")) throw new ApiError(403, ORG_DETAIL.notAllowed);
        if (!isUserId(invitationId)) throw new ApiError(404, ORG_DETAIL.invitationNotFound);
        await revokeInvitation(tx, actor, me.id, invitationId, now);
      });
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/orgs/{id}/invitations/{invitation_id}/resend",
      operationId: "resendInvitation",
      tags: TAGS,
      summary: "Mail a pending invitation again with a new link (the old link stops working) and 7 more days",
      security,
      parameters: [ORG_ID_PARAMETER, INVITATION_ID_PARAMETER],
      responses: {
        200: { description: "The invitation as renewed", content: invitationContent() },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: reauthRefusal(registry, `${managing}, or (a billing invitation) `),
          404: `${NOT_A_MEMBER}; or "${ORG_DETAIL.invitationNotFound}"`,
          429: `"${ORG_TEXT.resentRecently}" (each invitation is mailed at most once an hour), "${ORG_TEXT.tooManyInvitesPerHour}" (20 mails an hour per organisation, resends included); "${ORG_DETAIL.mailboxBusy}", with Retry-After: too many mails to the invited address's mailbox in an hour or a day (invitations, reset, verification and change links together; the old link keeps working); or "${DETAIL.tooManyRequests}", with Retry-After: too many signed-in writes`,
        }),
      },
    },
    auth,
    inOrg,
    limitWrites(deps.limiter),
    async (c) => {
      const invitationId = pathId(c, "invitation_id", "uuid");
      const actor = actorOf(c, deps.trustProxy);
      // A new link to a billing invitation is a new way in: recent authentication, as for the
      // first. Asked before the transaction (the question reads the database itself); an
      // invitation's role never changes.
      if (isUserId(invitationId) && !isRecentAuth(deps.clock, c.var.claims)) {
        const [pending] = await deps.db
          .select({ role: organizationInvitations.role })
          .from(organizationInvitations)
          .where(
            and(
              eq(organizationInvitations.id, invitationId),
              eq(organizationInvitations.orgId, c.var.org.id),
            ),
          );
        if (pending && roleNeedsRecentAuth(pending.role)) {
          refuseInviter(c.var.org, pending.role);
          throw await reauthRequired(deps, actor.id);
        }
      }
      const now = deps.clock.now();
      const { view, token, orgName } = await deps.db.transaction(async (tx) => {
        const me = await lockMembership(tx, c.var.org.id, actor.id);
        if (!can(me.role, "manageMembers")) throw new ApiError(403, ORG_DETAIL.notAllowed);
        if (!isUserId(invitationId)) throw new ApiError(404, ORG_DETAIL.invitationNotFound);
        const renewed = await renewInvitation(tx, me.id, invitationId, now);
        if (!canGiveRole(me.role, renewed.view.row.role)) throw new ApiError(403, ORG_DETAIL.notAllowed);
        // A new mail to the same mailbox, counted as the first was: past its hour or day, the
        // renewal rolls back and the old link keeps working.
        await enforceLimits(deps.limiter, mailboxLimits(renewed.view.row.email), ORG_DETAIL.mailboxBusy);

        await auditOrg(
          tx,
          actor,
          me.id,
          "member.invite",
          null,
          {
            invitation_id: invitationId,
            email: renewed.view.row.email,
            role: renewed.view.row.role,
            resent: true,
          },
          now,
        );
        return { ...renewed, orgName: me.name };
      });
      mailLink(view, token, orgName);
      return c.json(invitationAnswer(view), 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/invitations/{token}",
      operationId: "getInvitation",
      tags: TAGS,
      summary: "What an invitation's link offers: the organisation, the role and who invited",
      security: PUBLIC,
      parameters: [TOKEN_PARAMETER],
      responses: {
        200: {
          description: "The invitation",
          content: jsonContent(schemaRef(registry, "PublicInvitation", publicInvitationSchema)),
        },
        ...errorResponses(registry, {
          404: `"${ORG_DETAIL.invitationNotFound}": unknown, used, revoked or expired`,
        }),
      },
    },
    async (c) => {
      const found = await invitationByToken(deps.db, pathId(c, "token", "mailedToken"), deps.clock.now());
      if (!found) throw new ApiError(404, ORG_DETAIL.invitationNotFound);
      return c.json(
        {
          organization_name: found.orgName ?? ORG_DETAIL.personalName,
          role: found.row.role,
          invited_by: found.inviter ? { username: found.inviter.username, email: found.inviter.email } : null,
          expires_at: found.row.expiresAt.toISOString(),
        },
        200,
      );
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/invitations/{token}/accept",
      operationId: "acceptInvitation",
      tags: TAGS,
      summary: "Join the organisation with the invited role",
      description:
        "The account's verified e-mail address must be the invited one, ignoring case. It does not change the organisation chosen in the portal.",
      security,
      parameters: [TOKEN_PARAMETER],
      responses: {
        200: {
          description: "The organisation joined",
          content: jsonContent(schemaRef(registry, "AcceptedInvitation", acceptedInvitationSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: `"${ORG_DETAIL.emailNotVerified}", or "${ORG_DETAIL.wrongAddress("a•••@example.com")}" with the invited address masked`,
          404: `"${ORG_DETAIL.invitationNotFound}": unknown, used, revoked or expired`,
          409: `"${ORG_DETAIL.alreadyMember}"`,
          429: "Too many signed-in writes",
        }),
      },
    },
    auth,
    limitWrites(deps.limiter),
    async (c) => {
      const user = c.var.user;
      const now = deps.clock.now();
      const found = await invitationByToken(deps.db, pathId(c, "token", "mailedToken"), now);
      if (!found) throw new ApiError(404, ORG_DETAIL.invitationNotFound);
      if (!user.emailVerified) throw new ApiError(403, ORG_DETAIL.emailNotVerified);
      if (!sameAddress(user.email, found.row.email)) {
        throw new ApiError(403, ORG_DETAIL.wrongAddress(maskEmail(found.row.email)));
      }
      const orgId = found.row.orgId;
      const actor = actorOf(c, deps.trustProxy);
      await deps.db.transaction(async (tx) => {
        await lockUser(tx, orgId);
        if (!(await takeInvitation(tx, found.row.id, user.id, now))) {
          throw new ApiError(404, ORG_DETAIL.invitationNotFound);
        }
        if (await findMembership(tx, orgId, user.id)) throw new ApiError(409, ORG_DETAIL.alreadyMember);
        await tx
          .insert(organizationMembers)
          .values({ orgId, userId: user.id, role: found.row.role, joinedAt: now });
        await auditOrg(
          tx,
          actor,
          orgId,
          "member.join",
          user.id,
          { invitation_id: found.row.id, role: found.row.role, invited_by: found.inviter?.id ?? null },
          now,
        );
      });
      return c.json(
        {
          organization: { id: orgId, name: found.orgName, personal: found.orgPersonal },
          role: found.row.role,
          joined_at: now.toISOString(),
        },
        200,
      );
    },
  );

  return app;
}
