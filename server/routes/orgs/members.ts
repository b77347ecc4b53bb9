// /v1/orgs/{id}/members: the member list, changing a member's role or cap, and removing a member
// (or leaving). The change table is contract/org-roles.ts; every change re-reads the caller's role
// under the organisation's lock, so two owners demoting each other at once leave one owner.
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import {
  can,
  capChangeRefusal,
  type MemberChangeRefusal,
  removalRefusal,
  roleChangeRefusal,
  roleNeedsRecentAuth,
} from "../../../contract/org-roles.ts";
import {
  type KeyRef,
  memberChangedSchema,
  memberChangeSchema,
  memberListSchema,
  memberRemovedSchema,
  ORG_TEXT,
} from "../../../contract/orgs.ts";
import { isUserId } from "../../accounts/users.ts";
import { rearmCapWarning } from "../../alerts/member-cap.ts";
import { endLeases } from "../../billing/credit-leases.ts";
import { organizationMembers } from "../../db/schema/index.ts";
import { berlinMonth } from "../../domain/berlin-time.ts";
import { fromMillicredits, toMillicredits } from "../../domain/ledger.ts";
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
  pathParameter,
  SIGNED_IN,
  schemaRef,
} from "../../http/openapi.ts";
import { pathId } from "../../http/path-id.ts";
import { parseJsonBody } from "../../http/validation.ts";
import {
  auditOrg,
  endMembership,
  endWhatTheRoleLost,
  findMember,
  listMembers,
  lockMembership,
  ownerCount,
  ownsTheMost,
  spentThisMonth,
} from "../../orgs/orgs.ts";
import {
  actorOf,
  memberAnswer,
  NOT_A_MEMBER,
  ORG_ID_PARAMETER,
  type OrgRouteDeps,
  pathOrg,
} from "./org-deps.ts";

const TAGS = ["organisations"];
const USER_ID_PARAMETER = pathParameter("user_id", "The member's user id", PATH_IDS.uuid);

/** A refusal of the change table as the API answers it. */
function refuse(refusal: MemberChangeRefusal): never {
  if (refusal === "last_owner") throw new ApiError(409, ORG_DETAIL.lastOwner);
  throw new ApiError(403, ORG_DETAIL.notAllowed);
}

const keyIds = (keys: KeyRef[]) => keys.map((k) => k.id);

