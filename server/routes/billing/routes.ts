// The billing calls of /v1: the catalogue (cached, token optional), both checkouts, plan change and
// cancellation, the credit ledger, and (consume.ts) the consume call of the generation service and
// the admin.
import { OpenAPIHono } from "@hono/zod-openapi";
import { userSchema } from "../../../contract/account.ts";
import {
  checkoutSessionRequestSchema,
  checkoutUrlSchema,
  ledgerSchema,
  productListSchema,
  topUpCheckoutRequestSchema,
  topUpProductListSchema,
  updateSubscriptionRequestSchema,
} from "../../../contract/billing.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import type { Catalogue } from "../../billing/catalogue.ts";
import type { Billing } from "../../billing/service.ts";
import { BILLING_ERRORS } from "../../domain/billing-errors.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, requireUser } from "../../http/auth-guard.ts";
import { addRoute, errorResponses, jsonContent, PUBLIC, SIGNED_IN, schemaRef } from "../../http/openapi.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { ORG_REFUSALS, orgWith } from "./acting-org.ts";
import { addConsumeRoute } from "./consume.ts";
import { presentUserForOrg } from "./present-for-org.ts";

export interface BillingRouteDeps extends ApiDeps {
  billing: Billing;
  catalogue: Catalogue;
}

