// /v1/orgs: the caller's organisations, creating, renaming and deleting one, and handing it over
// (ORGANISATIONS.md, "Calls"). The path names the organisation; X-Organization is ignored here.
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { Context } from "hono";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { can } from "../../../contract/org-roles.ts";
import {
  deleteOrgRequestSchema,
  forfeitRefusalSchema,
  ORG_TEXT,
  orgListSchema,
  orgNameRequestSchema,
  orgSchema,
  transferRequestSchema,
} from "../../../contract/orgs.ts";
import { canonicalUuid, isUserId } from "../../accounts/users.ts";
import { userBilling } from "../../billing/user-billing.ts";
import { organizationMembers, organizations } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, reauthRefusal, requireRecentAuth, requireUser } from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  SIGNED_IN,
  schemaRef,
  withFields,
} from "../../http/openapi.ts";
import { parseJsonBody } from "../../http/validation.ts";
import { requireOrgAbility } from "../../orgs/membership.ts";
import { deleteOrganisation, lossOnDeletion, lossRefusal } from "../../orgs/org-deletion.ts";
import {
  auditOrg,
  createOrg,
  endWhatTheRoleLost,
  findMember,
  findOrg,
  lockMembership,
  memberCount,
  orgsOf,
  ownsTheMost,
} from "../../orgs/orgs.ts";
import {
  actorOf,
  NOT_A_MEMBER,
  ORG_ID_PARAMETER,
  type OrgRouteDeps,
  orgAnswer,
  pathOrg,
} from "./org-deps.ts";

const TAGS = ["organisations"];

/** A body that may be left out: none at all reads as `{}`. */
async function optionalBody<T>(c: Context, parse: () => Promise<T>, empty: T): Promise<T> {
  const length = c.req.header("content-length");
  if (!c.req.header("content-type") && (length === undefined || length === "0")) return empty;
  return parse();
}

