// Stripe's webhook events, from real Stripe or from the local checkout (which sends the same
// format), read into the BillingEvent that billing understands (billing/ports/events.ts). Only
// the events we act on are read field by field; any other type is "ignored" with its reason.
//
// Shapes follow the API version the installed `stripe` SDK pins (STRIPE_API_VERSION). Since API
// version 2025-03-31 ("basil") an invoice names its subscription under
// `parent.subscription_details.subscription`, an invoice line its price under
// `pricing.price_details`, and a subscription's current period lives on its items; the parser also
// reads the older places (`invoice.subscription`, `line.price`, `subscription.current_period_*`)
// so a Stripe webhook endpoint left on an older version still works.
//
// Auto top-up (AUTO-TOP-UP.md) adds saved cards (setup-mode sessions, setup intents, payment
// methods) and its one-off invoices, told apart from every other invoice by
// `metadata.auto_top_up_attempt_id` before anything else is read of them.
import * as z from "zod";
import { vatIdStatusOf } from "../../../contract/vat-id-verification.ts";
import type {
  BillingEvent,
  EventRef,
  InvoiceDocument,
  PaymentFacts,
  SavedCardFacts,
  SubscriptionSnapshot,
} from "../../billing/ports/events.ts";
import { firstPaymentKey, renewalKey, topUpKey } from "../../billing/ports/fulfilment-keys.ts";
import type { AutoTopUpChargeAnswer, RetrievedCard } from "../../billing/ports/payment-provider.ts";
import { METADATA, payerOf } from "./format.ts";

export type ParseResult = { ok: true; event: BillingEvent } | { ok: false; error: string };

/** An id, or the object it names when the event was expanded. */
const idRef = z.union([z.string().min(1), z.object({ id: z.string().min(1) }).transform((o) => o.id)]);
const metadataSchema = z.record(z.string(), z.string()).nullish();
/**
 * A currency as Stripe writes it, three ISO 4217 letters ("eur"). Anything else cannot be an amount
 * of money: refused as a malformed event, never carried on to an invoice or a mail (Intl throws
 * on it, which made a webhook answer 500).
 */
const currencySchema = z.string().regex(/^[a-z]{3}$/i);
const seconds = z.number().int().nonnegative();

/** Stripe's ids and event types are short; the API's document allows 255 characters of each. */
const ENVELOPE_TEXT_MAX = 255;

const envelopeSchema = z.object({
  id: z.string().min(1).max(ENVELOPE_TEXT_MAX),
  object: z.literal("event"),
  type: z.string().min(1).max(ENVELOPE_TEXT_MAX),
  created: seconds,
  livemode: z.boolean().optional(),
  data: z.object({
    object: z.record(z.string(), z.unknown()),
    /** What an update changed, as it was before (payment_method.detached: the customer). */
    previous_attributes: z.record(z.string(), z.unknown()).nullish(),
  }),
});

const addressSchema = z.object({ country: z.string().nullish() }).nullish();
const taxIdsSchema = z.array(z.object({ type: z.string(), value: z.string() })).nullish();
const euVatIdOf = (ids: z.infer<typeof taxIdsSchema>) => ids?.find((t) => t.type === "eu_vat")?.value ?? null;

/** A SetupIntent, in its own event or expanded on its setup-mode session. */
const setupIntentSchema = z.object({
  id: z.string().min(1),
  created: seconds,
  customer: idRef.nullish(),
  payment_method: idRef.nullish(),
  metadata: metadataSchema,
});

const sessionSchema = z.object({
  id: z.string().min(1),
  mode: z.string(),
  payment_status: z.string(),
  client_reference_id: z.string().nullish(),
  customer: idRef.nullish(),
  metadata: metadataSchema,
  subscription: idRef.nullish(),
  invoice: idRef.nullish(),
  payment_intent: idRef.nullish(),
  /** Setup mode: the SetupIntent's id, or the SetupIntent when the session was expanded. */
  setup_intent: z.union([z.string().min(1), setupIntentSchema]).nullish(),
  amount_subtotal: z.number().int().nullish(),
  amount_total: z.number().int().nullish(),
  total_details: z.object({ amount_tax: z.number().int().nullish() }).nullish(),
  currency: currencySchema.nullish(),
  customer_details: z
    .object({
      address: addressSchema,
      email: z.string().nullish(),
      name: z.string().nullish(),
      tax_exempt: z.string().nullish(),
      tax_ids: taxIdsSchema,
    })
    .nullish(),
});

