// What every reader of Stripe's events shares (event-parser.ts): the answer, the small schemas its
// objects are made of, and how a refusal names what it could not read.
import * as z from "zod";
import type { BillingEvent, EventRef, PaymentFacts } from "../../billing/ports/events.ts";

export type ParseResult = { ok: true; event: BillingEvent } | { ok: false; error: string };

/** An id, or the object it names when the event was expanded. */
export const idRef = z.union([z.string().min(1), z.object({ id: z.string().min(1) }).transform((o) => o.id)]);
export const metadataSchema = z.record(z.string(), z.string()).nullish();
/**
 * A currency as Stripe writes it, three ISO 4217 letters ("eur"). Anything else cannot be an amount
 * of money: refused as a malformed event, never carried on to an invoice or a mail (Intl throws
 * on it, which made a webhook answer 500).
 */
export const currencySchema = z.string().regex(/^[a-z]{3}$/i);
export const seconds = z.number().int().nonnegative();

export const addressSchema = z.object({ country: z.string().nullish() }).nullish();
export const taxIdsSchema = z.array(z.object({ type: z.string(), value: z.string() })).nullish();
export const euVatIdOf = (ids: z.infer<typeof taxIdsSchema>) =>
  ids?.find((t) => t.type === "eu_vat")?.value ?? null;

export const fromSeconds = (s: number) => new Date(s * 1000);

/**
 * Our ids in auto top-up's metadata (org_id, auto_top_up_attempt_id) are UUIDs: anything else is
 * refused here rather than reach the database as one.
 */
export const uuidSchema = z.guid();

/**
 * Why a payment's amounts cannot be recorded, or null when they can: none is negative and net plus
 * tax is the total (prices are net, VAT is added, and no discount is offered). Stripe never sends
 * otherwise; an event that does is refused, so it is redelivered once the cause is found, instead
 * of failing the whole fulfilment against the billing history's own check.
 */
export function amountsRefusal(payment: PaymentFacts | null): string | null {
  if (!payment) return null;
  const { net, tax, total } = payment;
  if (net < 0 || tax < 0) return `negative amounts: net ${net}, tax ${tax}`;
  if (net + tax !== total) return `amounts do not add up: net ${net} + tax ${tax} is not the total ${total}`;
  return null;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** What each event type's reader is given: where the event came from, and its two other answers. */
export interface Reading {
  ref: EventRef;
  /** An event we do not act on, and why. */
  ignored(reason: string): ParseResult;
  /** An event we act on that lacks what we need. */
  fail(error: string): ParseResult;
}