export function orgRoutes(deps: OrgRouteDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  const inOrg = pathOrg(deps.db);
  const security = SIGNED_IN;
  const orgContent = () => jsonContent(schemaRef(registry, "Organization", orgSchema));
  const nameBody = () => ({
    content: jsonContent(schemaRef(registry, "OrganizationNameRequest", orgNameRequestSchema, "input")),
  });

  addRoute(
    app,
    {
      method: "get",
      path: "/orgs",
      operationId: "listOrganizations",
      tags: TAGS,
      summary: "The caller's organisations: the personal one first, then the teams by name",
      security,
      responses: {
        200: {
          description: "Organisations with the caller's role, balance and plan",
          content: jsonContent(schemaRef(registry, "OrganizationList", orgListSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    auth,
    async (c) => {
      const now = deps.clock.now();
      const orgs = await orgsOf(deps.db, c.var.user.id);
      const data = await Promise.all(
        orgs.map(async (org) => {
          const billing = await userBilling(deps.db, org.id, now, deps.tiers);
          return {
            id: org.id,
            name: org.name,
            personal: org.personal,
            role: org.role,
            credit_balance: billing.credit_balance,
            plan: billing.subscription?.plan ?? "FREE",
          };
        }),
      );
      return c.json({ data }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/orgs",
      operationId: "createOrganization",
      tags: TAGS,
      summary: "Create a team organisation; the caller becomes its owner",
      description:
        "It starts on the Free plan with no credits. A verified e-mail address is needed; one person owns at most 20.",
      security,
      request: { body: nameBody() },
      responses: {
        201: { description: "The organisation", content: orgContent() },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: `"${ORG_DETAIL.emailNotVerified}"`,
          409: `"${ORG_DETAIL.ownerLimit}"`,
          422: 'A name that is not 2-60 printable characters without < > / :, or is "Personal"',
        }),
      },
    },
    auth,
    limitWrites(deps.limiter),
    async (c) => {
      const user = c.var.user;
      if (!user.emailVerified) throw new ApiError(403, ORG_DETAIL.emailNotVerified);
      const { name } = await parseJsonBody(c, orgNameRequestSchema);
      const now = deps.clock.now();
      const org = await deps.db.transaction((tx) => createOrg(tx, actorOf(c, deps.trustProxy), name, now));
      return c.json(orgAnswer(org, "owner", 1), 201);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/orgs/{id}",
      operationId: "getOrganization",
      tags: TAGS,
      summary: "An organisation with the caller's role and its member count",
      security,
      parameters: [ORG_ID_PARAMETER],
      responses: {
        200: { description: "The organisation", content: orgContent() },
        ...errorResponses(registry, { 401: "No valid access token", 404: NOT_A_MEMBER }),
      },
    },
    auth,
    inOrg,
    async (c) => {
      const { org } = c.var;
      const [row, count] = await Promise.all([findOrg(deps.db, org.id), memberCount(deps.db, org.id)]);
      if (!row) throw new ApiError(404, ORG_DETAIL.notFound);
      return c.json(orgAnswer(row, org.role, count), 200);
    },
  );

  addRoute(
    app,
    {
      method: "patch",
      path: "/orgs/{id}",
      operationId: "renameOrganization",
      tags: TAGS,
      summary: "Rename a team organisation (owners and managers)",
      security,
      parameters: [ORG_ID_PARAMETER],
      request: { body: nameBody() },
      responses: {
        200: { description: "The organisation as renamed", content: orgContent() },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: `"${ORG_DETAIL.notAllowed}"`,
          404: NOT_A_MEMBER,
          409: `"${ORG_DETAIL.personalHasNoMembers}": a personal organisation has no name to change`,
          422: 'A name that is not 2-60 printable characters without < > / :, or is "Personal"',
        }),
      },
    },
    auth,
    inOrg,
    limitWrites(deps.limiter),
    async (c) => {
      const { name } = await parseJsonBody(c, orgNameRequestSchema);
      const now = deps.clock.now();
      const actor = actorOf(c, deps.trustProxy);
      const answer = await deps.db.transaction(async (tx) => {
        const me = await lockMembership(tx, c.var.org.id, actor.id);
        if (me.personal) throw new ApiError(409, ORG_DETAIL.personalHasNoMembers);
        if (!can(me.role, "rename")) throw new ApiError(403, ORG_DETAIL.notAllowed);
        const [row] = await tx
          .update(organizations)
          .set({ name })
          .where(eq(organizations.id, me.id))
          .returning();
        if (!row) throw new ApiError(404, ORG_DETAIL.notFound);
        if (me.name !== name)
          await auditOrg(tx, actor, me.id, "org.rename", null, { from: me.name, to: name }, now);
        return orgAnswer(row, me.role, await memberCount(tx, me.id));
      });
      return c.json(answer, 200);
    },
  );

  addRoute(
    app,
    {
      method: "delete",
      path: "/orgs/{id}",
      operationId: "deleteOrganization",
      tags: TAGS,
      summary: "Delete a team organisation (owners, recent authentication)",
      description:
        "Without `confirm_forfeit: true` it answers 409 with what would be lost. With it (and `forfeit`, the figures the caller was shown: more to lose by now answers 409 again with the new figures, deleting nothing), in one transaction: the subscription ends at once at the provider without refund, open checkouts expire, invitations and every key are revoked, a `forfeit` ledger entry writes off the credits, and the memberships end. The organisation stays, marked deleted, for its invoices, payments, ledger and audit (§ 147 AO).",
      security,
      parameters: [ORG_ID_PARAMETER],
      request: {
        body: {
          required: false,
          content: jsonContent(
            schemaRef(registry, "DeleteOrganizationRequest", deleteOrgRequestSchema, "input"),
          ),
        },
      },
      responses: {
        204: { description: "Deleted" },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: reauthRefusal(registry, `"${ORG_DETAIL.notAllowed}" (not an owner), or `),
          404: NOT_A_MEMBER,
          409: withFields(
            `"${ORG_DETAIL.personalHasNoMembers}" for a personal organisation, or "${ORG_DETAIL.forfeitConfirm}" with the credits and the days of the paid period that would be lost (without \`confirm_forfeit\`, or when more would be lost than its \`forfeit\` says)`,
            schemaRef(registry, "OrganizationForfeit", forfeitRefusalSchema),
          ),
          422: "A body that is not `{confirm_forfeit?: boolean, forfeit?: {credits, subscription_days}}`",
          500: "The payment provider could not end the subscription: nothing was deleted; try again",
        }),
      },
    },
    auth,
    inOrg,
    // The role first: nobody is asked for their password for what their role can never do.
    requireOrgAbility("delete"),
    requireRecentAuth(deps),
    async (c) => {
      const body = await optionalBody(c, () => parseJsonBody(c, deleteOrgRequestSchema), {});
      const { org } = c.var;
      if (org.personal) throw new ApiError(409, ORG_DETAIL.personalHasNoMembers);
      if (!can(org.role, "delete")) throw new ApiError(403, ORG_DETAIL.notAllowed);
      const now = deps.clock.now();
      if (body.confirm_forfeit !== true)
        throw lossRefusal(await lossOnDeletion(deps.db, org.id, now, deps.tiers));
      await deleteOrganisation(deps, org.id, actorOf(c, deps.trustProxy), now, body.forfeit);
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/orgs/{id}/transfer-ownership",
      operationId: "transferOrganization",
      tags: TAGS,
      summary:
        "Make another member an owner and the caller a manager, in one step (owners, recent authentication)",
      description:
        "As a role change to manager: the pending billing invitations the caller sent are revoked, and the checkout and card-setup sessions they opened for the organisation expire (and the local card-change page; a Stripe Billing Portal session cannot be ended early). Nobody becomes the owner of more than 20 organisations.",
      security,
      parameters: [ORG_ID_PARAMETER],
      request: {
        body: {
          content: jsonContent(
            schemaRef(registry, "TransferOwnershipRequest", transferRequestSchema, "input"),
          ),
        },
      },
      responses: {
        200: { description: "The organisation, with the caller's new role", content: orgContent() },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: reauthRefusal(registry, `"${ORG_DETAIL.notAllowed}" (not an owner), or `),
          404: `${NOT_A_MEMBER}; or "${ORG_TEXT.memberNotFound}"`,
          409: `"${ORG_DETAIL.personalHasNoMembers}", or "${ORG_DETAIL.memberOwnerLimit("{username}")}"`,
          422: `No \`user_id\`, or the caller's own ("${ORG_TEXT.transferToSelf}")`,
        }),
      },
    },
    auth,
    inOrg,
    requireOrgAbility("transfer"),
    requireRecentAuth(deps),
    limitWrites(deps.limiter),
    async (c) => {
      const body = await parseJsonBody(c, transferRequestSchema);
      const targetId = canonicalUuid(body.user_id);
      const actor = actorOf(c, deps.trustProxy);
      const now = deps.clock.now();
      const answer = await deps.db.transaction(async (tx) => {
        const me = await lockMembership(tx, c.var.org.id, actor.id);
        if (me.personal) throw new ApiError(409, ORG_DETAIL.personalHasNoMembers);
        if (!can(me.role, "transfer")) throw new ApiError(403, ORG_DETAIL.notAllowed);
        if (targetId === actor.id) throw new ApiError(422, ORG_TEXT.transferToSelf);
        const target = isUserId(targetId) ? await findMember(tx, me.id, targetId) : undefined;
        if (!target) throw new ApiError(404, ORG_TEXT.memberNotFound);
        if (target.role !== "owner" && (await ownsTheMost(tx, target.userId))) {
          throw new ApiError(409, ORG_DETAIL.memberOwnerLimit(target.username));
        }
        const setRole = (userId: string, role: "owner" | "manager") =>
          tx
            .update(organizationMembers)
            .set({ role })
            .where(and(eq(organizationMembers.orgId, me.id), eq(organizationMembers.userId, userId)));
        await setRole(target.userId, "owner");
        await setRole(actor.id, "manager");
        // The former owner is a manager now, with what any change of role ends (members.ts).
        const { revokedInvitations } = await endWhatTheRoleLost(tx, deps.billing.closeMemberCheckouts, {
          orgId: me.id,
          userId: actor.id,
          from: me.role,
          to: "manager",
          now,
        });
        await auditOrg(
          tx,
          actor,
          me.id,
          "org.transfer",
          target.userId,
          {
            to: target.userId,
            to_username: target.username,
            from_role: target.role,
            revoked_invitations: revokedInvitations,
          },
          now,
        );
        const row = await findOrg(tx, me.id);
        if (!row) throw new ApiError(404, ORG_DETAIL.notFound);
        return orgAnswer(row, "manager", await memberCount(tx, me.id));
      });
      return c.json(answer, 200);
    },
  );

  return app;
}
