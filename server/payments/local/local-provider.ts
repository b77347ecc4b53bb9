// The local payment provider: the embedded stand-in for Stripe. It keeps checkout sessions,
// customers and subscriptions in the database, takes payments on its hosted page
// (/_checkout/{id}), bills renewals on its billing clock, and tells the billing API what happened
// only through Stripe-format, Stripe-signed webhook events (queued in deliveries.ts), exactly as
// Stripe would: the webhook handler cannot tell the two apart.
//
// It is put together from one module per part of Stripe it stands in for: the hosted checkout
// (hosted-checkout.ts), billing's changes to subscriptions (subscriptions.ts), the billing cycle
// (billing-cycle.ts), the card-change page (card-update.ts), auto top-up's card-setup page
// (card-setup.ts) and off-session charges (off-session-invoices.ts), and the Stripe objects its
// events describe (stripe-objects.ts).
import type { Catalogue, CustomerStore, PaymentProvider } from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import type { CheckoutSessionRow } from "../../db/schema/index.ts";
import type { Db } from "../../db/types.ts";
import { stripeWebhookReader } from "../stripe/webhook-reader.ts";
import { billingCycle } from "./billing-cycle.ts";
import type { BuyerDetailsForm } from "./buyer-details.ts";
import { cardSetups, type SaveCardResult, type SetupPage } from "./card-setup.ts";
import { type CardPage, type CardUpdateResult, cardUpdates } from "./card-update.ts";
import { type DetailsResult, hostedCheckout, type PayResult } from "./hosted-checkout.ts";
import { type InvoicePage, offSessionInvoices } from "./off-session-invoices.ts";
import { localRefunds } from "./refunds.ts";
import { localStripeObjects } from "./stripe-objects.ts";
import { subscriptionCommands } from "./subscriptions.ts";

export interface LocalProvider extends PaymentProvider {
  readonly kind: "local";
  /** The session as its hosted page shows it; expired sessions are marked so. */
  findSession(id: string): Promise<CheckoutSessionRow | undefined>;
  /** The details the buyer's last payment was made with, to start the form from. */
  detailsOnFile(userId: string): Promise<BuyerDetailsForm | undefined>;
  /** Checks the buyer's details and puts the VAT they decide on the session (any number of times before paying). */
  setBuyerDetails(sessionId: string, form: BuyerDetailsForm): Promise<DetailsResult>;
  pay(sessionId: string, cardNumber: string): Promise<PayResult>;
  /** The card-update page's session and the subscription it is for. */
  findCardPage(id: string): Promise<CardPage>;
  /** Puts a new card on the user's subscription; a past-due invoice is charged to it at once. */
  updateCard(id: string, cardNumber: string): Promise<CardUpdateResult>;
  /** The card-setup page's session, while a card can be saved on it. */
  findSetupPage(id: string): Promise<SetupPage>;
  /** Saves a test card on the setup page; `authenticated`: its simulated 3-D Secure step passed. */
  submitCard(id: string, cardNumber: string, authenticated: boolean): Promise<SaveCardResult>;
  /** An auto top-up invoice's payment page, and what it can do now. */
  findInvoicePage(invoiceId: string): Promise<InvoicePage>;
  /** The customer confirmed the payment on its page: paid now (`paidNow`) if it still awaited that. */
  payOnPage(invoiceId: string): Promise<{ page: InvoicePage; paidNow: boolean }>;
  /** Bills every subscription whose period has ended by the billing clock (renewals, cancellations, changes, retries). */
  runBillingCycle(): Promise<number>;
}

export function createLocalProvider(deps: {
  db: Db;
  clock: Clock;
  catalogue: Catalogue;
  /** Origin the browser reaches this server on (the hosted page's URLs are built from it). */
  checkoutBaseUrl: string;
  /** The seller's country: decides the VAT (server/domain/vat.ts). */
  sellerCountry: string;
  /** The secret its webhook events are signed with, and checked with. */
  webhookSecret: string;
  customers: CustomerStore;
}): LocalProvider {
  const objects = localStripeObjects(deps);
  const subscriptions = subscriptionCommands({ clock: deps.clock, objects });
  const cycle = billingCycle({ db: deps.db, clock: deps.clock, objects });
  const checkout = hostedCheckout({ ...deps, objects });
  const refunds = localRefunds({ clock: deps.clock, customers: deps.customers, objects });
  const setups = cardSetups({ ...deps, objects });
  const invoices = offSessionInvoices({ ...deps, objects });
  const cards = cardUpdates({
    ...deps,
    liveSubscriptionOf: subscriptions.liveSubscriptionOf,
    bill: cycle.bill,
  });
  return {
    kind: "local",
    readWebhook: stripeWebhookReader(deps.webhookSecret),
    ...checkout,
    async expireOpenCheckouts(tx, orgId, openedBy) {
      await checkout.expireOpenCheckouts(tx, orgId, openedBy);
      await setups.expireOpenSetups(tx, orgId, openedBy);
      await cards.expireOpenCardPages(tx, orgId, openedBy);
    },
    createCardSetupSession: setups.createCardSetupSession,
    findSetupPage: setups.findSetupPage,
    submitCard: setups.submitCard,
    retrieveCard: setups.retrieveCard,
    detachCard: setups.detachCard,
    createAutoTopUpInvoice: invoices.createAutoTopUpInvoice,
    payAutoTopUpInvoice: invoices.payAutoTopUpInvoice,
    readAutoTopUpInvoice: invoices.readAutoTopUpInvoice,
    voidAutoTopUpInvoice: invoices.voidAutoTopUpInvoice,
    findInvoicePage: invoices.findInvoicePage,
    payOnPage: invoices.payOnPage,
    createPortalSession: cards.createPortalSession,
    findCardPage: cards.findCardPage,
    updateCard: cards.updateCard,
    setCancelAtPeriodEnd: subscriptions.setCancelAtPeriodEnd,
    scheduleChange: subscriptions.scheduleChange,
    cancelNow: subscriptions.cancelNow,
    retrieveSubscription: subscriptions.retrieveSubscription,
    refundPayment: refunds.refundPayment,
    refundUnclaimedPayment: refunds.refundUnclaimedPayment,
    unclaimedRefundReason: refunds.unclaimedRefundReason,
    runBillingCycle: cycle.runBillingCycle,
    invoiceOfPayment: invoices.invoiceOfPayment,
    autoTopUpAttemptOfInvoice: invoices.autoTopUpAttemptOfInvoice,
  };
}
