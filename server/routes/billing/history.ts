// The billing history for the account owner: every payment and failed renewal with its invoice,
// the billing details on file, and the page to change the card (POST /v1/billing-portal-session).
import { OpenAPIHono } from "@hono/zod-openapi";
import {
  billingDetailsInputSchema,
  billingDetailsSchema,
  billingPortalSessionSchema,
  invoiceListSchema,
  invoiceSchema,
} from "../../../contract/invoices.ts";
import type { Billing } from "../../billing/service.ts";
import { type BillingDetailsCheck, checkBillingDetails } from "../../domain/billing-details.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, requireUser } from "../../http/auth-guard.ts";
import { RequestValidationError, type ValidationItem } from "../../http/errors.ts";
import {
  addRoute,
  errorResponses,
  jsonContent,
  PATH_IDS,
  pathParameter,
  SIGNED_IN,
  schemaRef,
} from "../../http/openapi.ts";
import { pathId } from "../../http/path-id.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseJsonBody, reservedAddressProblem } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { ORG_REFUSALS, orgWith } from "./acting-org.ts";

/** A refusal of checkBillingDetails as the 422 item beside its field; null when there is none. */
function detailsProblem(checked: BillingDetailsCheck): ValidationItem | null {
  if (checked.ok) return null;
  const loc = checked.field === "country" ? ["body", "address", "country"] : ["body", "vat_id"];
  return { loc, msg: checked.message, type: "value_error" };
}

