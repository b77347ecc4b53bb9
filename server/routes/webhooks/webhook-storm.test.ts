// A thousand webhook deliveries for one customer's purchases, in generated orders: every event
// several times (redeliveries), every fact under several event ids (Stripe re-sending it), and
// hostile copies among them (forged, signed with another secret, stale, tampered after signing).
// Whatever the order, each purchase is granted exactly once and the hostile ones change nothing.
// On PostgreSQL the deliveries also arrive concurrently, in batches, as they do from Stripe.
import { and, count, eq, inArray } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { creditGrants, webhookEvents } from "../../db/schema/index.ts";
import { signPayload } from "../../payments/stripe/signature.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { ledger, me, sendWebhook } from "../../testing/billing.ts";
import { subscriptionPurchase, topUpPurchase } from "../../testing/purchase-events.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_FREE_CREDITS, TEST_WEBHOOK_SECRET } from "../../testing/test-app.ts";

const DELIVERIES = 1000;
/** Each fact is sent under this many event ids. */
const IDS_PER_FACT = 3;

type Hostile = "forged" | "other-secret" | "stale" | "tampered";
type Delivery = { kind: "genuine"; event: { id: string } } | { kind: Hostile; event: { id: string } };

describe.each(TEST_DATABASES)("a storm of webhook deliveries (%s)", (kind) => {
  const ctx = useTestApp(kind);
  // PGlite has one connection: it takes the deliveries one at a time. PostgreSQL gets batches.
  const batch = kind === "postgres" ? 25 : 1;

  it(`grants each purchase exactly once across ${DELIVERIES} shuffled deliveries with duplicates, redeliveries and hostile copies`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(), { minLength: DELIVERIES, maxLength: DELIVERIES }),
        fc.array(fc.constantFrom<Hostile>("forged", "other-secret", "stale", "tampered"), {
          minLength: 40,
          maxLength: 120,
        }),
        async (picks, hostileKinds) => {
          run++;
          const user = await verifiedUser(ctx.t, `storm${run}`);
          const now = ctx.t.clock.now();
          const sub = subscriptionPurchase(user.id, now, "C");
          const small = topUpPurchase(user.id, now, "500");
          const large = topUpPurchase(user.id, now, "1000");
          const facts = [
            sub.events.checkout,
            sub.events.invoice,
            sub.events.updated,
            small.checkout,
            large.checkout,
          ];
          const genuine = facts.flatMap((fact) => Array.from({ length: IDS_PER_FACT }, () => fact()));

          // Every genuine event at least once, then the generated picks (redeliveries), hostile
          // copies spread among them; the picks also decide the order.
          const deliveries: Delivery[] = genuine.map((event) => ({ kind: "genuine", event }));
          for (const hostile of hostileKinds) {
            deliveries.push({
              kind: hostile,
              event: genuine[(picks[deliveries.length] ?? 0) % genuine.length] as { id: string },
            });
          }
          while (deliveries.length < DELIVERIES) {
            deliveries.push({
              kind: "genuine",
              event: genuine[(picks[deliveries.length] ?? 0) % genuine.length] as { id: string },
            });
          }
          // Fisher-Yates driven by the generated numbers, so a failure shrinks to a replayable order.
          for (let i = deliveries.length - 1; i > 0; i--) {
            const j = (picks[i] ?? 0) % (i + 1);
            [deliveries[i], deliveries[j]] = [deliveries[j] as Delivery, deliveries[i] as Delivery];
          }

          const send = async ({ kind: k, event }: Delivery) => {
            const nowSeconds = Math.floor(ctx.t.clock.now().getTime() / 1000);
            switch (k) {
              case "genuine":
                return { k, res: await sendWebhook(ctx.t, event) };
              case "forged":
                return {
                  k,
                  res: await sendWebhook(ctx.t, event, { header: `t=${nowSeconds},v1=${"ab".repeat(32)}` }),
                };
              case "other-secret":
                return {
                  k,
                  res: await sendWebhook(ctx.t, event, { secret: "whsec_an_attackers_own_secret_value" }),
                };
              case "stale":
                return { k, res: await sendWebhook(ctx.t, event, { timestamp: nowSeconds - 600 }) };
              case "tampered": {
                // Signed as sent, then the amount and the customer's id changed on the way.
                const header = signPayload(JSON.stringify(event), TEST_WEBHOOK_SECRET, nowSeconds);
                const changed = JSON.stringify(event)
                  .replace(/"amount_total":\d+/, '"amount_total":1')
                  .replace(user.id, "00000000-0000-4000-8000-000000000001");
                return { k, res: await sendWebhook(ctx.t, changed, { header }) };
              }
            }
          };
          const answers: { k: Delivery["kind"]; res: Response }[] = [];
          for (let i = 0; i < deliveries.length; i += batch) {
            answers.push(...(await Promise.all(deliveries.slice(i, i + batch).map(send))));
          }

          for (const { k, res } of answers) {
            expect(res.status, k).toBe(k === "genuine" ? 200 : 400);
          }
          const u = await me(ctx.t, user.accessToken);
          expect(u.credit_balance).toBe(TEST_FREE_CREDITS + 10000 + 500 + 1000);
          expect(u.subscription).toMatchObject({ plan: "Tier C", status: "active" });
          const grants = await ledger(ctx.t, user.accessToken);
          expect(grants.map((g) => g.kind).sort()).toEqual(["free", "subscription", "topup", "topup"]);
          // Each genuine event id is recorded once; no hostile delivery left a record.
          const db = ctx.t.deps.db;
          const [recorded] = await db
            .select({ n: count() })
            .from(webhookEvents)
            .where(
              inArray(
                webhookEvents.eventId,
                genuine.map((e) => e.id),
              ),
            );
          expect(recorded?.n).toBe(genuine.length);
          const [paid] = await db
            .select({ n: count() })
            .from(creditGrants)
            .where(
              and(eq(creditGrants.userId, user.id), inArray(creditGrants.kind, ["subscription", "topup"])),
            );
          expect(paid?.n).toBe(3);
        },
      ),
      { numRuns: 2 },
    );
  }, 240_000);
});
