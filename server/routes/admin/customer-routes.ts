// The console's reads (OPERATIONS.md): search customers, and a customer's account, ledger,
// payments, usage and audit trail. Support staff and admins.
import { OpenAPIHono } from "@hono/zod-openapi";
import {
  ADMIN_TEXT,
  adminLedgerSchema,
  adminPaymentListSchema,
  auditPageSchema,
  customerSchema,
  customerSearchSchema,
} from "../../../contract/admin.ts";
import { usageSchema } from "../../../contract/usage.ts";
import { findUserById } from "../../accounts/users.ts";
import { listAudit } from "../../audit/audit-query.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  PATH_IDS,
  pathParameter,
  schemaRef,
} from "../../http/openapi.ts";
import { pathId } from "../../http/path-id.ts";
import { searchCustomers } from "../../operations/customer-search.ts";
import { customerLedger, customerOverview } from "../../operations/customer-views.ts";
import { customerProviderIds, paymentsWithProviderIds } from "../../operations/provider-ids.ts";
import { USAGE_PARAMETERS, usageAnswer } from "../usage/routes.ts";
import { type AdminDeps, requirePermission, staffSecurity } from "./admin-deps.ts";

const cursorParameter = {
  name: "cursor",
  in: "query" as const,
  required: false,
  description: "The `next_cursor` of the previous page",
  schema: { type: "string" as const, maxLength: 200 },
};

export function adminCustomerRoutes(deps: AdminDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const guard = [requireUser(deps), requirePermission("viewCustomers")] as const;
  const security = staffSecurity("viewCustomers");
  const tags = ["admin"];
  const errors = (extra: Record<number, string> = {}) =>
    errorResponses(registry, {
      401: "No valid access token",
      403: "Not support staff or an admin",
      ...extra,
    });
  const customerId = pathParameter("id", "The customer's user id", PATH_IDS.uuid);

  /** The customer's id from the path, if the customer exists; 404 otherwise. */
  async function existing(id: string): Promise<string> {
    if (!(await findUserById(deps.db, id))) throw new ApiError(404, ADMIN_TEXT.customerNotFound);
    return id;
  }

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/customers",
      operationId: "adminSearchCustomers",
      tags,
      summary:
        "Find customers by e-mail or username prefix, user id, API key prefix, invoice number or customer id",
      security,
      parameters: [
        {
          name: "q",
          in: "query",
          required: false,
          description:
            "An e-mail or username prefix (any case), a user id, an API key or its start (gpk_…), an invoice number (INV-…) or a provider customer id (cus_…). Empty: every customer, newest first.",
          schema: { type: "string", maxLength: 200 },
        },
        cursorParameter,
      ],
      responses: {
        200: {
          description: "Twenty customers a page, newest first",
          content: jsonContent(schemaRef(registry, "CustomerSearch", customerSearchSchema)),
        },
        ...errors(),
      },
    },
    ...guard,
    async (c) => {
      const q = c.req.query("q") ?? "";
      const cursor = c.req.query("cursor") || undefined;
      return c.json(await searchCustomers(deps.db, q, cursor, deps.clock.now(), deps.tiers), 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/customers/{id}",
      operationId: "adminGetCustomer",
      tags,
      summary: "A customer's account, plan, credits, API keys, billing details and provider ids",
      security,
      parameters: [customerId],
      responses: {
        200: {
          description: "The customer (never a password, token or key secret)",
          content: jsonContent(schemaRef(registry, "Customer", customerSchema)),
        },
        ...errors({ 404: ADMIN_TEXT.customerNotFound }),
      },
    },
    ...guard,
    async (c) => {
      const id = pathId(c, "id", "uuid");
      const found = await customerOverview(deps.db, id, deps.clock.now(), deps.tiers);
      if (!found) throw new ApiError(404, ADMIN_TEXT.customerNotFound);
      return c.json({ ...found, ...(await customerProviderIds(deps.db, id)) }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/customers/{id}/ledger",
      operationId: "adminCustomerLedger",
      tags,
      summary:
        "Every grant, spend (per Berlin day and feature), adjustment and operator change, newest first",
      security,
      parameters: [customerId, cursorParameter],
      responses: {
        200: {
          description: "Fifty lines a page",
          content: jsonContent(schemaRef(registry, "AdminLedger", adminLedgerSchema)),
        },
        ...errors({ 404: ADMIN_TEXT.customerNotFound }),
      },
    },
    ...guard,
    async (c) => {
      const id = await existing(pathId(c, "id", "uuid"));
      return c.json(await customerLedger(deps.db, id, c.req.query("cursor") || undefined), 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/customers/{id}/payments",
      operationId: "adminCustomerPayments",
      tags,
      summary:
        "A customer's payments with VAT, refunds, disputes, credit notes and provider ids, newest first",
      security,
      parameters: [customerId],
      responses: {
        200: {
          description: "The payments",
          content: jsonContent(schemaRef(registry, "AdminPaymentList", adminPaymentListSchema)),
        },
        ...errors({ 404: ADMIN_TEXT.customerNotFound }),
      },
    },
    ...guard,
    async (c) => {
      const id = await existing(pathId(c, "id", "uuid"));
      return c.json({ data: await paymentsWithProviderIds(deps.db, id) }, 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/customers/{id}/usage",
      operationId: "adminCustomerUsage",
      tags,
      summary: "A customer's usage, as GET /v1/usage answers it",
      security,
      parameters: [customerId, ...USAGE_PARAMETERS],
      responses: {
        200: {
          description: "The groups and the range's total",
          content: jsonContent(schemaRef(registry, "Usage", usageSchema)),
        },
        ...errors({ 404: ADMIN_TEXT.customerNotFound, 422: "A wrong range or group_by" }),
      },
    },
    ...guard,
    async (c) => {
      const id = await existing(pathId(c, "id", "uuid"));
      return c.json(await usageAnswer(c, deps, id), 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/customers/{id}/audit",
      operationId: "adminCustomerAudit",
      tags,
      summary: "The audit entries about a customer, newest first",
      security,
      parameters: [customerId, cursorParameter],
      responses: {
        200: {
          description: "Fifty entries a page",
          content: jsonContent(schemaRef(registry, "AuditPage", auditPageSchema)),
        },
        ...errors({ 404: ADMIN_TEXT.customerNotFound }),
      },
    },
    ...guard,
    async (c) => {
      const id = await existing(pathId(c, "id", "uuid"));
      return c.json(await listAudit(deps.db, { subject: id }, c.req.query("cursor") || undefined), 200);
    },
  );

  return app;
}
