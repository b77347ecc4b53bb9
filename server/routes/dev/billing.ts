// Development only, local provider only: POST /_dev/billing/advance {days} moves the billing clock
// forward and runs the billing job (what `npm run billing:advance -- --days N` calls). Accepted
// from the loopback interface only: it changes time for everybody on this server.
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
  app.post("/billing/advance", async (c) => {
    if (!fromLoopback(c) || c.req.header("x-forwarded-for")) {
      return c.json({ detail: "Only from this machine" }, 403);
    }
    let days: unknown;
    try {
      days = ((await c.req.json()) as { days?: unknown }).days;
    } catch {
      days = undefined;
    }
    if (typeof days !== "number" || !Number.isFinite(days) || days <= 0 || days > 3660) {
      return c.json({ detail: "days must be a number between 0 and 3660" }, 422);
    }
    const clock = local.offsetClock;
    if (!clock) return c.json({ detail: "This server's clock cannot be moved" }, 409);
    clock.setOffset(await advanceClockOffset(db, Math.round(days * 86_400_000)));
    const result = await local.runJob();
    return c.json({ now: clock.now().toISOString(), offset_days: clock.offsetMs() / 86_400_000, ...result });
  });
  return app;
}
