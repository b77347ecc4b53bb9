// charge.* events: a charge refunded, a payment disputed and how the dispute ended.
import * as z from "zod";
import { currencySchema, describeIssues, idRef, type ParseResult, type Reading } from "./event-reading.ts";

const chargeSchema = z.object({
  id: z.string().min(1),
  amount: z.number().int().nonnegative(),
  amount_refunded: z.number().int().nonnegative(),
  currency: currencySchema,
  customer: idRef.nullish(),
  payment_intent: idRef.nullish(),
  /** Before API version 2025-03-31. */
  invoice: idRef.nullish(),
});

const disputeSchema = z.object({
  id: z.string().min(1),
  charge: idRef.nullish(),
  payment_intent: idRef.nullish(),
  status: z.string(),
});

/** charge.refunded: how much of a charge is refunded so far. */
export function readChargeRefunded({ ref, fail }: Reading, object: unknown): ParseResult {
  const parsed = chargeSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const c = parsed.data;
  return {
    ok: true,
    event: {
      ...ref,
      kind: "charge_refunded",
      chargeId: c.id,
      paymentIntentId: c.payment_intent ?? null,
      invoiceId: c.invoice ?? null,
      customerId: c.customer ?? null,
      amount: c.amount,
      amountRefunded: c.amount_refunded,
      currency: c.currency,
    },
  };
}

/** charge.dispute.created and .closed: a payment disputed, and how the dispute ended. */
export function readDisputeEvent({ ref, fail }: Reading, object: unknown): ParseResult {
  const parsed = disputeSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const d = parsed.data;
  return {
    ok: true,
    event: {
      ...ref,
      kind: "dispute",
      disputeId: d.id,
      chargeId: d.charge ?? null,
      paymentIntentId: d.payment_intent ?? null,
      phase: ref.eventType === "charge.dispute.created" ? "created" : "closed",
      status: d.status,
    },
  };
}
