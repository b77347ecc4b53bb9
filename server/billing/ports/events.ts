// The payment events billing understands: what a provider's webhook means, reduced to the facts
// fulfilment, the billing history and the reversals act on. A provider adapter
// (server/payments/stripe/event-parser.ts reads Stripe's events, which the local checkout also
// sends) turns what it receives into these; billing never sees a provider's own shapes.
import type { VatIdStatus } from "../../../contract/vat-id-verification.ts";
import type { Period } from "../../domain/subscription.ts";

/** The buyer as Checkout collected them (name, e-mail, country, VAT ID). */
export interface BuyerDetails {
  name: string | null;
  email: string | null;
  country: string | null;
  vatId: string | null;
}

/** Where the event came from, for logs and the processed-events table. */
export interface EventRef {
  eventId: string;
  eventType: string;
  created: Date;
  livemode: boolean;
}

/** What a payment was: amounts (minor units), tax and buyer, as the provider recorded them. */
export interface PaymentFacts {
  net: number;
  tax: number;
  total: number;
  currency: string;
  /** The provider's own word that the buyer accounts for the VAT. */
  reverseCharge: boolean;
  buyer: BuyerDetails;
}

/** Stripe's invoice document of a payment: its number and pages (null until Stripe finalises it). */
export interface InvoiceDocument {
  invoiceId: string;
  number: string | null;
  hostedInvoiceUrl: string | null;
  invoicePdfUrl: string | null;
}

/**
 * A subscription as the provider has it: what customer.subscription.updated carries, and what the
 * provider answers when asked for the subscription (PaymentProvider.retrieveSubscription).
 */
export interface SubscriptionSnapshot {
  status: string;
  cancelAtPeriodEnd: boolean;
  /** The product the subscription bills now (null: not said). */
  productId: string | null;
  period: Period | null;
}

/**
 * What fulfilment needs from an event. `userId` is null when an invoice or subscription carries
 * no user metadata: then find the user by `subscriptionId` (or `customerId`).
 */
