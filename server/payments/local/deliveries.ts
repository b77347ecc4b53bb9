// The local provider's outgoing webhooks, delivered the way Stripe delivers them: each event is
// stored first (durable, survives a restart), then POSTed with a Stripe-Signature header to the
// webhook URL; a non-2xx answer or a network error is retried on Stripe's schedule, then given up.
import { randomUUID } from "node:crypto";
import { and, asc, eq, isNull, lte, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import type { Db, DbOrTx } from "../../db/types.ts";
import { signPayload } from "../stripe/signature.ts";
import { isDelivered, nextAttemptDelay } from "./retry-schedule.ts";

/** POSTs a signed event; answers the HTTP status (throws on a network error). */
export type SendWebhook = (body: string, headers: Record<string, string>) => Promise<number>;

export function httpSender(url: string): SendWebhook {
  return async (body, headers) => {
    const res = await fetch(url, { method: "POST", body, headers, redirect: "manual" });
    await res.body?.cancel();
    return res.status;
  };
}

/** How long a claimed delivery is held by one sender before another may try it (instances crash). */
const CLAIM_MS = 60_000;

/** Queues `event`, due `now`; deliveries go in `createdAt` order (default: `now`). */
export async function enqueueEvent(
  db: DbOrTx,
  event: { id: string; type: string },
  now: Date,
  createdAt: Date = now,
): Promise<void> {
  await db.insert(webhookDeliveries).values({
    id: randomUUID(),
    eventId: event.id,
    type: event.type,
    payload: JSON.stringify(event),
    nextAttemptAt: now,
    createdAt,
  });
}

export interface Deliverer {
  /** Sends every delivery that is due; answers how many were attempted. */
  deliverDue(): Promise<number>;
}

export function createDeliverer(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  secret: string;
  send: SendWebhook;
}): Deliverer {
  return {
    async deliverDue() {
      let attempted = 0;
      // Loop: delivering one event can enqueue nothing new, but a batch may be larger than one claim.
      for (;;) {
        const now = deps.clock.now();
        const claimed = await deps.db.transaction(async (tx) => {
          const due = await tx
            .select({ id: webhookDeliveries.id })
            .from(webhookDeliveries)
            .where(
              and(
                isNull(webhookDeliveries.deliveredAt),
                isNull(webhookDeliveries.gaveUpAt),
                lte(webhookDeliveries.nextAttemptAt, now),
              ),
            )
            .orderBy(asc(webhookDeliveries.createdAt))
            .limit(20)
            .for("update", { skipLocked: true });
          if (due.length === 0) return [];
          return tx
            .update(webhookDeliveries)
            .set({ nextAttemptAt: new Date(now.getTime() + CLAIM_MS) })
            .where(
              sql`${webhookDeliveries.id} in (${sql.join(
                due.map((d) => sql`${d.id}`),
                sql`, `,
              )})`,
            )
            .returning();
        });
        if (claimed.length === 0) return attempted;
        claimed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
        for (const delivery of claimed) {
          attempted++;
          await attempt(delivery);
        }
      }
    },
  };

  async function attempt(delivery: typeof webhookDeliveries.$inferSelect): Promise<void> {
    const sentAt = deps.clock.now();
    const header = signPayload(delivery.payload, deps.secret, Math.floor(sentAt.getTime() / 1000));
    let status = 0;
    try {
      status = await deps.send(delivery.payload, {
        "Content-Type": "application/json; charset=utf-8",
        "Stripe-Signature": header,
        "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks) local-checkout",
      });
    } catch (error) {
      deps.logger.warn({ err: error, eventId: delivery.eventId }, "Webhook delivery failed");
    }
    const attempts = delivery.attempts + 1;
    if (isDelivered(status)) {
      await deps.db
        .update(webhookDeliveries)
        .set({ attempts, lastStatus: status, deliveredAt: sentAt, nextAttemptAt: null })
        .where(eq(webhookDeliveries.id, delivery.id));
      return;
    }
    const delay = nextAttemptDelay(attempts);
    if (delay === null) {
      deps.logger.error({ eventId: delivery.eventId, status }, "Webhook delivery given up");
    } else {
      deps.logger.warn({ eventId: delivery.eventId, status, attempts }, "Webhook delivery will be retried");
    }
    await deps.db
      .update(webhookDeliveries)
      .set({
        attempts,
        lastStatus: status || null,
        nextAttemptAt: delay === null ? null : new Date(sentAt.getTime() + delay),
        gaveUpAt: delay === null ? sentAt : null,
      })
      .where(eq(webhookDeliveries.id, delivery.id));
  }
}
