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
    | { kind: "ignored"; reason: string }
  );