export type BillingEvent = EventRef &
  (
    | {
        kind: "topup_paid";
        userId: string;
        customerId: string | null;
        checkoutSessionId: string;
        productId: string;
        payment: PaymentFacts | null;
        /** With invoice_creation, Stripe's invoice of the payment (in_…). */
        invoiceId: string | null;
        paymentIntentId: string | null;
        paidAt: Date;
        fulfilmentKey: string;
      }
    | {
        kind: "subscription_started";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        productId: string;
        /** Null from the checkout event, which does not carry it. */
        period: Period | null;
        paidAt: Date;
        checkoutSessionId: string | null;
        invoiceId: string | null;
        payment: PaymentFacts | null;
        document: InvoiceDocument | null;
        fulfilmentKey: string;
      }
    | {
        kind: "renewal_paid";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        invoiceId: string;
        productId: string;
        period: Period;
        paidAt: Date;
        payment: PaymentFacts;
        document: InvoiceDocument | null;
        fulfilmentKey: string;
      }
    | {
        kind: "renewal_failed";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        invoiceId: string;
        period: Period;
        attemptCount: number | null;
        /** Null when the provider will not try again. */
        nextPaymentAttempt: Date | null;
        productId: string;
        payment: PaymentFacts;
        document: InvoiceDocument | null;
        fulfilmentKey: string;
      }
    | {
        /** An invoice that is not a subscription's (a one-time payment's, with invoice_creation). */
        kind: "invoice_document";
        document: InvoiceDocument;
      }
    | {
        kind: "charge_refunded";
        chargeId: string;
        paymentIntentId: string | null;
        /** Before API version 2025-03-31 a charge named its invoice. */
        invoiceId: string | null;
        customerId: string | null;
        /** Minor units: what was charged, and what is refunded so far (cumulative). */
        amount: number;
        amountRefunded: number;
        currency: string;
      }
    | {
        kind: "dispute";
        disputeId: string;
        chargeId: string | null;
        paymentIntentId: string | null;
        /** created: the credits are frozen; closed: released (won) or taken back (lost). */
        phase: "created" | "closed";
        status: string;
      }
    | ({
        kind: "subscription_updated";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        /** Set by the webhook handler: whether this snapshot is newer than our last change. */
        current?: boolean;
      } & SubscriptionSnapshot)
    | {
        kind: "subscription_ended";
        userId: string | null;
        customerId: string | null;
        subscriptionId: string;
        endedAt: Date;
      }
    | {
        /**
         * The provider's check of a customer's VAT ID (Stripe's customer.tax_id.created and
         * .updated): the state of that value, for that customer.
         */
        kind: "vat_id_checked";
        customerId: string;
        vatId: string;
        status: VatIdStatus;
      }
    | {
        /**
         * A card saved for later charges (checkout.session.completed in setup mode, or
         * setup_intent.succeeded): once per SetupIntent, the newest SetupIntent's card wins.
         */
        kind: "card_saved";
        orgId: string;
        customerId: string | null;
        setupIntentId: string;
        /** When the provider made the SetupIntent. */
        setupAt: Date;
        /** The setup page (cs_…), when the event names it. */
        checkoutSessionId: string | null;
        /**
         * The card (pm_…). Neither event carries its details: the handler asks the provider
         * (PaymentProvider.retrieveCard).
         */
        paymentMethodId: string;
        /** The member who opened the setup page (the SetupIntent's metadata.opened_by), if known. */
        openedBy: string | null;
      }
    | {
        /** payment_method.updated / .automatically_updated: the card's new details. */
        kind: "card_updated";
        customerId: string | null;
        card: SavedCardFacts;
      }
    | {
        /** payment_method.detached: auto top-up stops using it. */
        kind: "card_detached";
        customerId: string | null;
        paymentMethodId: string;
      }
    | {
        /** invoice.paid of an auto top-up (metadata.auto_top_up_attempt_id): grants once. */
        kind: "auto_top_up_paid";
        attemptId: string;
        customerId: string | null;
        invoiceId: string;
        paymentIntentId: string | null;
        paidAt: Date;
        payment: PaymentFacts;
        document: InvoiceDocument;
      }
    | {
        /**
         * invoice.payment_failed / invoice.payment_action_required of an auto top-up: a decline, or
         * the bank asks for authentication (then `payUrl` is where the customer pays).
         */
        kind: "auto_top_up_failed";
        attemptId: string;
        customerId: string | null;
        invoiceId: string;
        actionRequired: boolean;
        /** Stripe's decline code (or the error's code), when the event carries it. */
        code: string | null;
        payUrl: string | null;
      }
    | {
        /**
         * invoice.voided of an auto top-up: nothing can be paid on it any more (voided by our own
         * call, or at the provider), so the attempt it was made for is settled as void.
         */
        kind: "auto_top_up_voided";
        attemptId: string;
        customerId: string | null;
        invoiceId: string;
      }
    | { kind: "ignored"; reason: string }
  );

/** A saved card as the provider describes it (Stripe's PaymentMethod with `card`). */
export interface SavedCardFacts {
  /** pm_… */
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** The events auto top-up acts on (billing/auto-top-up/), each handled in the webhook's transaction. */
export const AUTO_TOP_UP_EVENT_KINDS = [
  "card_saved",
  "card_updated",
  "card_detached",
  "auto_top_up_paid",
  "auto_top_up_failed",
  "auto_top_up_voided",
] as const;
export type AutoTopUpEvent = Extract<BillingEvent, { kind: (typeof AUTO_TOP_UP_EVENT_KINDS)[number] }>;

export const isAutoTopUpEvent = (event: BillingEvent): event is AutoTopUpEvent =>
  (AUTO_TOP_UP_EVENT_KINDS as readonly string[]).includes(event.kind);