export function billingRoutes(deps: BillingRouteDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  const writes = limitWrites(deps.limiter);
  // Plans and top-ups move the organisation's money: owners and billing members only.
  const billingOrg = orgWith(deps.db, "billing");
  const user = () => ({
    description: "The user",
    content: jsonContent(schemaRef(registry, "User", userSchema)),
  });
  const url = () => ({
    description: "The hosted checkout to send the browser to",
    content: jsonContent(schemaRef(registry, "CheckoutUrl", checkoutUrlSchema)),
  });
  // The lists never change while the process runs (they come from the catalogue): serialise once.
  const products = JSON.stringify({ data: deps.catalogue.subscriptionProducts });
  const topUps = JSON.stringify({ data: deps.catalogue.topUpProducts });
  // The same for every caller (a token changes nothing), so browsers and CDNs may keep it a while.
  const cachedJson = (body: string) => () =>
    new Response(body, {
      status: 200,
      headers: { "Content-Type": "application/json", "Cache-Control": "public, max-age=300" },
    });

  addRoute(
    app,
    {
      method: "get",
      path: "/subscription/products",
      operationId: "listSubscriptionProducts",
      security: PUBLIC,
      tags: ["billing"],
      summary: "Subscription tiers A-E with their monthly price (token optional)",
      responses: {
        200: {
          description: "Tiers",
          content: jsonContent(schemaRef(registry, "ProductList", productListSchema)),
        },
      },
    },
    cachedJson(products),
  );
  addRoute(
    app,
    {
      method: "get",
      path: "/top-up/products",
      operationId: "listTopUpProducts",
      security: PUBLIC,
      tags: ["billing"],
      summary: "Top-up credit packs (token optional)",
      responses: {
        200: {
          description: "Packs",
          content: jsonContent(schemaRef(registry, "TopUpProductList", topUpProductListSchema)),
        },
      },
    },
    cachedJson(topUps),
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/create-checkout-session",
      operationId: "createCheckoutSession",
      tags: ["billing"],
      summary: "Start a hosted checkout for a subscription tier",
      security: SIGNED_IN,
      request: {
        body: {
          content: jsonContent(
            schemaRef(registry, "CheckoutSessionRequest", checkoutSessionRequestSchema, "input"),
          ),
        },
      },
      responses: {
        200: url(),
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          404: "Unknown product, or a price not of that product; or the organisation is not found (X-Organization)",
          409: `"You already have an active subscription" (for a team organisation "${ORG_DETAIL.alreadySubscribed}"); or "${BILLING_ERRORS.too_many_open_checkouts.message}"`,
          422: "Invalid body",
          503: `"${DETAIL.checkoutUnavailable}": no Stripe, and the local checkout is off on this server's public HOST (LOCAL_CHECKOUT_ON_PUBLIC_HOST)`,
        }),
      },
    },
    auth,
    ...billingOrg,
    writes,
    async (c) => {
      const body = await parseJsonBody(c, checkoutSessionRequestSchema);
      return c.json(
        await deps.billing.createSubscriptionCheckout(c.var.org, c.var.user, body.product, body.price),
        200,
      );
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/create-top-up-checkout",
      operationId: "createTopUpCheckout",
      tags: ["billing"],
      summary: "Start a hosted checkout for a top-up pack (paid plans only)",
      security: SIGNED_IN,
      request: {
        body: {
          content: jsonContent(
            schemaRef(registry, "TopUpCheckoutRequest", topUpCheckoutRequestSchema, "input"),
          ),
        },
      },
      responses: {
        200: url(),
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          403: `"Top-ups are not available on the Free plan"; or "${ORG_DETAIL.notAllowed}"`,
          404: "Unknown top-up product; or the organisation is not found (X-Organization)",
          409: `"${BILLING_ERRORS.too_many_open_checkouts.message}"`,
          503: `"${DETAIL.checkoutUnavailable}": no Stripe, and the local checkout is off on this server's public HOST (LOCAL_CHECKOUT_ON_PUBLIC_HOST)`,
          422: "Invalid body",
        }),
      },
    },
    auth,
    ...billingOrg,
    writes,
    async (c) => {
      const body = await parseJsonBody(c, topUpCheckoutRequestSchema);
      return c.json(await deps.billing.createTopUpCheckout(c.var.org, c.var.user, body.product_id), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/update-subscription",
      operationId: "updateSubscription",
      tags: ["billing"],
      summary: "Schedule a change of tier for the end of the current period",
      security: SIGNED_IN,
      request: {
        body: {
          content: jsonContent(
            schemaRef(registry, "UpdateSubscriptionRequest", updateSubscriptionRequestSchema, "input"),
          ),
        },
      },
      responses: {
        200: user(),
        ...errorResponses(registry, {
          400: "No paid plan, or already on that plan",
          401: "No valid access token",
          ...ORG_REFUSALS,
          404: "Unknown tier; or the organisation is not found (X-Organization)",
          409: "The last renewal payment failed",
          422: "Invalid body",
        }),
      },
    },
    auth,
    ...billingOrg,
    writes,
    async (c) => {
      const body = await parseJsonBody(c, updateSubscriptionRequestSchema);
      await deps.billing.updateSubscription(c.var.org.id, body.product_id);
      return c.json(await presentUserForOrg(deps, c.var.user, c.var.org.id), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/cancel-subscription",
      operationId: "cancelSubscription",
      tags: ["billing"],
      summary: "Cancel the subscription at the end of the current period",
      security: SIGNED_IN,
      responses: {
        200: user(),
        ...errorResponses(registry, { 400: "No paid plan", 401: "No valid access token", ...ORG_REFUSALS }),
      },
    },
    auth,
    ...billingOrg,
    writes,
    async (c) => {
      await deps.billing.cancelSubscription(c.var.org.id);
      return c.json(await presentUserForOrg(deps, c.var.user, c.var.org.id), 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/credits/ledger",
      operationId: "listCreditLedger",
      tags: ["credits"],
      summary: "Every grant of credits, newest first",
      description:
        "Renewal credits are granted at the next midnight Europe/Berlin after the payment: such a grant is listed at once with its future granted_at, and counts in credit_balance from then on.",
      security: SIGNED_IN,
      responses: {
        200: { description: "Grants", content: jsonContent(schemaRef(registry, "Ledger", ledgerSchema)) },
        ...errorResponses(registry, { 401: "No valid access token", ...ORG_REFUSALS }),
      },
    },
    auth,
    ...orgWith(deps.db, "ledger"),
    async (c) => {
      const asOf = deps.clock.now();
      return c.json({ data: await deps.billing.ledger(c.var.org.id), as_of: asOf.toISOString() }, 200);
    },
  );

  addConsumeRoute(app, deps);

  return app;
}
