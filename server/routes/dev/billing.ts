// Development only, local provider only: POST /_dev/billing/advance {days} moves the billing clock
// forward and runs the billing job (what `npm run billing:advance -- --days N` calls);
// POST /_dev/billing/disputes {invoice_number} disputes an earlier payment (once: never one disputed
// before, open or closed, as at Stripe), and
// POST /_dev/billing/disputes/{id}/close {status: "won" | "lost"} ends a dispute (that one, or one
// the test card 4000 0000 0000 0259 opened; `id` is its du_… or the payment's invoice number) as
// the card network would decide it (payments/local/disputes.ts).
// Accepted from the loopback interface only: they change time and money for everybody on this server.
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import type { Db } from "../../db/types.ts";
import { advanceClockOffset } from "../../payments/local/billing-clock.ts";
import type { LocalPayments } from "../../payments/local/local-payments.ts";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

function fromLoopback(c: Parameters<typeof getConnInfo>[0]): boolean {
  try {
    return LOOPBACK.has(getConnInfo(c).remote.address ?? "");
  } catch {
    return false; // in-process requests have no socket
  }
}

export function devBillingRoutes(db: Db, local: LocalPayments): Hono {
  const app = new Hono();
  app.use("/billing/*", async (c, next) => {
    if (!fromLoopback(c) || c.req.header("x-forwarded-for")) {
      return c.json({ detail: "Only from this machine" }, 403);
    }
    // A web page the developer has open may post here too (a "simple" cross-site request needs no
    // CORS preflight): only a JSON body, which a page elsewhere cannot send without one, and no
    // request the browser marks as another site's.
    const site = c.req.header("sec-fetch-site");
    if (site === "cross-site" || site === "same-site")
      return c.json({ detail: "Only from this machine" }, 403);
    if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? "")) {
      return c.json({ detail: "Send a JSON body (Content-Type: application/json)" }, 415);
    }
    return next();
  });
  app.post("/billing/advance", async (c) => {
    const days = await bodyField(c.req.raw, "days");
    if (typeof days !== "number" || !Number.isFinite(days) || days <= 0 || days > 3660) {
      return c.json({ detail: "days must be a number between 0 and 3660" }, 422);
    }
    const clock = local.offsetClock;
    if (!clock) return c.json({ detail: "This server's clock cannot be moved" }, 409);
    clock.setOffset(await advanceClockOffset(db, Math.round(days * 86_400_000)));
    const result = await local.runJob();
    return c.json({ now: clock.now().toISOString(), offset_days: clock.offsetMs() / 86_400_000, ...result });
  });
  app.post("/billing/disputes", async (c) => {
    const number = await bodyField(c.req.raw, "invoice_number");
    if (typeof number !== "string" || number === "") {
      return c.json({ detail: "invoice_number must be an invoice number (INV-…)" }, 422);
    }
    const result = await local.disputePayment(number);
    if (result.ok) return c.json({ dispute_id: result.disputeId, status: "needs_response" }, 201);
    if (result.reason === "not_found")
      return c.json({ detail: "No payment of this checkout has that number" }, 404);
    if (result.reason === "already_disputed")
      return c.json(
        {
          detail: `That payment was disputed already (${result.disputeId}): a payment is disputed only once`,
          dispute_id: result.disputeId,
        },
        409,
      );
    return c.json({ detail: "Only a paid credit pack or auto top-up can be disputed here" }, 409);
  });
  app.post("/billing/disputes/:id/close", async (c) => {
    const status = await bodyField(c.req.raw, "status");
    if (status !== "won" && status !== "lost") {
      return c.json({ detail: 'status must be "won" or "lost"' }, 422);
    }
    const result = await local.closeDispute(c.req.param("id"), status);
    if (result.ok) return c.json({ dispute_id: result.disputeId, status });
    if (result.reason === "not_found")
      return c.json({ detail: "No dispute of this checkout has that id or invoice number" }, 404);
    return c.json({ detail: "That dispute is closed already" }, 409);
  });
  return app;
}

/** One field of a JSON body; undefined when the body is not JSON. */
async function bodyField(req: Request, name: string): Promise<unknown> {
  try {
    return ((await req.json()) as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}
