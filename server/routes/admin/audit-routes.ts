// The whole audit log for admins: a page of entries with filters, and the filtered log as a CSV
// streamed in chain order (OPERATIONS.md).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { auditPageSchema } from "../../../contract/admin.ts";
import { canonicalUuid } from "../../accounts/users.ts";
import { type AuditFilter, auditCsvStream, listAudit } from "../../audit/audit-query.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { csvDownload } from "../../http/csv-download.ts";
import { RequestValidationError } from "../../http/errors.ts";
import { addRoute, errorResponses, jsonContent, schemaRef } from "../../http/openapi.ts";
import { type AdminDeps, requirePermission, staffSecurity } from "./admin-deps.ts";

const text = (name: string, description: string, maxLength = 100) => ({
  name,
  in: "query" as const,
  required: false,
  description,
  schema: { type: "string" as const, maxLength },
});

const FILTER_PARAMETERS = [
  text("actor", "A user id: entries by that staff member or user"),
  text("subject", "A user id: entries about that account"),
  text("action", "An action (credits.grant), or a family with its trailing dot (credits.)"),
  text("from", "Entries at or after this instant (ISO 8601: 2026-11-01 or 2026-11-01T00:00:00Z)", 40),
  text("to", "Entries before this instant (ISO 8601)", 40),
];

/** The query's filter; a 422 naming the field for a time that is not ISO 8601. */
function readFilter(c: Context<AppEnv>): AuditFilter {
  const instant = (field: "from" | "to") => {
    const value = c.req.query(field);
    if (!value) return undefined;
    const at = new Date(value);
    if (value.length > 40 || Number.isNaN(at.getTime())) {
      throw new RequestValidationError([
        { loc: ["query", field], msg: "Use an ISO 8601 date or time", type: "value_error" },
      ]);
    }
    return at;
  };
  const word = (field: string) => c.req.query(field)?.slice(0, 100) || undefined;
  // A user id in any case names the same user (decision 022).
  const userId = (field: string) => {
    const value = word(field);
    return value === undefined ? undefined : canonicalUuid(value);
  };
  return {
    actor: userId("actor"),
    subject: userId("subject"),
    action: word("action"),
    from: instant("from"),
    to: instant("to"),
  };
}

export function adminAuditRoutes(deps: AdminDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const guard = [requireUser(deps), requirePermission("viewAuditLog")] as const;
  const security = staffSecurity("viewAuditLog");
  const errors = errorResponses(registry, {
    401: "No valid access token",
    403: "Not an admin",
    422: "A time that is not ISO 8601",
  });

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/audit",
      operationId: "adminAuditLog",
      tags: ["admin"],
      summary: "The audit log, newest first, filtered",
      security,
      parameters: [...FILTER_PARAMETERS, text("cursor", "The `next_cursor` of the previous page", 20)],
      responses: {
        200: {
          description: "Fifty entries a page",
          content: jsonContent(schemaRef(registry, "AuditPage", auditPageSchema)),
        },
        ...errors,
      },
    },
    ...guard,
    async (c) => c.json(await listAudit(deps.db, readFilter(c), c.req.query("cursor") || undefined), 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/audit.csv",
      operationId: "adminAuditCsv",
      tags: ["admin"],
      summary: "The filtered audit log as CSV, oldest first (streamed), with each row's hash",
      security,
      parameters: FILTER_PARAMETERS,
      responses: {
        200: { description: "The entries", content: { "text/csv": { schema: { type: "string" } } } },
        ...errors,
      },
    },
    ...guard,
    (c) => {
      const filter = readFilter(c);
      const day = deps.clock.now().toISOString().slice(0, 10);
      return csvDownload(c, auditCsvStream(deps.db, filter), `audit-log-${day}.csv`);
    },
  );
  return app;
}
