// GET and PUT /v1/users/me/low-balance-alert: "E-mail me when my balance falls below N credits".
import { OpenAPIHono } from "@hono/zod-openapi";
import { lowBalanceAlertSchema } from "../../../contract/alerts.ts";
import { lowBalanceThreshold, setLowBalanceThreshold } from "../../alerts/low-balance.ts";
import { fromMillicredits, toMillicredits } from "../../domain/ledger.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, requireUser } from "../../http/auth-guard.ts";
import { addRoute, errorResponses, jsonContent, SIGNED_IN, schemaRef } from "../../http/openapi.ts";
import { parseJsonBody } from "../../http/validation.ts";
import { actingOrg, requireOrgAbility } from "../../orgs/membership.ts";
import type { ApiDeps } from "../api-deps.ts";

const PATH = "/users/me/low-balance-alert";

export function lowBalanceAlertRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  // The alert belongs to the organisation of X-Organization; its owners and billing members set it.
  const auth = [requireUser(deps), actingOrg(deps.db), requireOrgAbility("billing")] as const;
  const security = SIGNED_IN;
  const setting = () => ({
    description: "The setting: a threshold in whole credits, or null when the alert is off",
    content: jsonContent(schemaRef(registry, "LowBalanceAlert", lowBalanceAlertSchema)),
  });
  const asAnswer = (threshold: number | null) => ({
    threshold: threshold === null ? null : fromMillicredits(threshold),
  });

  addRoute(
    app,
    {
      method: "get",
      path: PATH,
      operationId: "getLowBalanceAlert",
      tags: ["users"],
      summary: "The low-balance e-mail alert (off by default)",
      security,
      responses: { 200: setting(), ...errorResponses(registry, { 401: "No valid access token" }) },
    },
    ...auth,
    async (c) => c.json(asAnswer(await lowBalanceThreshold(deps.db, c.var.org.id)), 200),
  );

  addRoute(
    app,
    {
      method: "put",
      path: PATH,
      operationId: "setLowBalanceAlert",
      tags: ["users"],
      summary: "Turn the low-balance e-mail alert on at a threshold, or off with null",
      description:
        "One e-mail is sent each time a charge takes the balance from at least the threshold to below it (not one per charge).",
      security,
      request: {
        body: {
          content: jsonContent(schemaRef(registry, "LowBalanceAlertRequest", lowBalanceAlertSchema, "input")),
        },
      },
      responses: {
        200: setting(),
        ...errorResponses(registry, {
          401: "No valid access token",
          422: "A threshold that is not a whole number of credits from 1 to 1,000,000",
          429: "Too many signed-in writes",
        }),
      },
    },
    ...auth,
    limitWrites(deps.limiter),
    async (c) => {
      const body = await parseJsonBody(c, lowBalanceAlertSchema);
      const threshold = body.threshold === null ? null : toMillicredits(body.threshold);
      await setLowBalanceThreshold(deps.db, c.var.org.id, threshold, deps.clock.now());
      return c.json(asAnswer(threshold), 200);
    },
  );
  return app;
}
