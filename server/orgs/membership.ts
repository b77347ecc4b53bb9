// Which organisation a call acts on, and the caller's role there (ORGANISATIONS.md, "Which
// organisation a call acts on"). Read from the database on every request, so a removed member or a
// changed role takes effect at once on every instance. A call that names an organisation the caller
// is not a member of, or names one malformed, answers 404: a 403 would tell a stranger it exists.
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { can, type OrgAbility } from "../../contract/org-roles.ts";
import { canonicalUuid, isUserId } from "../accounts/users.ts";
import { preparedPerHandle } from "../db/prepared.ts";
import { auditLog, organizationMembers, organizations } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError } from "../http/errors.ts";
import { READS_ORG_HEADER } from "../http/openapi.ts";
import type { ActingOrg } from "./acting-org.ts";

/** The one header that chooses the organisation (never a query parameter or a cookie). */
export const ORG_HEADER = "X-Organization";

export type { ActingOrg };

export const orgNotFound = () => new ApiError(404, ORG_DETAIL.notFound);

/** The caller's own personal organisation, known without a read: its id is theirs and they own it. */
export const personalOrg = (userId: string): ActingOrg => ({
  id: userId,
  name: null,
  personal: true,
  role: "owner",
  monthlyCreditCap: null,
});

// Every call with X-Organization runs this one (the membership check): prepared, as the user's read is.
const membershipQuery = preparedPerHandle((db) =>
  db
    .select({
      id: organizations.id,
      name: organizations.name,
      personal: organizations.personal,
      role: organizationMembers.role,
      monthlyCreditCap: organizationMembers.monthlyCreditCap,
    })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
    .where(
      and(
        eq(organizationMembers.orgId, sql.placeholder("orgId")),
        eq(organizationMembers.userId, sql.placeholder("userId")),
        isNull(organizations.deletedAt),
      ),
    )
    .prepare("membership"),
);

/**
 * Whether `userId`'s membership of organisation `orgId` ended because the organisation was deleted:
 * its `org.delete` audit entry lists the members it had then. Nobody else learns that it was
 * deleted (a member removed before, a stranger): to them it is just not theirs.
 */
export async function endedByDeletion(db: DbOrTx, orgId: string, userId: string): Promise<boolean> {
  if (!isUserId(orgId)) return false;
  const [row] = await db
    .select({ seq: auditLog.seq })
    .from(auditLog)
    .innerJoin(organizations, eq(organizations.id, auditLog.subjectOrgId))
    .where(
      and(
        eq(auditLog.subjectOrgId, orgId),
        eq(auditLog.action, "org.delete"),
        isNotNull(organizations.deletedAt),
        sql`${auditLog.details} -> 'members' @> ${JSON.stringify([userId])}::jsonb`,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** `userId`'s membership of organisation `orgId` (not deleted), or undefined. */
export async function findMembership(
  db: DbOrTx,
  orgId: string,
  userId: string,
): Promise<ActingOrg | undefined> {
  if (!isUserId(orgId)) return undefined;
  const [row] = await membershipQuery(db).execute({ orgId, userId });
  return row;
}

/** The organisation id a header names, in canonical form, or undefined when there is none. */
export function headerOrgId(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? canonicalUuid(trimmed) : undefined;
}

/**
 * Sets `c.var.org` for a call that reads X-Organization (after requireUser): the organisation the
 * header names, or the caller's personal one without it. `fallbackToPersonal` is GET /v1/users/me's
 * rule: a header naming an organisation the caller left answers the personal one, so a removed
 * member's portal recovers.
 */
export function actingOrg(
  db: DbOrTx,
  options: { fallbackToPersonal?: boolean } = {},
): MiddlewareHandler<AppEnv> {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const user = c.get("user");
    const wanted = headerOrgId(c.req.header(ORG_HEADER));
    let org: ActingOrg | undefined;
    if (wanted === undefined || wanted === user.id) org = personalOrg(user.id);
    else org = await findMembership(db, wanted, user.id);
    if (!org) {
      if (!options.fallbackToPersonal) throw orgNotFound();
      org = personalOrg(user.id);
    }
    c.set("org", org);
    await next();
  };
  // The OpenAPI document lists the header on its routes, and the 404 where it can answer one.
  return Object.assign(middleware, {
    [READS_ORG_HEADER]: options.fallbackToPersonal ? "never refuses" : "may refuse",
  });
}

/** Refuses (403) a caller whose role in the acting organisation lacks `ability`. */
export function requireOrgAbility(ability: OrgAbility): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!can(c.get("org").role, ability)) throw new ApiError(403, ORG_DETAIL.notAllowed);
    await next();
  };
}
