// What the /v1/orgs and /v1/invitations routes are built from, and what they share: the
// organisation a path names (404 for anyone not a member of it), the actor as the audit log
// records them, and the answer shapes.
import type { Context, MiddlewareHandler } from "hono";
import type { Member, Org } from "../../../contract/orgs.ts";
import type { Billing } from "../../billing/service.ts";
import type { Db } from "../../db/types.ts";
import { fromMillicredits } from "../../domain/ledger.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { clientIp } from "../../http/client-ip.ts";
import { PATH_IDS, pathParameter } from "../../http/openapi.ts";
import { pathId } from "../../http/path-id.ts";
import { findMembership, orgNotFound } from "../../orgs/membership.ts";
import type { OrgMails } from "../../orgs/org-mails.ts";
import type { MemberRow, OrgActor } from "../../orgs/orgs.ts";
import type { ApiDeps } from "../api-deps.ts";

export interface OrgRouteDeps extends ApiDeps {
  billing: Pick<Billing, "endSubscriptionNow" | "closeOpenCheckouts" | "closeMemberCheckouts">;
  orgMails: OrgMails;
}

export const ORG_ID_PARAMETER = pathParameter("id", "The organisation's id", PATH_IDS.uuid);
export const NOT_A_MEMBER =
  "Organisation not found: no such organisation, or the caller is not a member of it";

/**
 * After requireUser: the organisation the path's `{id}` names, with the caller's role there, as
 * `c.var.org`; 404 when the caller is not a member of it (never 403: a stranger learns nothing).
 */
export function pathOrg(db: Db): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const org = await findMembership(db, pathId(c, "id", "uuid"), c.var.user.id);
    if (!org) throw orgNotFound();
    c.set("org", org);
    await next();
  };
}

export function actorOf(c: Context<AppEnv>, trustProxy: boolean): OrgActor {
  return { id: c.var.user.id, username: c.var.user.username, ip: clientIp(c, trustProxy) };
}

export function orgAnswer(
  org: { id: string; name: string | null; personal: boolean; createdAt: Date },
  role: Org["role"],
  memberCount: number,
): Org {
  return {
    id: org.id,
    name: org.name,
    personal: org.personal,
    role,
    member_count: memberCount,
    created_at: org.createdAt.toISOString(),
  };
}

/**
 * A member as the viewer may see them (ORGANISATIONS.md "Roles"): the e-mail only for roles that
 * see members' e-mails; the cap and this month's spend only for roles that see everyone's usage, and
 * to each member their own (a developer's usage is "own only").
 */
export function memberAnswer(
  row: MemberRow,
  spent: number,
  shown: { email: boolean; usage: boolean },
): Member {
  const member: Member = {
    user_id: row.userId,
    username: row.username,
    email: shown.email ? row.email : null,
    role: row.role,
    joined_at: row.joinedAt.toISOString(),
  };
  if (!shown.usage) return member;
  return {
    ...member,
    monthly_credit_cap: row.monthlyCreditCap === null ? null : fromMillicredits(row.monthlyCreditCap),
    spent_this_month: fromMillicredits(spent),
  };
}
