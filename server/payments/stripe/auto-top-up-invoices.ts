// Auto top-up's one-off invoices (AUTO-TOP-UP.md), told apart from every other invoice by
// `metadata.auto_top_up_attempt_id`: in their events, and as Stripe answers a charge.
import * as z from "zod";
import type { AutoTopUpChargeAnswer } from "../../billing/ports/payment-provider.ts";
import {
  amountsRefusal,
  describeIssues,
  metadataSchema,
  type ParseResult,
  type Reading,
  uuidSchema,
} from "./event-reading.ts";
import { METADATA } from "./format.ts";
import {
  declineCodeOf,
  documentOf,
  invoicePayment,
  invoiceSchema,
  paidAtOf,
  paymentIntentOfInvoice,
} from "./invoice-reading.ts";

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
 * An auto top-up's invoice (metadata.auto_top_up_attempt_id): paid, declined, waiting for the
 * customer's authentication, or voided. Never a subscription's or a checkout top-up's, whatever
 * else it says. A failure's code is the decline the invoice carries (only an expanded payment
 * intent does: an event's invoice usually has none, so null); `payUrl` is its hosted page, where
 * the customer authenticates.
 */
export function readAutoTopUpInvoiceEvent(
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
