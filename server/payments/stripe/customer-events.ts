// customer.* events: a subscription changed at the provider or ended (and a subscription as Stripe
// answers it), and Stripe's check of a customer's EU VAT ID.
import * as z from "zod";
import { vatIdStatusOf } from "../../../contract/vat-id-verification.ts";
import type { SubscriptionSnapshot } from "../../billing/ports/events.ts";
import {
  describeIssues,
  fromSeconds,
  idRef,
  metadataSchema,
  type ParseResult,
  type Reading,
  seconds,
} from "./event-reading.ts";
import { payerOf } from "./format.ts";

const subscriptionSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  cancel_at_period_end: z.boolean(),
  customer: idRef.nullish(),
  metadata: metadataSchema,
  ended_at: seconds.nullish(),
  canceled_at: seconds.nullish(),
  items: z.object({
    data: z.array(
      z.object({
        current_period_start: seconds.nullish(),
        current_period_end: seconds.nullish(),
        price: z.object({ product: idRef }),
      }),
    ),
  }),
  /** Before API version 2025-03-31. */
  current_period_start: seconds.nullish(),
  current_period_end: seconds.nullish(),
});

/** A customer's tax ID (customer.tax_id.*): Stripe checks an EU VAT ID against VIES and says so. */
const taxIdSchema = z.object({
  id: z.string().min(1),
  type: z.string(),
  value: z.string().min(1),
  customer: idRef.nullish(),
  verification: z.object({ status: z.string() }).nullish(),
});

/** customer.subscription.updated and .deleted: a change made at the provider, or the end. */
export function readSubscriptionEvent({ ref, fail }: Reading, object: unknown): ParseResult {
  const parsed = subscriptionSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const sub = parsed.data;
  const who = {
    userId: payerOf(sub.metadata),
    customerId: sub.customer ?? null,
    subscriptionId: sub.id,
  };
  if (ref.eventType === "customer.subscription.deleted") {
    const endedAt = sub.ended_at ?? sub.canceled_at ?? null;
    return {
      ok: true,
      event: {
        ...ref,
        ...who,
        kind: "subscription_ended",
        endedAt: endedAt === null ? ref.created : fromSeconds(endedAt),
      },
    };
  }
  return { ok: true, event: { ...ref, ...who, kind: "subscription_updated", ...snapshotOf(sub) } };
}

/** What a subscription object says of its state, in an event or as retrieved. */
function snapshotOf(sub: z.infer<typeof subscriptionSchema>): SubscriptionSnapshot {
  const item = sub.items.data[0];
  const start = item?.current_period_start ?? sub.current_period_start ?? null;
  const end = item?.current_period_end ?? sub.current_period_end ?? null;
  return {
    status: sub.status,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    productId: item?.price.product ?? null,
    period: start === null || end === null ? null : { start: fromSeconds(start), end: fromSeconds(end) },
  };
}

/**
 * A subscription object retrieved from Stripe (or the local checkout's stand-in for one), read as
 * customer.subscription.updated reads it.
 */
export function parseStripeSubscription(
  object: unknown,
): { ok: true; snapshot: SubscriptionSnapshot } | { ok: false; error: string } {
  const parsed = subscriptionSchema.safeParse(object);
  if (!parsed.success) return { ok: false, error: `subscription: ${describeIssues(parsed.error)}` };
  return { ok: true, snapshot: snapshotOf(parsed.data) };
}

/**
 * customer.tax_id.created and .updated: Stripe's check of a customer's EU VAT ID. An unknown status
 * (a newer API version's word) reads as pending, never as verified; without a verification, too.
 */
export function readTaxIdEvent({ ref, ignored, fail }: Reading, object: unknown): ParseResult {
  const parsed = taxIdSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const t = parsed.data;
  if (t.type !== "eu_vat") return ignored(`tax ID of type ${t.type}`);
  if (!t.customer) return ignored("tax ID of no customer");
  return {
    ok: true,
    event: {
      ...ref,
      kind: "vat_id_checked",
      customerId: t.customer,
      vatId: t.value,
      status: vatIdStatusOf(t.verification?.status),
    },
  };
}
