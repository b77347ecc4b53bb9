// The Stripe adapter's calls for auto top-up (AUTO-TOP-UP.md): the setup page that saves a card,
// the saved card itself, and each attempt's one-off invoice, made, paid off-session, read and
// voided. Every request of an attempt carries the idempotency key `auto-top-up:<attempt id>:<step>`
// (Stripe keeps a key 24 hours; an attempt is never sent after 23), so asking again answers what
// the first request did and never charges twice.
import { and, eq, gt } from "drizzle-orm";
import type Stripe from "stripe";
import type {
  AutoTopUpCharge,
  AutoTopUpChargeAnswer,
  CreatedCheckout,
  NewCardSetup,
  PaymentProvider,
} from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import { cardSetupSessions } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import { asksForAuthentication, autoTopUpAttemptOf, parseAutoTopUpInvoice } from "./auto-top-up-invoices.ts";
import { parseStripeCard } from "./card-events.ts";
import { METADATA } from "./format.ts";

interface AutoTopUpCalls {
  /** The provider's methods for auto top-up. */
  calls: Pick<
    PaymentProvider,
    | "createCardSetupSession"
    | "retrieveCard"
    | "detachCard"
    | "createAutoTopUpInvoice"
    | "payAutoTopUpInvoice"
    | "readAutoTopUpInvoice"
    | "voidAutoTopUpInvoice"
    | "autoTopUpAttemptOfInvoice"
  >;
  /** expireOpenCheckouts' part for card-setup pages (see PaymentProvider.expireOpenCheckouts). */
  expireCardSetupSessions(db: DbOrTx, orgId: string, openedBy?: string): Promise<void>;
}

/** What Stripe's errors carry that we read (the SDK's StripeError; `rawType` is Stripe's `type`). */
interface StripeErrorLike {
  rawType?: string;
  statusCode?: number;
  code?: string;
  decline_code?: string;
  payment_intent?: { status?: string };
}
const asStripeError = (error: unknown): StripeErrorLike =>
  typeof error === "object" && error !== null ? (error as StripeErrorLike) : {};
const isMissing = (error: unknown) => asStripeError(error).code === "resource_missing";
/**
 * Stripe refused the request as it stands (400 invalid_request_error): asking again changes
 * nothing, but the object's state may say why. Rate limiting (429) is not one: it is thrown.
 */
const isRefusal = (e: StripeErrorLike) => e.rawType === "invalid_request_error" && e.statusCode === 400;

/**
 * The payment intent of each of an invoice's payments, expanded: its state and its last decline,
 * which since API version 2025-03-31 the invoice no longer carries itself.
 */
const WITH_PAYMENTS = ["payments.data.payment.payment_intent"];

const keyOf = (attemptId: string, step: "invoice" | "item" | "finalize" | "pay" | "void") =>
  `auto-top-up:${attemptId}:${step}`;

