// The whole audit log for admins: a page of entries with filters, and the filtered log as a CSV
// streamed in chain order (OPERATIONS.md).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { EMAIL_MAX } from "../../../contract/account.ts";
import { ADMIN_TEXT, auditPageSchema } from "../../../contract/admin.ts";
import { isPrintableText } from "../../../contract/free-text.ts";
import { canonicalUuid, findUserByEmail, findUserByUsername, isUserId } from "../../accounts/users.ts";
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
  // As long as an e-mail address may be: an account is named by any of the three.
  text("actor", "A username, e-mail address or user id: entries by that staff member or user", EMAIL_MAX),
  text("subject", "A username, e-mail address or user id: entries about that account", EMAIL_MAX),
  text("action", "An action (credits.grant), or a family with its trailing dot (credits.)"),
  text("from", "Entries at or after this instant (ISO 8601: 2026-11-01 or 2026-11-01T00:00:00Z)", 40),
  text("to", "Entries before this instant (ISO 8601)", 40),
];

const refuse = (field: string, msg: string) =>
  new RequestValidationError([{ loc: ["query", field], msg, type: "value_error" }]);

/**
 * The user an actor or subject names: a user id as it is (in any case, decision 022), so that
 * entries about an account deleted since still match; otherwise the account with that e-mail
 * address or username (staff type what they read, not ids), or a 422 naming the field.
 */
async function userIdOf(deps: AdminDeps, field: string, value: string | undefined) {
  const name = value?.trim();
  if (!name) return undefined;
  const id = canonicalUuid(name);
  if (isUserId(id)) return id;
  // No username or address holds a control character (and PostgreSQL's text refuses U+0000).
  if (!isPrintableText(name)) throw refuse(field, ADMIN_TEXT.noSuchAccount);
  const user = name.includes("@")
    ? await findUserByEmail(deps.db, name)
    : await findUserByUsername(deps.db, name);
  if (!user) throw refuse(field, ADMIN_TEXT.noSuchAccount);
  return user.id;
}

/** The query's filter; a 422 naming the field for an unknown account or a time that is not ISO 8601. */
async function readFilter(c: Context<AppEnv>, deps: AdminDeps): Promise<AuditFilter> {
  const instant = (field: "from" | "to") => {
    const value = c.req.query(field);
    if (!value) return undefined;
    const at = new Date(value);
    if (value.length > 40 || Number.isNaN(at.getTime())) throw refuse(field, ADMIN_TEXT.notIsoTime);
    return at;
  };
  const word = (field: string, max = 100) => c.req.query(field)?.slice(0, max) || undefined;
  const [from, to] = [instant("from"), instant("to")];
  return {
    actor: await userIdOf(deps, "actor", word("actor", EMAIL_MAX)),
    subject: await userIdOf(deps, "subject", word("subject", EMAIL_MAX)),
    action: word("action"),
    from,
    to,
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
    422: "An actor or subject no account has, or a time that is not ISO 8601",
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
    async (c) =>
      c.json(await listAudit(deps.db, await readFilter(c, deps), c.req.query("cursor") || undefined), 200),
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
    async (c) => {
      const filter = await readFilter(c, deps);
      const day = deps.clock.now().toISOString().slice(0, 10);
      return csvDownload(c, auditCsvStream(deps.db, filter), `audit-log-${day}.csv`);
    },
  );
  return app;
}
