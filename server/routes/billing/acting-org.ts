// What the billing calls share about the organisation they act on (X-Organization, ORGANISATIONS.md
// "Which organisation a call acts on"): the middleware pair that reads it and checks the caller's
// role there, and the refusals that come with them (actingOrg documents the header itself).
import type { MiddlewareHandler } from "hono";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import type { OrgAbility } from "../../../contract/org-roles.ts";
import type { DbOrTx } from "../../db/types.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { actingOrg, requireOrgAbility } from "../../orgs/membership.ts";

/** The refusals of a call that acts on an organisation, for errorResponses(). */
export const ORG_REFUSALS = {
  403: `"${ORG_DETAIL.notAllowed}": the caller's role there does not allow this; or "${DETAIL.accountDisabled}": staff disabled the account`,
  404: "Organisation not found: X-Organization names one the caller is not a member of",
} as const;

/** Sets c.var.org from X-Organization (after requireUser), then refuses a role without `ability` (403). */
export function orgWith(db: DbOrTx, ability: OrgAbility): MiddlewareHandler<AppEnv>[] {
  return [actingOrg(db), requireOrgAbility(ability)];
}
