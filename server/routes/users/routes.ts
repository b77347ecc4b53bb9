// GET /v1/users/me: the signed-in user with the balance and plan of the organisation of
// X-Organization (ORGANISATIONS.md), or of their personal organisation without it. A header naming
// an organisation the user is no longer a member of answers the personal one (never 404), so a
// removed member's portal recovers: it sees `organization` differ from its choice and clears it
// (`chosen_organization_deleted` tells a member of a deleted organisation why).
// `dispute_hold` is that organisation's, as its credits are (a held one's keys are refused 402);
// with it, an owner or billing member reads the disputed payment's invoice (`dispute_hold_invoice`).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type User, userSchema } from "../../../contract/account.ts";
import { seesBilling } from "../../../contract/account-area.ts";
import { holdInvoice } from "../../billing/dispute-hold.ts";
import { findMembershipWithBilling, findUserWithBilling } from "../../billing/user-billing.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { authenticate } from "../../http/auth-guard.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  READS_ORG_HEADER,
  SIGNED_IN,
  schemaRef,
} from "../../http/openapi.ts";
import { endedByDeletion, headerOrgId, ORG_HEADER } from "../../orgs/membership.ts";
import type { ApiDeps } from "../api-deps.ts";
import { presentUserWithBilling } from "./present-user.ts";

export function userRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;

  addRoute(
    app,
    {
      method: "get",
      path: "/users/me",
      operationId: "getCurrentUser",
      tags: ["users"],
      summary: "The logged-in user, with the credit balance and subscription of the chosen organisation",
      security: SIGNED_IN,
      responses: {
        200: { description: "The user", content: jsonContent(schemaRef(registry, "User", userSchema)) },
        ...errorResponses(registry, { 401: "No valid access token (WWW-Authenticate: Bearer)" }),
      },
    },
    // requireUser's checks, with the user and their billing read in one statement (the API's most
    // frequent call: every page load of a logged-in visitor makes it).
    Object.assign(
      async (c: Context<AppEnv>) => {
        const account = await authenticate(deps, c.req.header("authorization"), findUserWithBilling);
        const now = deps.clock.now();
        const personal: User = {
          ...presentUserWithBilling(account, now, deps.tiers),
          organization: { id: account.user.id, name: null, personal: true, role: "owner" },
          dispute_hold: account.disputeHold === true,
        };
        const wanted = headerOrgId(c.req.header(ORG_HEADER));
        // The personal organisation costs no second read: its billing came with the user.
        if (wanted === undefined || wanted === account.user.id)
          return c.json(await withHoldInvoice(deps, personal), 200);
        const found = await findMembershipWithBilling(deps.db, wanted, account.user.id, now, deps.tiers);
        if (!found) {
          // Rare (a page that still holds a choice its user lost): the second read only then.
          const deleted = await endedByDeletion(deps.db, wanted, account.user.id);
          const answer = deleted ? { ...personal, chosen_organization_deleted: true } : personal;
          return c.json(await withHoldInvoice(deps, answer), 200);
        }
        const { org, billing, disputeHold } = found;
        const answer: User = {
          ...personal,
          ...billing,
          organization: { id: org.id, name: org.name, personal: org.personal, role: org.role },
          dispute_hold: disputeHold,
        };
        return c.json(await withHoldInvoice(deps, answer), 200);
      },
      { [READS_ORG_HEADER]: "never refuses" },
    ),
  );
  return app;
}

/**
 * `answer` with its hold's invoice for a reader who can open it (an owner or billing member): one
 * more read, made only on a hold.
 */
async function withHoldInvoice(deps: ApiDeps, answer: User): Promise<User> {
  const org = answer.organization;
  if (!answer.dispute_hold || !org || !seesBilling(org)) return answer;
  const invoice = await holdInvoice(deps.db, org.id);
  if (!invoice) return answer;
  const { id, number, invoiceUrl } = invoice;
  return { ...answer, dispute_hold_invoice: { id, number, invoice_url: invoiceUrl } };
}