export function createAutoTopUpCalls(deps: {
  stripe: Stripe;
  clock: Clock;
  /** The organisation's customer, made now with its billing e-mail when it has none (provider.ts). */
  customerFor(db: DbOrTx, orgId: string, email: string): Promise<string>;
}): AutoTopUpCalls {
  const { stripe, clock } = deps;

  /** The invoice as Stripe has it now, in our terms; thrown when it cannot be read (try again). */
  async function readInvoice(invoiceId: string): Promise<AutoTopUpChargeAnswer> {
    const invoice = await stripe.invoices.retrieve(invoiceId, { expand: WITH_PAYMENTS });
    return answerOf(invoice);
  }

  function answerOf(invoice: Stripe.Invoice): AutoTopUpChargeAnswer {
    const read = parseAutoTopUpInvoice(invoice, clock.now());
    if (!read.ok) throw new Error(`Stripe invoice ${invoice.id} could not be read: ${read.error}`);
    return read.answer;
  }

  /** The invoice's hosted page, where the customer authenticates and pays. */
  async function payUrlOf(invoiceId: string): Promise<string> {
    const invoice = await stripe.invoices.retrieve(invoiceId);
    if (!invoice.hosted_invoice_url) throw new Error(`Stripe invoice ${invoiceId} has no hosted page`);
    return invoice.hosted_invoice_url;
  }

  const calls: AutoTopUpCalls["calls"] = {
    async createCardSetupSession(db, setup: NewCardSetup): Promise<CreatedCheckout> {
      const customer = await deps.customerFor(db, setup.orgId, setup.email);
      const metadata = { [METADATA.orgId]: setup.orgId, [METADATA.openedBy]: setup.openedBy };
      // Like createCheckoutSession, no idempotency key: each click opens its own page.
      const session = await stripe.checkout.sessions.create({
        mode: "setup",
        customer,
        currency: setup.currency,
        // Cards only. This API version has no `payment_method_types` on create:
        // `allowed_payment_method_types` filters the account's methods down to cards.
        allowed_payment_method_types: ["card"],
        // The SetupIntent's metadata names the organisation in setup_intent.succeeded, which
        // carries the card; the session's names it in checkout.session.completed.
        setup_intent_data: { metadata },
        metadata,
        success_url: setup.successUrl,
        cancel_url: setup.cancelUrl,
        // The consent to later charges, shown beside the button that saves the card.
        custom_text: { submit: { message: setup.consentText } },
      });
      if (!session.url) throw new Error(`Stripe returned setup session ${session.id} without a URL`);
      // Who opened it: removing that member expires it (decision 028).
      await db.insert(cardSetupSessions).values({
        id: session.id,
        provider: "stripe",
        orgId: setup.orgId,
        openedBy: setup.openedBy,
        customerId: customer,
        currency: setup.currency,
        status: "open",
        url: session.url,
        successUrl: setup.successUrl,
        cancelUrl: setup.cancelUrl,
        consentText: setup.consentText,
        createdAt: clock.now(),
        expiresAt: new Date(session.expires_at * 1000),
      });
      return { id: session.id, url: session.url };
    },

    async retrieveCard(_db, paymentMethodId) {
      const pm = await stripe.paymentMethods.retrieve(paymentMethodId).catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      });
      if (pm === null) return null;
      const read = parseStripeCard(pm);
      if (!read.ok)
        throw new Error(`Stripe payment method ${paymentMethodId} could not be read: ${read.error}`);
      return read.card;
    },

    async detachCard(_db, paymentMethodId) {
      try {
        await stripe.paymentMethods.detach(paymentMethodId);
      } catch (error) {
        if (isMissing(error)) return;
        // Stripe refuses to detach a payment method attached to no customer: detached already
        // (by an earlier try, or in the billing portal) is done. Anything else is thrown.
        if (!isRefusal(asStripeError(error))) throw error;
        const pm = await stripe.paymentMethods.retrieve(paymentMethodId).catch((again: unknown) => {
          if (isMissing(again)) return null;
          throw again;
        });
        if (pm?.customer) throw error;
      }
    },

    async createAutoTopUpInvoice(_db, charge: AutoTopUpCharge) {
      const metadata = {
        [METADATA.autoTopUpAttemptId]: charge.attemptId,
        [METADATA.orgId]: charge.orgId,
      };
      const invoice = await stripe.invoices.create(
        {
          customer: charge.customerId,
          currency: charge.currency,
          collection_method: "charge_automatically",
          // We pay it ourselves, once (payAutoTopUpInvoice): Stripe must not collect it again.
          auto_advance: false,
          automatic_tax: { enabled: true },
          default_payment_method: charge.paymentMethodId,
          // Only the item added below: nothing else pending for the customer rides along.
          pending_invoice_items_behavior: "exclude",
          metadata,
        },
        { idempotencyKey: keyOf(charge.attemptId, "invoice") },
      );
      const item = await stripe.invoiceItems.create(
        {
          customer: charge.customerId,
          invoice: invoice.id,
          // This API version names the price under `pricing` (`price` is gone).
          pricing: { price: charge.priceId },
          quantity: 1,
          description: charge.description,
          metadata,
        },
        { idempotencyKey: keyOf(charge.attemptId, "item") },
      );
      // The customer consented to the pack's price they were shown: a Stripe price changed since
      // the catalogue was read must not be charged. The invoice stays a draft, which nothing
      // collects, and the error says why.
      if (item.amount !== charge.amount || item.currency !== charge.currency) {
        throw new Error(
          `Stripe prices ${charge.priceId} at ${item.amount} ${item.currency}, not the ${charge.amount} ${charge.currency} consented to: auto top-up invoice ${invoice.id} left unfinalised`,
        );
      }
      const finalized = await stripe.invoices.finalizeInvoice(
        invoice.id,
        { auto_advance: false },
        { idempotencyKey: keyOf(charge.attemptId, "finalize") },
      );
      // Stripe Tax worked out the VAT from the customer on file: the runner compares this total
      // with the one consented to before anything is paid.
      return { invoiceId: invoice.id, total: finalized.total };
    },

    async payAutoTopUpInvoice(_db, charge, invoiceId) {
      let paid: Stripe.Invoice;
      try {
        paid = await stripe.invoices.pay(
          invoiceId,
          { off_session: true, payment_method: charge.paymentMethodId, expand: WITH_PAYMENTS },
          { idempotencyKey: keyOf(charge.attemptId, "pay") },
        );
      } catch (error) {
        const e = asStripeError(error);
        if (e.rawType === "card_error") {
          // The bank wants the customer: they complete this same payment at the invoice's page.
          if (asksForAuthentication(e) || e.payment_intent?.status === "requires_action") {
            return { status: "requires_action", invoiceId, payUrl: await payUrlOf(invoiceId) };
          }
          // The SDK's StripeCardError says "" for a decline code the answer did not carry.
          return { status: "declined", invoiceId, code: e.decline_code || e.code || null };
        }
        // Refused as a request (paid or voided meanwhile, by the customer at the hosted page or by
        // an earlier try whose answer was lost): what the invoice says now is the answer. An
        // invoice still unpaid after such a refusal is a fault to look at: thrown.
        if (isRefusal(e)) {
          const now = await readInvoice(invoiceId);
          if (now.status === "paid" || now.status === "void") return now;
        }
        // Stripe unreachable, a 5xx, rate limited: thrown. The attempt is then settled by reading
        // its invoice, never by paying again.
        throw error;
      }
      return answerOf(paid);
    },

    readAutoTopUpInvoice: (_db, invoiceId) => readInvoice(invoiceId),

    async autoTopUpAttemptOfInvoice(_db, invoiceId) {
      const invoice = await stripe.invoices.retrieve(invoiceId).catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      });
      return invoice === null ? null : autoTopUpAttemptOf(invoice);
    },

    async voidAutoTopUpInvoice(_db, invoiceId, attemptId) {
      try {
        await stripe.invoices.voidInvoice(invoiceId, {}, { idempotencyKey: keyOf(attemptId, "void") });
      } catch (error) {
        // Stripe voids only an open invoice: one paid or void already is as settled as it gets
        // (a payment arrives as its event). A draft (made, never finalised: a crash between the
        // steps) can never be charged, its collection being ours alone (auto_advance false), and
        // has no page: it is left as it is, so reading it still answers.
        if (!isRefusal(asStripeError(error))) throw error;
        const now = await stripe.invoices.retrieve(invoiceId);
        if (now.status === "paid" || now.status === "void" || now.status === "draft") return;
        throw error;
      }
    },
  };

  return {
    calls,
    async expireCardSetupSessions(db, orgId, openedBy) {
      const open = await db
        .select({ id: cardSetupSessions.id })
        .from(cardSetupSessions)
        .where(
          and(
            eq(cardSetupSessions.orgId, orgId),
            openedBy === undefined ? undefined : eq(cardSetupSessions.openedBy, openedBy),
            eq(cardSetupSessions.provider, "stripe"),
            eq(cardSetupSessions.status, "open"),
            gt(cardSetupSessions.expiresAt, clock.now()),
          ),
        );
      for (const { id } of open) {
        const status = await expireSession(stripe, id);
        if (status === "expired") {
          await db.update(cardSetupSessions).set({ status: "expired" }).where(eq(cardSetupSessions.id, id));
        }
      }
    },
  };
}

/**
 * Expires a checkout session (payment, subscription or setup mode) at Stripe and answers its status
 * there. Stripe expires only an open session: one completed (or expired) meanwhile is as closed as
 * this call would make it (what it did arrives as its event); any other failure is thrown, so the
 * deletion or removal asking stops, to be tried again.
 */
export async function expireSession(stripe: Stripe, id: string): Promise<string | null> {
  return stripe.checkout.sessions.expire(id).then(
    (session) => session.status,
    async (error: unknown) => {
      const now = (await stripe.checkout.sessions.retrieve(id)).status;
      if (now === "open") throw error;
      return now;
    },
  );
}