const lineSchema = z.object({
  period: z.object({ start: seconds, end: seconds }),
  pricing: z.object({ price_details: z.object({ product: idRef, price: idRef }).nullish() }).nullish(),
  /** Before API version 2025-03-31. */
  price: z.object({ product: idRef }).nullish(),
  parent: z
    .object({ subscription_item_details: z.object({ proration: z.boolean().nullish() }).nullish() })
    .nullish(),
  /** Before API version 2025-03-31. */
  proration: z.boolean().nullish(),
});

/**
 * A payment intent as an invoice names it: expanded (its state and last decline), or by id (read
 * as one whose state is not said).
 */
const paymentIntentRef = z.union([
  z
    .string()
    .min(1)
    .transform((id) => ({ id, status: null, last_payment_error: null })),
  z.object({
    id: z.string().min(1),
    status: z.string(),
    last_payment_error: z
      .object({ code: z.string().nullish(), decline_code: z.string().nullish() })
      .nullish(),
  }),
]);

const invoiceSchema = z.object({
  id: z.string().min(1),
  status: z.string().nullish(),
  metadata: metadataSchema,
  number: z.string().nullish(),
  hosted_invoice_url: z.string().nullish(),
  invoice_pdf: z.string().nullish(),
  billing_reason: z.string().nullish(),
  customer: idRef.nullish(),
  currency: currencySchema,
  amount_paid: z.number(),
  amount_due: z.number().int().nullish(),
  subtotal: z.number().int().nullish(),
  total_excluding_tax: z.number().int().nullish(),
  total: z.number().int().nullish(),
  total_taxes: z
    .array(z.object({ amount: z.number().int(), taxability_reason: z.string().nullish() }))
    .nullish(),
  /** Before API version 2025-03-31. */
  tax: z.number().int().nullish(),
  customer_name: z.string().nullish(),
  customer_email: z.string().nullish(),
  customer_address: addressSchema,
  customer_tax_exempt: z.string().nullish(),
  customer_tax_ids: taxIdsSchema,
  attempt_count: z.number().int().nullish(),
  next_payment_attempt: seconds.nullish(),
  status_transitions: z.object({ paid_at: seconds.nullish() }).nullish(),
  parent: z
    .object({ subscription_details: z.object({ subscription: idRef, metadata: metadataSchema }).nullish() })
    .nullish(),
  /** Before API version 2025-03-31. */
  subscription: idRef.nullish(),
  lines: z.object({ data: z.array(lineSchema) }),
  /** Only when expanded (never in an event): the invoice's payment attempts. */
  payments: z
    .object({
      data: z.array(
        z.object({
          status: z.string(),
          is_default: z.boolean().nullish(),
          payment: z.object({ payment_intent: paymentIntentRef.nullish() }),
        }),
      ),
    })
    .nullish(),
  /** Before API version 2025-03-31. */
  payment_intent: paymentIntentRef.nullish(),
});

/** A saved card (payment_method.*; PaymentMethodResource.retrieve). */
const paymentMethodSchema = z.object({
  id: z.string().min(1),
  type: z.string(),
  customer: idRef.nullish(),
  card: z
    .object({
      brand: z.string(),
      last4: z.string(),
      exp_month: z.number().int(),
      exp_year: z.number().int(),
    })
    .nullish(),
});

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

/** A customer's tax ID (customer.tax_id.*): Stripe checks an EU VAT ID against VIES and says so. */
const taxIdSchema = z.object({
  id: z.string().min(1),
  type: z.string(),
  value: z.string().min(1),
  customer: idRef.nullish(),
  verification: z.object({ status: z.string() }).nullish(),
});

const fromSeconds = (s: number) => new Date(s * 1000);

