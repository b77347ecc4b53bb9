// What billing needs from a payment provider, and what it gives one. Two implementations: the
// local stand-in (server/payments/local/, the default in development) and Stripe
// (server/payments/stripe/). Both sit outside billing and import only these ports; billing never
// imports them. Calls that change a subscription are idempotent: repeating one leaves the provider
// as the first left it.
import type { VatIdStatus } from "../../../contract/vat-id-verification.ts";
import type { DbOrTx } from "../../db/types.ts";
import type {
  BillingEvent,
  InvoiceDocument,
  PaymentFacts,
  SavedCardFacts,
  SubscriptionSnapshot,
} from "./events.ts";

// The catalogue billing sells from: the provider is given it (the local checkout shows its names
// and prices; Stripe's ids are read into it at start).
export type { Catalogue } from "../catalogue.ts";

export interface NewCheckout {
  /** The paying organisation (a personal one has its user's id). */
  userId: string;
  /** The member who opens it: their removal from the organisation expires it. */
  openedBy: string;
  /** The organisation's billing e-mail, for a customer made now. */
  email: string;
  mode: "subscription" | "payment";
  productId: string;
  priceId: string;
  productName: string;
  /** Minor units. */
  amount: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
}

export interface CreatedCheckout {
  id: string;
  url: string;
}

