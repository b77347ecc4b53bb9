// Every /v1/orgs and /v1/invitations route (ORGANISATIONS.md, "Calls"), mounted by v1.ts.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env.ts";
import { activityRoutes } from "./activity.ts";
import { invitationRoutes } from "./invitations.ts";
import { memberRoutes } from "./members.ts";
import type { OrgRouteDeps } from "./org-deps.ts";
import { orgRoutes } from "./orgs.ts";

export function organisationRoutes(deps: OrgRouteDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.route("/", orgRoutes(deps));
  app.route("/", memberRoutes(deps));
  app.route("/", invitationRoutes(deps));
  app.route("/", activityRoutes(deps));
  return app;
}