/**
 * Our ids in auto top-up's metadata (org_id, auto_top_up_attempt_id) are UUIDs: anything else is
 * refused here rather than reach the database as one.
 */
const uuidSchema = z.guid();

function sessionPayment(s: z.infer<typeof sessionSchema>): PaymentFacts | null {
  if (s.amount_total == null || !s.currency) return null;
  const tax = s.total_details?.amount_tax ?? 0;
  const d = s.customer_details;
  return {
    net: s.amount_subtotal ?? s.amount_total - tax,
    tax,
    total: s.amount_total,
    currency: s.currency,
    reverseCharge: d?.tax_exempt === "reverse",
    buyer: {
      name: d?.name ?? null,
      email: d?.email ?? null,
      country: d?.address?.country ?? null,
      vatId: euVatIdOf(d?.tax_ids),
    },
  };
}

function invoicePayment(inv: z.infer<typeof invoiceSchema>): PaymentFacts {
  const tax = inv.total_taxes ? inv.total_taxes.reduce((sum, t) => sum + t.amount, 0) : (inv.tax ?? 0);
  const total = inv.total ?? inv.amount_due ?? inv.amount_paid;
  return {
    net: inv.total_excluding_tax ?? inv.subtotal ?? total - tax,
    tax,
    total,
    currency: inv.currency,
    reverseCharge:
      inv.customer_tax_exempt === "reverse" ||
      // Stryker disable next-line ArrayDeclaration: any stand-in array holds no reverse-charge tax line.
      (inv.total_taxes ?? []).some((t) => t.taxability_reason === "reverse_charge"),
    buyer: {
      name: inv.customer_name ?? null,
      email: inv.customer_email ?? null,
      country: inv.customer_address?.country ?? null,
      vatId: euVatIdOf(inv.customer_tax_ids),
    },
  };
}

/** The invoice's number and pages, each null while it has none. */
function documentOf(inv: z.infer<typeof invoiceSchema>): InvoiceDocument {
  return {
    invoiceId: inv.id,
    number: inv.number ?? null,
    hostedInvoiceUrl: inv.hosted_invoice_url ?? null,
    invoicePdfUrl: inv.invoice_pdf ?? null,
  };
}

/** Stripe's document of the invoice, once it has a number or a page (the local provider's have neither). */
function invoiceDocument(inv: z.infer<typeof invoiceSchema>): InvoiceDocument | null {
  if (!inv.number && !inv.hosted_invoice_url && !inv.invoice_pdf) return null;
  return documentOf(inv);
}

type PaymentIntentRef = z.infer<typeof paymentIntentRef>;

/**
 * The payment intent of an invoice's payment: the attempt that paid it, else the default one (made
 * at finalisation, the one `invoices.pay` confirms), else the first; before API version 2025-03-31
 * the invoice's own `payment_intent`. Null when the invoice names none (an event's never lists
 * its payments).
 */
function paymentIntentOfInvoice(inv: z.infer<typeof invoiceSchema>): PaymentIntentRef | null {
  const payments = inv.payments?.data ?? [];
  const chosen =
    payments.find((p) => p.status === "paid") ?? payments.find((p) => p.is_default) ?? payments[0];
  return chosen?.payment.payment_intent ?? inv.payment_intent ?? null;
}

/** The last decline of an expanded payment intent: its decline code, else the error's code. */
function declineCodeOf(intent: PaymentIntentRef | null): string | null {
  const error = intent?.last_payment_error;
  return error?.decline_code ?? error?.code ?? null;
}

/**
 * Stripe's words for "the bank wants the customer to authenticate": an off-session payment's
 * `authentication_required` (as code or decline code), and `invoices.pay`'s
 * `invoice_payment_intent_requires_action`. The customer can pay at the invoice's hosted page.
 */
const AUTHENTICATION_CODES: readonly (string | null | undefined)[] = [
  "authentication_required",
  "invoice_payment_intent_requires_action",
];

