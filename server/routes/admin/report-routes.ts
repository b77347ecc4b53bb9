// The quarterly VAT report for admins (OPERATIONS.md): JSON for the console, CSV for the tax
// adviser, over the same lines.
import { OpenAPIHono } from "@hono/zod-openapi";
import { stringify } from "csv-stringify/sync";
import type { Context } from "hono";
import { metricsSchema, type VatReportView, vatReportSchema } from "../../../contract/admin.ts";
import { usageQuerySchema } from "../../../contract/usage.ts";
import { quarterOf } from "../../domain/vat-report.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireUser } from "../../http/auth-guard.ts";
import { csvDownload } from "../../http/csv-download.ts";
import { RequestValidationError } from "../../http/errors.ts";
import { addRoute, errorResponses, jsonContent, schemaRef } from "../../http/openapi.ts";
import { parseWith } from "../../http/validation.ts";
import { businessMetrics } from "../../operations/metrics.ts";
import { decimalAmount, VAT_CSV_COLUMNS, type VatReport, vatReport } from "../../operations/vat-report.ts";
import { isRefusal, usageRange } from "../../usage/usage-range.ts";
import { type AdminDeps, requirePermission, staffSecurity } from "./admin-deps.ts";

const QUARTER_PARAMETER = {
  name: "quarter",
  in: "query" as const,
  required: false,
  description: "A Berlin calendar quarter, e.g. 2026-Q4. Default: the current one.",
  schema: { type: "string" as const, pattern: "^\\d{4}-Q[1-4]$", maxLength: 7 },
};

export function reportView(report: VatReport): VatReportView {
  return {
    quarter: report.quarter,
    from: report.from.toISOString(),
    to: report.to.toISOString(),
    lines: report.lines.map((l) => ({
      section: l.section,
      country: l.country,
      rate: l.rate,
      vat_id: l.vatId,
      original_quarter: l.originalQuarter,
      currency: l.currency,
      net: l.net,
      vat: l.vat,
      documents: l.count,
    })),
    totals: report.totals,
  };
}

export function adminReportRoutes(deps: AdminDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const guard = [requireUser(deps), requirePermission("viewReports")] as const;
  const security = staffSecurity("viewReports");
  const errors = errorResponses(registry, {
    401: "No valid access token",
    403: "Not an admin",
    422: "A quarter that is not YYYY-Qn",
  });

  async function read(c: Context<AppEnv>): Promise<VatReport> {
    const quarter = c.req.query("quarter") || quarterOf(deps.clock.now());
    const report = await vatReport(deps.db, quarter);
    if (!report) {
      throw new RequestValidationError([
        { loc: ["query", "quarter"], msg: "Use a quarter as YYYY-Qn, e.g. 2026-Q4", type: "value_error" },
      ]);
    }
    return report;
  }

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/reports/vat",
      operationId: "adminVatReport",
      tags: ["admin"],
      summary:
        "The quarter's VAT figures: domestic, OSS per member state and rate, reverse charge per VAT ID, outside the EU",
      description:
        "Refunds count in the quarter their credit note is issued, as negative lines naming the quarter of the sale (`original_quarter`). Amounts in minor units with their currency.",
      security,
      parameters: [QUARTER_PARAMETER],
      responses: {
        200: {
          description: "The report",
          content: jsonContent(schemaRef(registry, "VatReport", vatReportSchema)),
        },
        ...errors,
      },
    },
    ...guard,
    async (c) => c.json(reportView(await read(c)), 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/admin/reports/vat.csv",
      operationId: "adminVatReportCsv",
      tags: ["admin"],
      summary: "The same report as CSV for the tax adviser (amounts as decimals)",
      security,
      parameters: [QUARTER_PARAMETER],
      responses: {
        200: { description: "The report's lines", content: { "text/csv": { schema: { type: "string" } } } },
        ...errors,
      },
    },
    ...guard,
    async (c) => {
      const report = await read(c);
      const rows = report.lines.map((l) => [
        l.section,
        l.country ?? "",
        l.rate ?? "",
        l.vatId ?? "",
        l.originalQuarter ?? "",
        l.currency.toUpperCase(),
        decimalAmount(l.net),
        decimalAmount(l.vat),
        l.count,
      ]);
      // No formula escaping here: it would turn "-79.00" into text a spreadsheet cannot sum, and no
      // cell is free text (sections and quarters are ours, countries ISO codes, VAT IDs checked).
      const csv = stringify([[...VAT_CSV_COLUMNS], ...rows]);
      return csvDownload(c, csv, `vat-${report.quarter}.csv`);
    },
  );
  addRoute(
    app,
    {
      method: "get",
      path: "/admin/metrics",
      operationId: "adminMetrics",
      tags: ["admin"],
      summary:
        "The business per Berlin day and month, and now: sign-ups, payers, churn, MRR, revenue, credits",
      security,
      parameters: [
        {
          name: "from",
          in: "query",
          required: false,
          description: "First Berlin day (YYYY-MM-DD). Default: 29 days before 'to'.",
          schema: { type: "string", format: "date", maxLength: 10 },
        },
        {
          name: "to",
          in: "query",
          required: false,
          description: "Last Berlin day, included (at most 366 days after 'from'). Default: today.",
          schema: { type: "string", format: "date", maxLength: 10 },
        },
      ],
      responses: {
        200: {
          description: "The figures",
          content: jsonContent(schemaRef(registry, "Metrics", metricsSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: "Not an admin",
          422: "A date that is not YYYY-MM-DD, 'from' after 'to', or a range over 366 days",
        }),
      },
    },
    ...guard,
    async (c) => {
      const query = parseWith(usageQuerySchema, c.req.query(), "query");
      const range = usageRange(query, deps.clock.now());
      if (isRefusal(range)) {
        throw new RequestValidationError([
          { loc: ["query", range.field], msg: range.message, type: "value_error" },
        ]);
      }
      return c.json(await businessMetrics(deps.db, range, deps.catalogue), 200);
    },
  );
  return app;
}
