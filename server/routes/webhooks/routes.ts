// POST /v1/webhooks/stripe: the provider's signed events (from Stripe or the local checkout).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Billing } from "../../billing/service.ts";
import { billingError } from "../../domain/billing-errors.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { addRoute, errorResponses, STRIPE_SIGNATURE_SCHEME } from "../../http/openapi.ts";

/** The answer to a refund or dispute of a payment not on record yet (billing/reversals.ts PaymentNotOnRecord). */
export const NOT_ON_RECORD =
  "The refunded or disputed payment is not on record yet: send the event again later";

export function webhookRoutes(billing: Billing): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  addRoute(
    app,
    {
      method: "post",
      path: "/webhooks/stripe",
      operationId: "receiveStripeWebhook",
      security: [{ [STRIPE_SIGNATURE_SCHEME]: [] }],
      tags: ["webhooks"],
      summary: "Stripe webhook events (Stripe-Signature over the raw body)",
      // The event as Stripe sends it: read only after its signature over the raw bytes checks out,
      // so the document names its envelope, not a schema the route would validate first.
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                description:
                  "A Stripe Event object (id, type, created, data.object), signed by Stripe-Signature.",
                properties: {
                  id: { type: "string", maxLength: 255 },
                  type: { type: "string", maxLength: 255 },
                },
              },
            },
          },
        },
      },
      responses: {
        200: {
          description: "Processed, or a duplicate that was already processed",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { received: { type: "boolean", enum: [true] } },
                required: ["received"],
                additionalProperties: false,
              },
            },
          },
        },
        ...errorResponses(app.openAPIRegistry, {
          400: "Missing, wrong or stale signature; or an unreadable event",
          503: `"${NOT_ON_RECORD}": a refund billing asked for, of a second subscription's payment whose own event is not on record yet, or a refund or dispute of an auto top-up whose attempt is still being settled; nothing was kept, and the provider delivers it again`,
        }),
      },
    },
    async (c) => {
      // The signature covers the exact bytes: verify those, never a decoded or re-serialised copy.
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const outcome = await billing.handleWebhook(raw, c.req.header("stripe-signature"));
      if (outcome.status === 400) {
        const detail =
          outcome.error === "signature" ? billingError("invalid_signature").message : "Unreadable event";
        return c.json({ detail }, 400);
      }
      if (outcome.status === 503) return c.json({ detail: NOT_ON_RECORD }, 503);
      return c.json({ received: true }, 200);
    },
  );
  return app;
}