export interface PaymentProvider {
  readonly kind: "local" | "stripe";
  /**
   * Creates a hosted checkout session with `client_reference_id`, session metadata and (in
   * subscription mode) subscription metadata naming the user, for the user's reused customer.
   */
  createCheckoutSession(db: DbOrTx, checkout: NewCheckout): Promise<CreatedCheckout>;
  setCancelAtPeriodEnd(db: DbOrTx, subscriptionId: string, cancelAtPeriodEnd: boolean): Promise<void>;
  /** From the end of the current period, bill `productId` (null: drop a scheduled change). */
  scheduleChange(db: DbOrTx, subscriptionId: string, productId: string | null): Promise<void>;
  /**
   * Ends the subscription now, without proration, and voids its invoices still open: nothing more
   * is collected for it. A second subscription paid by mistake (`refundLatestInvoice`) is refunded
   * besides, by the billing service through refundUnclaimedPayment, which knows the payment.
   */
  cancelNow(db: DbOrTx, subscriptionId: string, refundLatestInvoice: boolean): Promise<void>;
  /**
   * Refunds in full a payment that no billing account can take: it arrived for an organisation
   * deleted meanwhile (ORGANISATIONS.md), or for a second subscription. Once per payment however many events describe it; a
   * payment refunded already counts as done. False when the provider finds no payment to refund,
   * or refuses the refund for good (disputed meanwhile): then an operator must look. Thrown when
   * the provider could not be asked (try again).
   */
  refundUnclaimedPayment(db: DbOrTx, payment: UnclaimedPayment): Promise<boolean>;
  /**
   * The reason billing gave when it asked for a refund of this charge through
   * refundUnclaimedPayment, or null (another refund, or none). The evidence that a refund's
   * payment, not on record yet, has its record on the way (billing/reversals.ts). Thrown when the
   * provider could not be asked (try again).
   */
  unclaimedRefundReason(db: DbOrTx, chargeId: string): Promise<string | null>;
  /**
   * Closes the organisation's checkout sessions, card-setup pages and (the local stand-in's) card
   * pages that are still open, so that none can be paid or take a card any more (an account or
   * organisation being deleted); with `openedBy`, only those that member opened (the member is
   * removed, leaves, or loses billing). A session the provider has already completed is left as it
   * is: its payment arrives as an event like any other. Stripe's Billing Portal sessions cannot be
   * closed by its API: they end on their own (decision 045).
   */
  expireOpenCheckouts(db: DbOrTx, userId: string, openedBy?: string): Promise<void>;
  /**
   * Closes the organisation's subscription checkouts that are still open: a subscription has just
   * started, and another paid now would buy nothing (it would be cancelled and refunded). A session
   * the provider has already completed is left as it is (a race the refund covers).
   */
  expireSubscriptionCheckouts(db: DbOrTx, orgId: string): Promise<void>;
  /**
   * A page where the customer changes their card (Stripe's Billing Portal; the local stand-in's
   * card page), coming back to `returnUrl`. A past-due invoice is paid with the new card. The local
   * page records `openedBy`, the member who clicked, and takes a card only while they may manage
   * billing; Stripe's portal session names the customer alone (decision 045).
   */
  createPortalSession(
    db: DbOrTx,
    p: { userId: string; openedBy: string; customerId: string; returnUrl: string },
  ): Promise<{ url: string }>;
  /**
   * Refunds `amount` of a paid purchase (the operator console). With Stripe a Refund on its payment
   * intent, made once per idempotency key; the local checkout sends `charge.refunded` as Stripe
   * would. Either way the credits, the history and the credit note follow from that event. Null
   * when the provider has no payment to refund for it.
   */
  refundPayment(db: DbOrTx, refund: RefundRequest): Promise<{ refundId: string; status: string } | null>;
  /**
   * The subscription as the provider has it now (Stripe: GET /v1/subscriptions/{id}), read as its
   * customer.subscription.updated events are; null when the provider does not know it. Asked when
   * an event may be stale, which is Stripe's advice for events delivered out of order (webhooks.ts).
   */
  retrieveSubscription(db: DbOrTx, subscriptionId: string): Promise<SubscriptionSnapshot | null>;
  /**
   * Puts the organisation's billing details on its customer (made now when it has none yet, with
   * metadata.org_id): name, e-mail, postal address and VAT ID, which the provider's invoices and
   * its tax calculation use from then on. Answers the customer id, and the VAT ID's state (null
   * without one): Stripe's verification of the tax ID it made or already had; the local stand-in
   * confirms a well-formed ID at once (decision 031).
   */
  saveCustomerDetails(db: DbOrTx, orgId: string, details: CustomerDetails): Promise<SavedCustomerDetails>;
  /**
   * Auto top-up (AUTO-TOP-UP.md). A hosted page that saves a card for later charges without the
   * customer (Stripe: a Checkout Session in setup mode), recorded in card_setup_sessions with who
   * opened it. The card is saved from the provider's event (`card_saved`), never from the redirect.
   */
  createCardSetupSession(db: DbOrTx, setup: NewCardSetup): Promise<CreatedCheckout>;
  /**
   * A saved card as the provider has it now: its details (brand, last 4, expiry) and the customer it
   * is attached to (null once detached); null when the provider does not know it.
   */
  retrieveCard(db: DbOrTx, paymentMethodId: string): Promise<RetrievedCard | null>;
  /** Detaches a saved card at the provider; a card detached already counts as done. */
  detachCard(db: DbOrTx, paymentMethodId: string): Promise<void>;
  /**
   * Makes the one-off invoice of an auto top-up attempt (one item at the pack's price, tax as the
   * provider computes it for the customer, metadata.auto_top_up_attempt_id), finalised and ready to
   * pay. Idempotent per attempt: asked again, it answers the same invoice. Thrown: try again later.
   */
  createAutoTopUpInvoice(db: DbOrTx, charge: AutoTopUpCharge): Promise<AutoTopUpInvoice>;
  /**
   * Pays that invoice off-session with the saved card (Stripe: `off_session=true`, idempotency key
   * `auto-top-up:<attempt id>:pay`). Every decline is an answer, never a throw; thrown only when the
   * provider could not be asked (then the attempt is read, not paid again, on the next run).
   */
  payAutoTopUpInvoice(db: DbOrTx, charge: AutoTopUpCharge, invoiceId: string): Promise<AutoTopUpChargeAnswer>;
  /** The invoice's state as the provider has it now: how a restart settles an attempt without paying again. */
  readAutoTopUpInvoice(db: DbOrTx, invoiceId: string): Promise<AutoTopUpChargeAnswer>;
  /** Voids an unpaid auto top-up invoice (its payment link then says it is no longer needed); done when paid or void already. */
  voidAutoTopUpInvoice(db: DbOrTx, invoiceId: string, attemptId: string): Promise<void>;
  /**
   * The invoice (in_…) a payment intent paid, when the provider's events do not say (refunds,
   * disputes). `db` is the caller's transaction: on PGlite's one connection a read beside it waits
   * for it forever.
   */
  invoiceOfPayment(db: DbOrTx, paymentIntentId: string): Promise<string | null>;
  /**
   * The auto top-up attempt the provider's invoice (in_…) was made for: its
   * `metadata.auto_top_up_attempt_id`, null for any other invoice, one whose id is not an attempt's,
   * or one the provider does not know. Asked for a refund or dispute of a payment not on record
   * (billing/reversals.ts): an open attempt's record is on its way. Thrown when the provider could
   * not be asked (try again).
   */
  autoTopUpAttemptOfInvoice(db: DbOrTx, invoiceId: string): Promise<string | null>;
  /**
   * Reads a webhook request: checks its signature on the raw bytes before anything is parsed, then
   * reduces the event to what billing understands. `now` is the injected clock's time.
   */
  readWebhook(rawBody: Uint8Array, signature: string | undefined, now: Date): Promise<WebhookRead>;
}

/**
 * A saved card as retrieveCard answers it. A card removed at the provider (Stripe's Billing Portal)
 * is still there, detached: only its customer says it can no longer be charged for the
 * organisation, and an event saving it may arrive after the one removing it (auto-top-up/events.ts).
 */
export interface RetrievedCard extends SavedCardFacts {
  /** The customer (cus_…) it is attached to; null once detached (Stripe: the PaymentMethod's `customer`). */
  customerId: string | null;
}

/** A card-setup page to open (POST /v1/billing/payment-method/setup). */
export interface NewCardSetup {
  orgId: string;
  /** The member who opens it: their removal from the organisation expires it (decision 028). */
  openedBy: string;
  /** The organisation's billing e-mail, for a customer made now. */
  email: string;
  /** The packs' currency. */
  currency: string;
  successUrl: string;
  cancelUrl: string;
  /** Shown on the page: "By saving this card you allow <seller> to charge it ...". */
  consentText: string;
}

