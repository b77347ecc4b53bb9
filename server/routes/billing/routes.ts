// The billing calls of /v1: the catalogue (cached, token optional), both checkouts, plan change and
// cancellation, the credit ledger and the admin's consume call.
import { OpenAPIHono } from "@hono/zod-openapi";
import { userSchema } from "../../../contract/account.ts";
import {
  checkoutSessionRequestSchema,
  checkoutUrlSchema,
  consumeRequestSchema,
  consumeResponseSchema,
  ledgerSchema,
  productListSchema,
  topUpCheckoutRequestSchema,
  topUpProductListSchema,
  updateSubscriptionRequestSchema,
} from "../../../contract/billing.ts";
import type { Catalogue } from "../../billing/catalogue.ts";
import { billingError } from "../../billing/messages.ts";
import type { Billing } from "../../billing/service.ts";
import { fromMillicredits, toMillicredits } from "../../domain/ledger.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireRole, requireUser } from "../../http/auth-guard.ts";
import { ApiError } from "../../http/errors.ts";
import { addRoute, BEARER_SCHEME, errorResponses, jsonContent, schemaRef } from "../../http/openapi.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { presentUser } from "../users/present-user.ts";

export interface BillingRouteDeps extends ApiDeps {
  billing: Billing;
  catalogue: Catalogue;
}

export function billingRoutes(deps: BillingRouteDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const auth = requireUser(deps);
  const bearer = [{ [BEARER_SCHEME]: [] }];
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
      tags: ["billing"],
      summary: "Start a hosted checkout for a subscription tier",
      security: bearer,
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
          404: "Unknown product, or a price not of that product",
          409: "You already have an active subscription",
          422: "Invalid body",
        }),
      },
    },
    auth,
    async (c) => {
      const body = await parseJsonBody(c, checkoutSessionRequestSchema);
      return c.json(await deps.billing.createSubscriptionCheckout(c.var.user, body.product, body.price), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/create-top-up-checkout",
      tags: ["billing"],
      summary: "Start a hosted checkout for a top-up pack (paid plans only)",
      security: bearer,
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
          403: "Top-ups are not available on the Free plan",
          404: "Unknown top-up product",
          422: "Invalid body",
        }),
      },
    },
    auth,
    async (c) => {
      const body = await parseJsonBody(c, topUpCheckoutRequestSchema);
      return c.json(await deps.billing.createTopUpCheckout(c.var.user, body.product_id), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/update-subscription",
      tags: ["billing"],
      summary: "Schedule a change of tier for the end of the current period",
      security: bearer,
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
          404: "Unknown tier",
          409: "The last renewal payment failed",
          422: "Invalid body",
        }),
      },
    },
    auth,
    async (c) => {
      const body = await parseJsonBody(c, updateSubscriptionRequestSchema);
      await deps.billing.updateSubscription(c.var.user.id, body.product_id);
      return c.json(await presentUser(deps.db, c.var.user, deps.clock.now(), deps.tiers), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/cancel-subscription",
      tags: ["billing"],
      summary: "Cancel the subscription at the end of the current period",
      security: bearer,
      responses: {
        200: user(),
        ...errorResponses(registry, { 400: "No paid plan", 401: "No valid access token" }),
      },
    },
    auth,
    async (c) => {
      await deps.billing.cancelSubscription(c.var.user.id);
      return c.json(await presentUser(deps.db, c.var.user, deps.clock.now(), deps.tiers), 200);
    },
  );

  addRoute(
    app,
    {
      method: "get",
      path: "/credits/ledger",
      tags: ["credits"],
      summary: "Every grant of credits, newest first",
      description:
        "Renewal credits are granted at the next midnight Europe/Berlin after the payment: such a grant is listed at once with its future granted_at, and counts in credit_balance from then on.",
      security: bearer,
      responses: {
        200: { description: "Grants", content: jsonContent(schemaRef(registry, "Ledger", ledgerSchema)) },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    auth,
    async (c) => c.json({ data: await deps.billing.ledger(c.var.user.id) }, 200),
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/credits/consume",
      tags: ["credits"],
      summary: "Spend a user's credits (admin), once per idempotency key",
      security: bearer,
      request: {
        body: { content: jsonContent(schemaRef(registry, "ConsumeRequest", consumeRequestSchema, "input")) },
      },
      responses: {
        200: {
          description: "The balance after the spend (for a repeated key: after the first spend)",
          content: jsonContent(schemaRef(registry, "ConsumeResponse", consumeResponseSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          402: "Insufficient credits",
          403: "Not an admin",
          404: "Unknown user",
          422: "Invalid body",
        }),
      },
    },
    auth,
    requireRole("admin"),
    async (c) => {
      const body = await parseJsonBody(c, consumeRequestSchema);
      const result = await deps.billing.spend({
        userId: body.user_id,
        amount: toMillicredits(body.amount),
        reason: body.reason,
        idempotencyKey: body.idempotency_key,
        requestedBy: c.var.user.id,
        now: deps.clock.now(),
      });
      if (!result.ok) {
        if (result.reason === "no_user") throw new ApiError(404, "User not found");
        const error = billingError("insufficient_credits");
        throw new ApiError(402, error.message);
      }
      return c.json({ credit_balance: fromMillicredits(result.balanceAfter) }, 200);
    },
  );

  return app;
}