export function memberRoutes(deps: OrgRouteDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  const inOrg = pathOrg(deps.db);
  const security = SIGNED_IN;

  addRoute(
    app,
    {
      method: "get",
      path: "/orgs/{id}/members",
      operationId: "listOrganizationMembers",
      tags: TAGS,
      summary: "The members with their roles, caps and this Berlin month's spending",
      description: "E-mail addresses only for owners and managers; billing members and developers see null.",
      security,
      parameters: [ORG_ID_PARAMETER],
      responses: {
        200: {
          description: "Members, owners first",
          content: jsonContent(schemaRef(registry, "OrganizationMemberList", memberListSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token", 404: NOT_A_MEMBER }),
      },
    },
    auth,
    inOrg,
    async (c) => {
      const { org } = c.var;
      const now = deps.clock.now();
      const [members, spent] = await Promise.all([
        listMembers(deps.db, org.id),
        spentThisMonth(deps.db, org.id, now),
      ]);
      const email = can(org.role, "seeMemberEmails");
      const everyonesUsage = can(org.role, "allUsage");
      const data = members.map((m) =>
        memberAnswer(m, spent.get(m.userId) ?? 0, {
          email,
          usage: everyonesUsage || m.userId === c.var.user.id,
        }),
      );
      return c.json({ data, as_of: now.toISOString() }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "patch",
      path: "/orgs/{id}/members/{user_id}",
      operationId: "changeOrganizationMember",
      tags: TAGS,
      summary: "Change a member's role or monthly credit cap (null: no cap)",
      description:
        "Owners change anyone (never demoting the last owner); managers move developers and managers between those roles and set their caps, never their own. Making an owner or a billing member needs recent authentication. A role without API keys revokes the member's keys in the organisation: the answer lists them. The pending invitations the member sent for a role the new one cannot give are revoked (counted), and a role without billing expires the checkout and card-setup sessions they opened (and the local card-change page; a Stripe Billing Portal session cannot be ended early).",
      security,
      parameters: [ORG_ID_PARAMETER, USER_ID_PARAMETER],
      request: {
        body: {
          content: jsonContent(schemaRef(registry, "OrganizationMemberChange", memberChangeSchema, "input")),
        },
      },
      responses: {
        200: {
          description: "The member as changed, and the keys and invitations the change revoked",
          content: jsonContent(schemaRef(registry, "OrganizationMemberChanged", memberChangedSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: reauthRefusal(registry, `"${ORG_DETAIL.notAllowed}", or `),
          404: `${NOT_A_MEMBER}; or "${ORG_TEXT.memberNotFound}"`,
          409: `"${ORG_DETAIL.lastOwner}": the last owner cannot be demoted; or "${ORG_DETAIL.memberOwnerLimit("{username}")}"`,
          422: "Neither a role nor a cap, an unknown role, or a cap below 0 or with more than 3 decimals",
        }),
      },
    },
    auth,
    inOrg,
    limitWrites(deps.limiter),
    async (c) => {
      const targetId = pathId(c, "user_id", "uuid");
      const body = await parseJsonBody(c, memberChangeSchema);
      const actor = actorOf(c, deps.trustProxy);
      const orgId = c.var.org.id;
      if (!isUserId(targetId)) throw new ApiError(404, ORG_TEXT.memberNotFound);
      // Recent authentication is asked before the change (the dialog then retries it), and after
      // the role's refusal: nobody is asked for their password for what their role can never do
      // (the transaction asks both again, under the lock).
      if (
        body.role !== undefined &&
        roleNeedsRecentAuth(body.role) &&
        !isRecentAuth(deps.clock, c.var.claims)
      ) {
        const target = await findMember(deps.db, orgId, targetId);
        if (target && target.role !== body.role) {
          if (!can(c.var.org.role, "manageMembers")) refuse("forbidden");
          const refusal = roleChangeRefusal(
            { userId: actor.id, role: c.var.org.role },
            { userId: target.userId, role: target.role },
            body.role,
            await ownerCount(deps.db, orgId),
          );
          if (refusal) refuse(refusal);
          throw await reauthRequired(deps, actor.id);
        }
      }
      const now = deps.clock.now();
      const answer = await deps.db.transaction(async (tx) => {
        const me = await lockMembership(tx, orgId, actor.id);
        if (me.personal) throw new ApiError(409, ORG_DETAIL.personalHasNoMembers);
        if (!can(me.role, "manageMembers")) throw new ApiError(403, ORG_DETAIL.notAllowed);
        const target = await findMember(tx, orgId, targetId);
        if (!target) throw new ApiError(404, ORG_TEXT.memberNotFound);
        const actorRef = { userId: actor.id, role: me.role };
        const targetRef = { userId: target.userId, role: target.role };
        const newRole = body.role ?? target.role;
        const roleChanges = newRole !== target.role;
        if (roleChanges) {
          const refusal = roleChangeRefusal(actorRef, targetRef, newRole, await ownerCount(tx, orgId));
          if (refusal) refuse(refusal);
          if (newRole === "owner" && (await ownsTheMost(tx, target.userId))) {
            throw new ApiError(409, ORG_DETAIL.memberOwnerLimit(target.username));
          }
        }
        const newCap =
          body.monthly_credit_cap === undefined
            ? target.monthlyCreditCap
            : body.monthly_credit_cap === null
              ? null
              : toMillicredits(body.monthly_credit_cap);
        if (body.monthly_credit_cap !== undefined) {
          const refusal = capChangeRefusal(actorRef, targetRef);
          if (refusal) refuse(refusal);
        }
        // A lease holds part of the member's month under the old cap (decision 051); the month's
        // 80 % warning is armed again against the new one.
        if (newCap !== target.monthlyCreditCap) {
          await endLeases(tx, { orgId, memberId: target.userId }, "member_changed");
          await rearmCapWarning(tx, { orgId, memberId: target.userId, month: berlinMonth(now), cap: newCap });
        }
        await tx
          .update(organizationMembers)
          .set({ role: newRole, monthlyCreditCap: newCap })
          .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, target.userId)));
        const { revokedKeys: revoked, revokedInvitations } = roleChanges
          ? await endWhatTheRoleLost(tx, deps.billing.closeMemberCheckouts, {
              orgId,
              userId: target.userId,
              from: target.role,
              to: newRole,
              now,
            })
          : { revokedKeys: [], revokedInvitations: 0 };
        if (roleChanges) {
          await auditOrg(
            tx,
            actor,
            orgId,
            "member.role_change",
            target.userId,
            {
              from: target.role,
              to: newRole,
              revoked_keys: keyIds(revoked),
              revoked_invitations: revokedInvitations,
            },
            now,
          );
        }
        if (newCap !== target.monthlyCreditCap) {
          const credits = (milli: number | null) => (milli === null ? null : fromMillicredits(milli));
          await auditOrg(
            tx,
            actor,
            orgId,
            "member.cap_change",
            target.userId,
            { from: credits(target.monthlyCreditCap), to: credits(newCap) },
            now,
          );
        }
        const spent = (await spentThisMonth(tx, orgId, now)).get(target.userId) ?? 0;
        return {
          member: memberAnswer(
            { ...target, role: newRole, monthlyCreditCap: newCap },
            spent,
            // Only owners and managers change members, and both see everyone's usage.
            { email: can(me.role, "seeMemberEmails"), usage: true },
          ),
          revoked_keys: revoked,
          revoked_invitations: revokedInvitations,
        };
      });
      return c.json(answer, 200);
    },
  );

  addRoute(
    app,
    {
      method: "delete",
      path: "/orgs/{id}/members/{user_id}",
      operationId: "removeOrganizationMember",
      tags: TAGS,
      summary: "Remove a member, or leave (the caller's own id)",
      description:
        "At once on every instance: their access ends, the keys they made in the organisation are revoked (listed), the shared keys they made keep working (listed, to revoke too if they should stop), the invitations they sent are revoked, and the checkout and card-setup sessions they opened for the organisation expire (and the local card-change page; a Stripe Billing Portal session cannot be ended early). The last owner cannot leave or be removed.",
      security,
      parameters: [ORG_ID_PARAMETER, USER_ID_PARAMETER],
      responses: {
        200: {
          description: "What the removal revoked, and the shared keys it left working",
          content: jsonContent(schemaRef(registry, "OrganizationMemberRemoved", memberRemovedSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: `"${ORG_DETAIL.notAllowed}"`,
          404: `${NOT_A_MEMBER}; or "${ORG_TEXT.memberNotFound}"`,
          409: `"${ORG_DETAIL.lastOwner}", or "${ORG_DETAIL.personalHasNoMembers}"`,
        }),
      },
    },
    auth,
    inOrg,
    limitWrites(deps.limiter),
    async (c) => {
      const targetId = pathId(c, "user_id", "uuid");
      const actor = actorOf(c, deps.trustProxy);
      const orgId = c.var.org.id;
      const now = deps.clock.now();
      const answer = await deps.db.transaction(async (tx) => {
        const me = await lockMembership(tx, orgId, actor.id);
        if (me.personal) throw new ApiError(409, ORG_DETAIL.personalHasNoMembers);
        const target = isUserId(targetId) ? await findMember(tx, orgId, targetId) : undefined;
        if (!target) throw new ApiError(404, ORG_TEXT.memberNotFound);
        const refusal = removalRefusal(
          { userId: actor.id, role: me.role },
          { userId: target.userId, role: target.role },
          await ownerCount(tx, orgId),
        );
        if (refusal) refuse(refusal);
        const removal = await endMembership(tx, orgId, target.userId, now);
        // Nor can they pay, or be charged, through a checkout they opened for the organisation.
        await deps.billing.closeOpenCheckouts(tx, orgId, target.userId);
        const leaving = target.userId === actor.id;
        await auditOrg(
          tx,
          actor,
          orgId,
          leaving ? "member.leave" : "member.remove",
          target.userId,
          {
            role: target.role,
            revoked_keys: keyIds(removal.revokedKeys),
            shared_keys: keyIds(removal.sharedKeys),
            revoked_invitations: removal.revokedInvitations,
          },
          now,
        );
        return {
          revoked_keys: removal.revokedKeys,
          shared_keys: removal.sharedKeys,
          revoked_invitations: removal.revokedInvitations,
        };
      });
      return c.json(answer, 200);
    },
  );

  return app;
}