/** Whether a Stripe error (thrown, or a payment intent's last one) asks for the customer's authentication. */
export function asksForAuthentication(
  error: { code?: string | null | undefined; decline_code?: string | null | undefined } | null | undefined,
): boolean {
  return AUTHENTICATION_CODES.includes(error?.code) || AUTHENTICATION_CODES.includes(error?.decline_code);
}

/**
 * Why a payment's amounts cannot be recorded, or null when they can: none is negative and net plus
 * tax is the total (prices are net, VAT is added, and no discount is offered). Stripe never sends
 * otherwise; an event that does is refused, so it is redelivered once the cause is found, instead
 * of failing the whole fulfilment against the billing history's own check.
 */
function amountsRefusal(payment: PaymentFacts | null): string | null {
  if (!payment) return null;
  const { net, tax, total } = payment;
  if (net < 0 || tax < 0) return `negative amounts: net ${net}, tax ${tax}`;
  if (net + tax !== total) return `amounts do not add up: net ${net} + tax ${tax} is not the total ${total}`;
  return null;
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** What each event type's reader is given: where the event came from, and its two other answers. */
interface Reading {
  ref: EventRef;
  /** An event we do not act on, and why. */
  ignored(reason: string): ParseResult;
  /** An event we act on that lacks what we need. */
  fail(error: string): ParseResult;
}

/** checkout.session.completed and .async_payment_succeeded: a top-up paid, or a subscription started. */
function readSessionEvent(reading: Reading, object: unknown): ParseResult {
  const { ref, ignored, fail } = reading;
  const parsed = sessionSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const s = parsed.data;
  if (s.mode === "setup") return readSetupSession(reading, s);
  if (s.payment_status !== "paid")
    return ignored(`checkout session not paid yet (payment_status ${s.payment_status})`);
  const userId = payerOf(s.metadata, s.client_reference_id ?? null);
  const productId = s.metadata?.[METADATA.productId] ?? null;
  if (userId === null) return fail("no client_reference_id or user_id metadata");
  if (productId === null) return fail("no product_id metadata");
  const payment = sessionPayment(s);
  const refusal = amountsRefusal(payment);
  if (refusal) return fail(refusal);
  const common = { userId, customerId: s.customer ?? null, productId, paidAt: ref.created, payment };
  if (s.mode === "payment") {
    return {
      ok: true,
      event: {
        ...ref,
        ...common,
        kind: "topup_paid",
        checkoutSessionId: s.id,
        invoiceId: s.invoice ?? null,
        paymentIntentId: s.payment_intent ?? null,
        fulfilmentKey: topUpKey(s.id),
      },
    };
  }
  if (s.mode === "subscription") {
    if (!s.subscription) return fail("subscription-mode session without a subscription");
    return {
      ok: true,
      event: {
        ...ref,
        ...common,
        kind: "subscription_started",
        subscriptionId: s.subscription,
        period: null,
        checkoutSessionId: s.id,
        invoiceId: s.invoice ?? null,
        document: null,
        fulfilmentKey: firstPaymentKey(s.subscription),
      },
    };
  }
  return ignored(`checkout session in ${s.mode} mode`);
}

/**
 * A setup-mode session completed: a card saved for auto top-up. Stripe's session names its
 * SetupIntent by id only, and neither it nor the event carries the card (pm_…): then the event is
 * ignored, because setup_intent.succeeded, which Stripe sends for the same SetupIntent, carries it
 * and saves the card. We do not ask Stripe for the SetupIntent here, so the parser stays a pure
 * reading of what was sent. A session whose SetupIntent is expanded (a sender that includes it) is
 * read like that event: either way the card is saved once per SetupIntent (card_saved).
 */
function readSetupSession(reading: Reading, s: z.infer<typeof sessionSchema>): ParseResult {
  const orgId = s.metadata?.[METADATA.orgId];
  if (orgId === undefined) return reading.ignored("setup-mode checkout session without metadata.org_id");
  const intent = s.setup_intent;
  if (!intent) return reading.fail("setup-mode session without a setup_intent");
  if (typeof intent === "string")
    return reading.ignored(
      `setup-mode session names its setup intent only: setup_intent.succeeded carries the card`,
    );
  return cardSaved(reading, orgId, s.customer ?? intent.customer ?? null, intent, s.id);
}

/**
 * setup_intent.succeeded: a card saved. Only SetupIntents our setup pages made carry
 * metadata.org_id (setup_intent_data.metadata); Stripe's own (a subscription's card, the billing
 * portal's) are ignored.
 */
function readSetupIntentEvent(reading: Reading, object: unknown): ParseResult {
  const parsed = setupIntentSchema.safeParse(object);
  if (!parsed.success) return reading.fail(describeIssues(parsed.error));
  const intent = parsed.data;
  const orgId = intent.metadata?.[METADATA.orgId];
  if (orgId === undefined) return reading.ignored("setup intent without metadata.org_id: not auto top-up's");
  return cardSaved(reading, orgId, intent.customer ?? null, intent, null);
}

function cardSaved(
  { ref, fail }: Reading,
  orgId: string,
  customerId: string | null,
  intent: z.infer<typeof setupIntentSchema>,
  checkoutSessionId: string | null,
): ParseResult {
  if (!uuidSchema.safeParse(orgId).success)
    return fail(`metadata.org_id is not an organisation id: ${JSON.stringify(orgId)}`);
  if (!intent.payment_method) return fail(`setup intent ${intent.id} without a payment_method`);
  // Who opened the page: a value that is no user id (not ours) names nobody, rather than failing.
  const openedBy = intent.metadata?.[METADATA.openedBy];
  return {
    ok: true,
    event: {
      ...ref,
      kind: "card_saved",
      orgId,
      customerId,
      setupIntentId: intent.id,
      setupAt: fromSeconds(intent.created),
      checkoutSessionId,
      paymentMethodId: intent.payment_method,
      openedBy: openedBy !== undefined && uuidSchema.safeParse(openedBy).success ? openedBy : null,
    },
  };
}

/**
 * An auto top-up's invoice (metadata.auto_top_up_attempt_id): paid, declined, waiting for the
 * customer's authentication, or voided. Never a subscription's or a checkout top-up's, whatever
 * else it says. A failure's code is the decline the invoice carries (only an expanded payment
 * intent does: an event's invoice usually has none, so null); `payUrl` is its hosted page, where
 * the customer authenticates.
 */
function readAutoTopUpInvoiceEvent(
  { ref, fail }: Reading,
  inv: z.infer<typeof invoiceSchema>,
  attemptId: string,
): ParseResult {
  const common = { attemptId, customerId: inv.customer ?? null, invoiceId: inv.id };
  // Void is final at the provider: nothing can be paid on it any more, whatever it says besides.
  if (ref.eventType === "invoice.voided")
    return { ok: true, event: { ...ref, ...common, kind: "auto_top_up_voided" } };
  const intent = paymentIntentOfInvoice(inv);
  if (ref.eventType === "invoice.paid") {
    const payment = invoicePayment(inv);
    const refusal = amountsRefusal(payment);
    if (refusal) return fail(refusal);
    return {
      ok: true,
      event: {
        ...ref,
        ...common,
        kind: "auto_top_up_paid",
        paymentIntentId: intent?.id ?? null,
        paidAt: paidAtOf(inv, ref.created),
        payment,
        document: documentOf(inv),
      },
    };
  }
  return {
    ok: true,
    event: {
      ...ref,
      ...common,
      kind: "auto_top_up_failed",
      actionRequired: ref.eventType === "invoice.payment_action_required",
      code: declineCodeOf(intent),
      payUrl: inv.hosted_invoice_url ?? null,
    },
  };
}

const paidAtOf = (inv: z.infer<typeof invoiceSchema>, otherwise: Date) =>
  inv.status_transitions?.paid_at == null ? otherwise : fromSeconds(inv.status_transitions.paid_at);

/**
 * invoice.paid, .payment_failed, .payment_action_required and .voided: an auto top-up's charge, a
 * subscription's first payment, a renewal paid or declined, or a one-time payment's invoice.
 */
function readInvoiceEvent(reading: Reading, object: unknown): ParseResult {
  const { ref, ignored, fail } = reading;
  const parsed = invoiceSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const inv = parsed.data;
  const attemptId = inv.metadata?.[METADATA.autoTopUpAttemptId];
  if (attemptId !== undefined) {
    if (!uuidSchema.safeParse(attemptId).success)
      return fail(`metadata.auto_top_up_attempt_id is not an attempt id: ${JSON.stringify(attemptId)}`);
    return readAutoTopUpInvoiceEvent(reading, inv, attemptId);
  }
  // Authentication asked for another invoice (a renewal's): not acted on, as before this event was
  // read at all; the renewal's own payment_failed is. Another invoice voided moves no money.
  if (ref.eventType === "invoice.payment_action_required" || ref.eventType === "invoice.voided")
    return ignored("invoice not of an auto top-up");
  const subscriptionId = inv.parent?.subscription_details?.subscription ?? inv.subscription ?? null;
  const document = invoiceDocument(inv);
  if (subscriptionId === null) {
    // A one-time payment's invoice (invoice_creation): its number and pages belong to the payment.
    if (ref.eventType === "invoice.paid" && document)
      return { ok: true, event: { ...ref, kind: "invoice_document", document } };
    return ignored("invoice not generated by a subscription");
  }
  const reason = inv.billing_reason ?? null;
  if (reason !== "subscription_create" && reason !== "subscription_cycle") {
    return ignored(`invoice billing_reason ${reason}`);
  }
  // The subscription's own line, not a proration adjustment.
  const line =
    inv.lines.data.find((l) => !(l.parent?.subscription_item_details?.proration ?? l.proration ?? false)) ??
    inv.lines.data[0];
  const productId = line?.pricing?.price_details?.product ?? line?.price?.product ?? null;
  if (!line || productId === null) return fail("no subscription line with a product");
  const payment = invoicePayment(inv);
  const refusal = amountsRefusal(payment);
  if (refusal) return fail(refusal);
  const period = { start: fromSeconds(line.period.start), end: fromSeconds(line.period.end) };
  const who = {
    userId: payerOf(inv.parent?.subscription_details?.metadata),
    customerId: inv.customer ?? null,
    subscriptionId,
  };

  if (ref.eventType === "invoice.payment_failed") {
    // A first payment that fails in Checkout never creates the subscription; nothing to undo.
    if (reason !== "subscription_cycle") return ignored("first payment failed");
    return {
      ok: true,
      event: {
        ...ref,
        ...who,
        kind: "renewal_failed",
        invoiceId: inv.id,
        period,
        attemptCount: inv.attempt_count ?? null,
        nextPaymentAttempt: inv.next_payment_attempt == null ? null : fromSeconds(inv.next_payment_attempt),
        productId,
        payment,
        document,
        fulfilmentKey: renewalKey(subscriptionId, period.start),
      },
    };
  }
  const paidAt = paidAtOf(inv, ref.created);
  if (reason === "subscription_create") {
    return {
      ok: true,
      event: {
        ...ref,
        ...who,
        kind: "subscription_started",
        productId,
        period,
        paidAt,
        checkoutSessionId: null,
        invoiceId: inv.id,
        payment,
        document,
        fulfilmentKey: firstPaymentKey(subscriptionId),
      },
    };
  }
  return {
    ok: true,
    event: {
      ...ref,
      ...who,
      kind: "renewal_paid",
      invoiceId: inv.id,
      productId,
      period,
      paidAt,
      payment,
      document,
      fulfilmentKey: renewalKey(subscriptionId, period.start),
    },
  };
}

/** customer.subscription.updated and .deleted: a change made at the provider, or the end. */
function readSubscriptionEvent({ ref, fail }: Reading, object: unknown): ParseResult {
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

/** charge.refunded: how much of a charge is refunded so far. */
function readChargeRefunded({ ref, fail }: Reading, object: unknown): ParseResult {
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
function readDisputeEvent({ ref, fail }: Reading, object: unknown): ParseResult {
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

/**
 * customer.tax_id.created and .updated: Stripe's check of a customer's EU VAT ID. An unknown status
 * (a newer API version's word) reads as pending, never as verified; without a verification, too.
 */
function readTaxIdEvent({ ref, ignored, fail }: Reading, object: unknown): ParseResult {
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

function cardFacts(pm: z.infer<typeof paymentMethodSchema>): SavedCardFacts | null {
  if (!pm.card) return null;
  const { brand, last4, exp_month, exp_year } = pm.card;
  return { paymentMethodId: pm.id, brand, last4, expMonth: exp_month, expYear: exp_year };
}

/**
 * payment_method.detached, .updated and .automatically_updated: a saved card removed, or its new
 * details (the bank's new expiry or number). A detached payment method names its customer no more:
 * the one it had is in `previous_attributes`.
 */
function readPaymentMethodEvent(
  { ref, ignored, fail }: Reading,
  object: unknown,
  previous: Record<string, unknown> | null,
): ParseResult {
  const parsed = paymentMethodSchema.safeParse(object);
  if (!parsed.success) return fail(describeIssues(parsed.error));
  const pm = parsed.data;
  if (ref.eventType === "payment_method.detached") {
    const before = previousCustomerSchema.safeParse(previous);
    if (!before.success) return fail(`previous_attributes: ${describeIssues(before.error)}`);
    const customerId = before.data?.customer ?? pm.customer ?? null;
    return { ok: true, event: { ...ref, kind: "card_detached", customerId, paymentMethodId: pm.id } };
  }
  const card = cardFacts(pm);
  if (card === null) return ignored(`payment method of type ${pm.type}, not a card`);
  return { ok: true, event: { ...ref, kind: "card_updated", customerId: pm.customer ?? null, card } };
}

const previousCustomerSchema = z.object({ customer: idRef.nullish() }).nullish();

/**
 * A payment method retrieved from Stripe: its card and the customer it is attached to (`customer`,
 * null once detached), null when it is not a card.
 */
export function parseStripeCard(
  object: unknown,
): { ok: true; card: RetrievedCard | null } | { ok: false; error: string } {
  const parsed = paymentMethodSchema.safeParse(object);
  if (!parsed.success) return { ok: false, error: `payment method: ${describeIssues(parsed.error)}` };
  const card = cardFacts(parsed.data);
  return { ok: true, card: card && { ...card, customerId: parsed.data.customer ?? null } };
}

/**
 * The auto top-up attempt a retrieved invoice was made for (metadata.auto_top_up_attempt_id), as the
 * invoice events read it; null for another invoice, or one whose id is not an attempt's.
 */
export function autoTopUpAttemptOf(object: unknown): string | null {
  const parsed = z.object({ metadata: metadataSchema }).safeParse(object);
  const attemptId = parsed.success ? parsed.data.metadata?.[METADATA.autoTopUpAttemptId] : undefined;
  return attemptId !== undefined && uuidSchema.safeParse(attemptId).success ? attemptId : null;
}

/**
 * An auto top-up's invoice as Stripe answers it (paid now, or retrieved with its payments' intents
 * expanded): what it says of the charge. An open invoice whose payment waits for the customer's
 * authentication is `requires_action` (paid at its hosted page); one whose last attempt was
 * declined is `declined` with the decline code (else the error's code); one not finalised or
 * attempted yet, or still processing, is `open`. An uncollectible invoice is declined. `now` is
 * the paid time when a paid invoice does not say it.
 */
export function parseAutoTopUpInvoice(
  object: unknown,
  now: Date,
): { ok: true; answer: AutoTopUpChargeAnswer } | { ok: false; error: string } {
  const parsed = invoiceSchema.safeParse(object);
  if (!parsed.success) return { ok: false, error: `invoice: ${describeIssues(parsed.error)}` };
  const inv = parsed.data;
  const invoiceId = inv.id;
  const intent = paymentIntentOfInvoice(inv);
  const answer = (a: AutoTopUpChargeAnswer) => ({ ok: true as const, answer: a });
  switch (inv.status) {
    case "paid": {
      const payment = invoicePayment(inv);
      const refusal = amountsRefusal(payment);
      if (refusal) return { ok: false, error: `invoice ${invoiceId}: ${refusal}` };
      return answer({
        status: "paid",
        invoiceId,
        paymentIntentId: intent?.id ?? null,
        paidAt: paidAtOf(inv, now),
        payment,
        document: documentOf(inv),
      });
    }
    case "void":
      return answer({ status: "void", invoiceId });
    case "uncollectible":
      return answer({ status: "declined", invoiceId, code: declineCodeOf(intent) });
  }
  // No payment yet (a draft, or never attempted): open.
  if (intent === null) return answer({ status: "open", invoiceId });
  // An off-session payment the bank wants authenticated fails with authentication_required and
  // leaves its intent waiting for a payment method: the customer pays at the hosted page too.
  if (
    intent.status === "requires_action" ||
    (intent.status === "requires_payment_method" && asksForAuthentication(intent.last_payment_error))
  ) {
    if (!inv.hosted_invoice_url) return { ok: false, error: `invoice ${invoiceId}: no hosted_invoice_url` };
    return answer({ status: "requires_action", invoiceId, payUrl: inv.hosted_invoice_url });
  }
  if (intent.status === "requires_payment_method" && declineCodeOf(intent) !== null) {
    return answer({ status: "declined", invoiceId, code: declineCodeOf(intent) });
  }
  return answer({ status: "open", invoiceId });
}

/**
 * Reduces a verified webhook event (its JSON already parsed) to a BillingEvent. Event types and
 * variants we do not act on come back as kind "ignored" (answer 200, nothing to do). `ok: false`
 * means an event we act on is missing what we need: log it as an error; whether to answer 4xx (so
 * the provider retries) or 200 is the route's call.
 */
export function parseStripeEvent(input: unknown): ParseResult {
  const env = envelopeSchema.safeParse(input);
  if (!env.success) return { ok: false, error: `not a Stripe event: ${describeIssues(env.error)}` };
  const ref: EventRef = {
    eventId: env.data.id,
    eventType: env.data.type,
    created: fromSeconds(env.data.created),
    livemode: env.data.livemode ?? false,
  };
  const object = env.data.data.object;
  const previous = env.data.data.previous_attributes ?? null;
  const reading: Reading = {
    ref,
    ignored: (reason) => ({ ok: true, event: { ...ref, kind: "ignored", reason } }),
    fail: (error) => ({ ok: false, error: `${ref.eventType} ${ref.eventId}: ${error}` }),
  };

  switch (ref.eventType) {
    // A delayed payment method (SEPA Direct Debit, where the account allows it despite our
    // card-only sessions) completes the session unpaid, then pays it days later: the second event
    // carries the same session, now paid, and is fulfilled exactly like a paid completion (the
    // same fulfilment key, so a session is granted once whichever events arrive).
    case "checkout.session.async_payment_failed":
      return reading.ignored("delayed payment of a checkout session failed: nothing was granted");
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return readSessionEvent(reading, object);
    case "setup_intent.succeeded":
      return readSetupIntentEvent(reading, object);
    case "invoice.paid":
    case "invoice.payment_failed":
    case "invoice.payment_action_required":
    case "invoice.voided":
      return readInvoiceEvent(reading, object);
    case "payment_method.detached":
    case "payment_method.updated":
    case "payment_method.automatically_updated":
      return readPaymentMethodEvent(reading, object, previous);
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      return readSubscriptionEvent(reading, object);
    case "charge.refunded":
      return readChargeRefunded(reading, object);
    case "charge.dispute.created":
    case "charge.dispute.closed":
      return readDisputeEvent(reading, object);
    case "customer.tax_id.created":
    case "customer.tax_id.updated":
      return readTaxIdEvent(reading, object);
    // payment_intent.* never grants (AUTO-TOP-UP.md): they fire for every checkout top-up and
    // renewal too, and an auto top-up is granted from its invoice alone.
    default:
      return reading.ignored(`event type ${ref.eventType} is not used`);
  }
}

/** parseStripeEvent for the raw body (after the signature check). */
export function parseStripeEventJson(rawBody: string): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return { ok: false, error: "body is not JSON" };
  }
  return parseStripeEvent(json);
}