/** One auto top-up attempt's charge, as the provider needs to make it. */
export interface AutoTopUpCharge {
  attemptId: string;
  orgId: string;
  customerId: string;
  /** The saved card (pm_…). */
  paymentMethodId: string;
  productId: string;
  /** The pack's price at the provider (Stripe: price_…). */
  priceId: string;
  /** "Auto top-up: 500 credits". */
  description: string;
  /** Net, minor units. */
  amount: number;
  currency: string;
}

/** An auto top-up's invoice as the provider made it: its id, and the total with the VAT it worked out. */
export interface AutoTopUpInvoice {
  invoiceId: string;
  /** Gross, minor units: what paying it would charge (Stripe Tax decides Stripe's VAT). */
  total: number;
}

/** The state of an auto top-up invoice: what its payment answered, or what reading it says. */
export type AutoTopUpChargeAnswer =
  | {
      status: "paid";
      invoiceId: string;
      paymentIntentId: string | null;
      paidAt: Date;
      payment: PaymentFacts;
      document: InvoiceDocument;
    }
  /** The bank asks the customer to authenticate: they pay at `payUrl` (Stripe's hosted invoice page). */
  | { status: "requires_action"; invoiceId: string; payUrl: string }
  /** `code`: Stripe's `decline_code`, else the error's `code`. */
  | { status: "declined"; invoiceId: string; code: string | null }
  /** Not settled yet (still processing, or not yet paid): the event or the next read will say. */
  | { status: "open"; invoiceId: string }
  | { status: "void"; invoiceId: string };

/** An organisation's billing details (PUT /v1/billing/details), checked: the VAT ID fits the country. */
export interface CustomerDetails {
  name: string;
  email: string;
  address: { line1: string; line2: string | null; postal_code: string; city: string; country: string };
  vatId: string | null;
}

/** What saving the details on the provider's customer answers. */
export interface SavedCustomerDetails {
  customerId: string;
  /** Null without a VAT ID. */
  vatIdStatus: VatIdStatus | null;
}

/** A payment that arrived for nobody who can take it, as its event names it. */
export interface UnclaimedPayment {
  /** The organisation it was paid for. */
  orgId: string;
  customerId: string | null;
  /** What carried it: a payment intent (pi_…), the provider's invoice (in_…), or both. */
  paymentIntentId: string | null;
  providerInvoiceId: string | null;
  /** Minor units, as the event says (null: not said). */
  total: number | null;
  currency: string | null;
  reason: string;
}

/** A refund of one of our invoice rows, as the provider needs to make it. */
export interface RefundRequest {
  userId: string;
  /** Our invoice row's id. */
  invoiceId: string;
  /** What carried the payment: a payment intent (pi_…) or the provider's invoice (in_…). */
  paymentReference: string | null;
  providerInvoiceId: string | null;
  currency: string;
  /** Minor units: what was paid, what was refunded before, and what to refund now. */
  total: number;
  refundedBefore: number;
  amount: number;
  reason: string;
  idempotencyKey: string;
}

/**
 * A webhook request read by the provider:
 * - signature: a missing, malformed, wrong or stale signature (answered 400; not worth an alarm);
 * - unparseable: signed, but not an event we can read (answered 400, so the provider redelivers
 *   it while the cause is fixed; logged at error level).
 */
export type WebhookRead =
  | { ok: true; event: BillingEvent }
  | { ok: false; error: "signature" | "unparseable"; reason: string };

/**
 * Billing's record of each user's customer at the provider, and the billing details on file: a
 * provider reads and writes them through this store, which billing gives it.
 */
export interface CustomerStore {
  findCustomerId(db: DbOrTx, userId: string): Promise<string | undefined>;
  /** Saves the user's customer id unless one is already saved; answers the saved one. */
  saveCustomerId(db: DbOrTx, userId: string, customerId: string): Promise<string>;
  /** What the last checkout collected, when it collected a country. */
  findBillingDetails(db: DbOrTx, userId: string): Promise<BillingDetailsOnFile | undefined>;
  /**
   * The organisation's billing e-mail (its billing details', else its first owner's): what the
   * customer and the invoices carry. Null for an organisation without one.
   */
  findBillingEmail(db: DbOrTx, orgId: string): Promise<string | null>;
}

/** The billing details on file: what the last checkout collected (Stripe keeps them on its customer). */
export interface BillingDetailsOnFile {
  name: string | null;
  country: string | null;
  vatId: string | null;
  /** Whether `vatId` is confirmed (decision 031): only a verified one gives reverse charge. */
  vatIdStatus: VatIdStatus | null;
  /** Given on /profile/billing only (a checkout collects neither). */
  email: string | null;
  address: {
    line1: string;
    line2?: string | null;
    postal_code: string;
    city: string;
    country: string;
  } | null;
  updatedAt: Date | null;
}