export function billingHistoryRoutes(deps: ApiDeps & { billing: Billing }): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  const security = SIGNED_IN;
  // Invoices, billing details and the card are the organisation's billing: owners and billing members.
  const billingOrg = orgWith(deps.db, "billing");

  addRoute(
    app,
    {
      method: "get",
      path: "/billing/invoices",
      operationId: "listInvoices",
      tags: ["billing"],
      summary:
        "The billing history: every payment (paid, refunded), failed renewal or auto top-up, auto top-up waiting for the bank's confirmation (authentication_required, with its pay_url) or cancelled, and auto top-up held back (not_charged), newest first",
      security,
      responses: {
        200: {
          description: "Invoices",
          content: jsonContent(schemaRef(registry, "InvoiceList", invoiceListSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token", ...ORG_REFUSALS }),
      },
    },
    auth,
    ...billingOrg,
    async (c) => c.json({ data: await deps.billing.invoices(c.var.org.id) }, 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/billing/invoices/{id}",
      operationId: "getInvoice",
      tags: ["billing"],
      summary: "One invoice with seller, buyer, line, VAT and the reverse-charge note where it applies",
      security,
      parameters: [pathParameter("id", "The invoice's id from the billing history", PATH_IDS.uuid)],
      responses: {
        200: {
          description: "The invoice",
          content: jsonContent(schemaRef(registry, "Invoice", invoiceSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          404: "Not one of the organisation's invoices, or the organisation is not found (X-Organization)",
        }),
      },
    },
    auth,
    ...billingOrg,
    async (c) => c.json(await deps.billing.invoice(c.var.org.id, pathId(c, "id", "uuid")), 200),
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/billing/invoices/{id}/pdf",
      operationId: "downloadInvoicePdf",
      tags: ["billing"],
      summary: "One of the local checkout's invoices as a PDF (Stripe's invoices: their own pdf_url)",
      security,
      parameters: [pathParameter("id", "The invoice's id from the billing history", PATH_IDS.uuid)],
      responses: {
        200: {
          description: "The invoice as an A4 PDF, as a download named after its number",
          content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          404: "Not one of the organisation's invoices, a payment not made (failed or not_charged: no invoice issued), or Stripe's invoice; or the organisation is not found",
        }),
      },
    },
    auth,
    ...billingOrg,
    async (c) => {
      const { pdf, filename } = await deps.billing.invoicePdf(c.var.org.id, pathId(c, "id", "uuid"));
      return c.body(new Uint8Array(pdf), 200, {
        "Content-Type": "application/pdf",
        "Content-Disposition": `attachment; filename="${filename}"`,
      });
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/billing/details",
      operationId: "getBillingDetails",
      tags: ["billing"],
      summary:
        "The organisation's billing details on file, its billing e-mail, and whether a card can be updated",
      security,
      responses: {
        200: {
          description: "Billing details",
          content: jsonContent(schemaRef(registry, "BillingDetails", billingDetailsSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token", ...ORG_REFUSALS }),
      },
    },
    auth,
    ...billingOrg,
    async (c) => c.json(await deps.billing.details(c.var.org.id), 200),
  );

  addRoute(
    app,
    {
      method: "put",
      path: "/billing/details",
      operationId: "putBillingDetails",
      tags: ["billing"],
      summary: "Give the organisation's billing details: the buyer on its invoices from now on",
      description:
        "Saved on the payment provider's customer (name, address, e-mail, VAT ID) before the answer. `email` is where invoices and billing mails go. A VAT ID gives reverse charge once the provider confirms it; until then VAT is charged.",
      security,
      request: {
        body: {
          content: jsonContent(
            schemaRef(registry, "BillingDetailsInput", billingDetailsInputSchema, "input"),
          ),
        },
      },
      responses: {
        200: {
          description: "The billing details now on file",
          content: jsonContent(schemaRef(registry, "BillingDetails", billingDetailsSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          422: "Invalid body: a field missing or too long, an e-mail address whose domain never receives mail (`.invalid`, `.localhost`), an unknown country, or a VAT ID not in the country's format",
        }),
      },
    },
    auth,
    ...billingOrg,
    limitWrites(deps.limiter),
    async (c) => {
      const body = await parseJsonBody(c, billingDetailsInputSchema).catch(async (error: unknown) => {
        // Another field's refusal: the e-mail's domain and the VAT ID's are said with it, so the
        // form shows them all at once.
        if (error instanceof RequestValidationError) {
          const raw = (await c.req.json().catch(() => null)) as {
            email?: unknown;
            address?: { country?: unknown };
            vat_id?: unknown;
          } | null;
          const reserved = reservedAddressProblem(raw?.email);
          if (reserved && !error.items.some((i) => i.loc.join(".") === "body.email"))
            error.items.push(reserved);
          const country = raw?.address?.country;
          const vatId = raw?.vat_id;
          if (typeof country === "string" && typeof vatId === "string") {
            const problem = detailsProblem(checkBillingDetails(country.trim().toUpperCase(), vatId));
            if (problem?.loc.at(-1) === "vat_id" && !error.items.some((i) => i.loc.at(-1) === "vat_id"))
              error.items.push(problem);
          }
        }
        throw error;
      });
      const { address } = body;
      const checked = checkBillingDetails(address.country, body.vat_id);
      // Invoices and billing mails go to `email`: never to a domain that receives no mail.
      const reserved = reservedAddressProblem(body.email);
      if (reserved || !checked.ok) {
        const problems = [reserved, detailsProblem(checked)];
        throw new RequestValidationError(problems.filter((item): item is ValidationItem => item !== null));
      }
      const { org, user } = c.var;
      await deps.billing.saveDetails({
        orgId: org.id,
        orgName: org.personal ? null : org.name,
        actor: { id: user.id, username: user.username },
        origin: originOf(c, deps.trustProxy),
        details: {
          name: body.name,
          email: body.email,
          address: {
            line1: address.line1,
            line2: address.line2 || null,
            postal_code: address.postal_code,
            city: address.city,
            country: address.country,
          },
          vatId: checked.vatId,
        },
      });
      return c.json(await deps.billing.details(org.id), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/billing-portal-session",
      operationId: "createBillingPortalSession",
      tags: ["billing"],
      summary: "A page to change the subscription's card (Stripe's Billing Portal, or the local stand-in's)",
      description:
        "The browser goes to `url` and comes back to /profile/billing. An invoice whose payment failed is paid with the new card.",
      security,
      responses: {
        200: {
          description: "Where to send the browser",
          content: jsonContent(schemaRef(registry, "BillingPortalSession", billingPortalSessionSchema)),
        },
        ...errorResponses(registry, {
          400: "No subscription, so no card to change",
          401: "No valid access token",
          ...ORG_REFUSALS,
          429: "Too many writes",
        }),
      },
    },
    auth,
    ...billingOrg,
    limitWrites(deps.limiter),
    async (c) => c.json(await deps.billing.portalSession(c.var.org, c.var.user), 200),
  );

  return app;
}
