// Usage history of the organisation a call acts on (X-Organization): sums of the metered charges
// per Berlin day, feature, API key or member (GET /v1/usage), and every charge as a streamed CSV
// (GET /v1/usage.csv), over the same range. A role without "allUsage" (a developer) sees only the
// charges of the keys they made (ORGANISATIONS.md, "Roles").
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { can } from "../../../contract/org-roles.ts";
import {
  USAGE_DEFAULT_DAYS,
  USAGE_MAX_DAYS,
  type UsageDimension,
  usageQuerySchema,
  usageSchema,
} from "../../../contract/usage.ts";
import { fromMillicredits } from "../../domain/ledger.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { csvDownload } from "../../http/csv-download.ts";
import { RequestValidationError } from "../../http/errors.ts";
import { addRoute, errorResponses, jsonContent, SIGNED_IN, schemaRef } from "../../http/openapi.ts";
import { parseWith } from "../../http/validation.ts";
import { type ActingOrg, actingOrg } from "../../orgs/membership.ts";
import { usageCsvStream } from "../../usage/usage-csv.ts";
import { isRefusal, type UsageRange, usageDimensions, usageRange } from "../../usage/usage-range.ts";
import { type UsageScope, usageCharges, usageGroups } from "../../usage/usage-store.ts";
import type { ApiDeps } from "../api-deps.ts";

const refuse = (field: string, message: string) =>
  new RequestValidationError([{ loc: ["query", field], msg: message, type: "value_error" }]);

/** The query's range and dimensions, or a 422 naming the query field that is wrong. */
function readQuery(c: Context<AppEnv>, now: Date): { range: UsageRange; dimensions: UsageDimension[] } {
  const query = parseWith(usageQuerySchema, c.req.query(), "query");
  const range = usageRange(query, now);
  if (isRefusal(range)) throw refuse(range.field, range.message);
  const dimensions = usageDimensions(query.group_by);
  if (isRefusal(dimensions)) throw refuse(dimensions.field, dimensions.message);
  return { range, dimensions };
}

const dateParameter = (name: "from" | "to", description: string) => ({
  name,
  in: "query" as const,
  required: false,
  description,
  schema: { type: "string" as const, format: "date", maxLength: 10 },
});

const RANGE_PARAMETERS = [
  dateParameter(
    "from",
    `First Berlin calendar day, included. Default: ${USAGE_DEFAULT_DAYS - 1} days before 'to'.`,
  ),
  dateParameter(
    "to",
    `Last Berlin calendar day, included (at most ${USAGE_MAX_DAYS} days after 'from'). Default: today in Berlin, or ${USAGE_DEFAULT_DAYS - 1} days after 'from'.`,
  ),
];

/** The query of GET /v1/usage (and the console's usage of a customer). */
export const USAGE_PARAMETERS = [
  ...RANGE_PARAMETERS,
  {
    name: "group_by",
    in: "query" as const,
    required: false,
    description:
      "day, feature, api_key or member, or several of them comma-separated (day,feature for a chart stacked by feature). member groups by the member who made the key; the shared keys' charges and those without a key form a group each. Default: day.",
    schema: { type: "string" as const, maxLength: 40 },
  },
];

/** What the caller sees of the acting organisation's usage: everything, or the keys they made. */
export function usageScopeOf(org: Pick<ActingOrg, "id" | "role">, callerId: string): UsageScope {
  return can(org.role, "allUsage") ? { orgId: org.id } : { orgId: org.id, madeBy: callerId };
}

/** The usage answer of an organisation (all of it for a bare id) for the request's query (a 422 for a wrong one). */
export async function usageAnswer(
  c: Context<AppEnv>,
  deps: Pick<ApiDeps, "db" | "clock">,
  scopeOrOrgId: UsageScope | string,
) {
  const scope = typeof scopeOrOrgId === "string" ? { orgId: scopeOrOrgId } : scopeOrOrgId;
  const { range, dimensions } = readQuery(c, deps.clock.now());
  const groups = await usageGroups(deps.db, scope, range, dimensions);
  let uses = 0;
  let credits = 0;
  const data = groups.map((group) => {
    uses += group.uses;
    credits += group.credits;
    return {
      ...(group.date !== undefined ? { date: group.date } : {}),
      ...(group.feature !== undefined ? { feature: group.feature } : {}),
      ...(group.apiKeyId !== undefined
        ? {
            api_key_id: group.apiKeyId,
            api_key_name: group.apiKeyName,
            api_key_prefix: group.apiKeyPrefix,
          }
        : {}),
      ...(group.memberGroup !== undefined
        ? {
            member_group: group.memberGroup,
            member_id: group.memberId ?? null,
            member_username: group.memberUsername ?? null,
          }
        : {}),
      uses: group.uses,
      credits: fromMillicredits(group.credits),
    };
  });
  return { from: range.from, to: range.to, data, total: { uses, credits: fromMillicredits(credits) } };
}

export function usageRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  const org = actingOrg(deps.db);
  const security = SIGNED_IN;
  const errors = errorResponses(registry, {
    401: "No valid access token",
    404: "Organisation not found: X-Organization names one the caller is not a member of",
    422: "A date that is not YYYY-MM-DD, 'from' after 'to', a range over 366 days, or an unknown group_by",
  });

  addRoute(
    app,
    {
      method: "get",
      path: "/usage",
      operationId: "getUsage",
      tags: ["usage"],
      summary: "What the metered charges spent, per Berlin day, feature or API key",
      security,
      parameters: USAGE_PARAMETERS,
      responses: {
        200: {
          description: "The groups in day, feature, key order, and the range's total",
          content: jsonContent(schemaRef(registry, "Usage", usageSchema)),
        },
        ...errors,
      },
    },
    auth,
    org,
    async (c) => c.json(await usageAnswer(c, deps, usageScopeOf(c.var.org, c.var.user.id)), 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/usage.csv",
      operationId: "downloadUsageCsv",
      tags: ["usage"],
      summary: "Every metered charge in the range as CSV, oldest first (streamed)",
      description:
        "Columns: time (Berlin, with its offset), feature, people, quantity, credits, key_name, key_prefix, idempotency_key, and for a team organisation member (who made the key: a username, Shared keys or Without a key). A cell a spreadsheet would read as a formula starts with a quote.",
      security,
      parameters: RANGE_PARAMETERS,
      responses: {
        200: {
          description: "The charges",
          content: { "text/csv": { schema: { type: "string" } } },
        },
        ...errors,
      },
    },
    auth,
    org,
    (c) => {
      const { range } = readQuery(c, deps.clock.now());
      const scope = usageScopeOf(c.var.org, c.var.user.id);
      const body = usageCsvStream(
        (after, limit) => usageCharges(deps.db, scope, range, after, limit),
        undefined,
        !c.var.org.personal,
      );
      return csvDownload(c, body, `usage-${range.from}-to-${range.to}.csv`);
    },
  );

  return app;
}
