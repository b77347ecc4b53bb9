// Tables of billing: our view of each user's subscription, the credit ledger (grants and spends),
// processed webhook events, checkout sessions, and the local payment provider's own records
// (the embedded stand-in for Stripe keeps its subscriptions, customers, outgoing webhook deliveries
// and its billing clock here, so they survive restarts and are shared by several instances).
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { VAT_ID_STATUSES } from "../../../contract/vat-id-verification.ts";
import { TAX_TREATMENTS } from "../../domain/vat.ts";
import { users } from "./accounts.ts";
import { organizations } from "./organizations.ts";

const at = (name: string) => timestamp(name, { withTimezone: true });
/** Milli-credits (see server/domain/ledger.ts); sums need 64 bits, and JS numbers hold them exactly. */
const millicredits = (name: string) => bigint(name, { mode: "number" });
/**
 * The paying organisation (the billing account). The column keeps its name from before
 * organisations: a personal organisation's id is its user's id, so every row written before, and
 * every row an instance of the previous version writes during a rolling deploy, is right as it is
 * (decision 027).
 */
const userRef = () =>
  uuid("user_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" });

/**
 * Our copy of a user's subscription, as the subscription state machine sees it. `status` live
 * (active, past_due) or ended; at most one live row per user (partial unique index), and a
 * provider subscription id appears once, so events find the user through it.
 */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: uuid("id").primaryKey(),
    userId: userRef(),
    /** sub_… at the provider. */
    providerSubscriptionId: text("provider_subscription_id").notNull(),
    customerId: text("customer_id"),
    productId: text("product_id").notNull(),
    status: text("status", { enum: ["active", "past_due", "ended"] }).notNull(),
    currentPeriodStart: at("current_period_start").notNull(),
    currentPeriodEnd: at("current_period_end").notNull(),
    periodIsEstimate: boolean("period_is_estimate").notNull().default(false),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
    scheduledProductId: text("scheduled_product_id"),
    endedAt: at("ended_at"),
    createdAt: at("created_at").notNull().defaultNow(),
    updatedAt: at("updated_at").notNull().defaultNow(),
    /**
     * When the plan was last changed by the user's command or by an applied provider snapshot (its
     * event time): a customer.subscription.updated older than this is not copied.
     */
    changedAt: at("changed_at"),
  },
  (t) => [
    uniqueIndex("subscriptions_provider_subscription_id_key").on(t.providerSubscriptionId),
    uniqueIndex("subscriptions_one_live_per_user_key")
      .on(t.userId)
      .where(sql`${t.status} in ('active', 'past_due')`),
  ],
);
export type SubscriptionRow = typeof subscriptions.$inferSelect;

/**
 * The provider's customer of each user, reused for every checkout, with the billing details the
 * last checkout collected (Stripe Checkout's `customer_update` saves them on the customer, and the
 * next checkout and every renewal are taxed from them).
 */
export const billingCustomers = pgTable(
  "billing_customers",
  {
    /** The organisation (decision 027: the column keeps its name). */
    userId: uuid("user_id")
      .primaryKey()
      .references(() => organizations.id, { onDelete: "cascade" }),
    customerId: text("customer_id").notNull(),
    createdAt: at("created_at").notNull().defaultNow(),
    name: text("name"),
    /** ISO 3166-1 alpha-2. */
    country: text("country"),
    /** A format-checked EU VAT ID of `country`, or null (a consumer). */
    vatId: text("vat_id"),
    /** Where invoices go (PUT /v1/billing/details); null: the owners' addresses as before. */
    email: text("email"),
    /** The postal address as given: {line1, line2?, postal_code, city, country}. */
    address: jsonb("address").$type<BillingAddress>(),
    detailsUpdatedAt: at("details_updated_at"),
  },
  (t) => [uniqueIndex("billing_customers_customer_id_key").on(t.customerId)],
);

export interface BillingAddress {
  line1: string;
  line2?: string | null;
  postal_code: string;
  city: string;
  country: string;
}

/**
 * The provider's checks of VAT IDs (decision 031), one row per customer and VAT ID (compact, in
 * capitals): whether the ID is confirmed, as of when. The VAT ID on file is as confirmed as its own
 * row says, and pending without one. Kept apart from billing_customers because a check may arrive
 * before the payment that brings its ID, after the ID was replaced, or out of order; and an instance
 * of the previous version, which changes `vat_id` alone, cannot leave a stale state behind.
 */
export const vatIdChecks = pgTable(
  "vat_id_checks",
  {
    customerId: text("customer_id").notNull(),
    vatId: text("vat_id").notNull(),
    status: text("status", { enum: VAT_ID_STATUSES }).notNull(),
    /** When the provider made this fact: an older one changes nothing. */
    checkedAt: at("checked_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.vatId] })],
);

/** One bucket of credits. Every grant names what paid for it (fulfilment key and payment reference). */
export const creditGrants = pgTable(
  "credit_grants",
  {
    id: uuid("id").primaryKey(),
    userId: userRef(),
    kind: text("kind", { enum: ["subscription", "topup", "free"] }).notNull(),
    amount: millicredits("amount").notNull(),
    remaining: millicredits("remaining").notNull(),
    grantedAt: at("granted_at").notNull(),
    expiresAt: at("expires_at"),
    source: text("source").notNull(),
    /**
     * What staff told the customer about a goodwill grant (the console's "Note to the customer"):
     * /profile and the grant's mail show it. Null for every other grant and when staff wrote none;
     * the grant's reason stays in the audit log, for staff only.
     */
    note: text("note"),
    /** One per thing paid for (server/billing/ports/fulfilment-keys.ts): a second insert does nothing. */
    fulfilmentKey: text("fulfilment_key").notNull(),
    /** The provider object that carried the payment (cs_…, in_…, sub_…) and its event; null for free credits. */
    paymentReference: text("payment_reference"),
    eventId: text("event_id"),
    createdAt: at("created_at").notNull().defaultNow(),
    /**
     * Credits held back while the payment is disputed: moved out of `remaining` (so no balance or
     * spend counts them) and back when the dispute is won, or dropped when it is lost.
     */
    frozen: millicredits("frozen").notNull().default(0),
    /**
     * The part of `remaining` that open credit leases hold (credit_leases, decision 051): still
     * the customer's, so every balance counts it, but no spend outside those leases takes it.
     */
    reserved: millicredits("reserved").notNull().default(0),
  },
  (t) => [
    uniqueIndex("credit_grants_fulfilment_key_key").on(t.fulfilmentKey),
    index("credit_grants_user_idx").on(t.userId),
    check("credit_grants_amount_positive", sql`${t.amount} > 0`),
    check("credit_grants_remaining_range", sql`${t.remaining} >= 0 and ${t.remaining} <= ${t.amount}`),
    check(
      "credit_grants_frozen_range",
      sql`${t.frozen} >= 0 and ${t.remaining} + ${t.frozen} <= ${t.amount}`,
    ),
    // A reversal that would take reserved credits fails here: it ends the leases first.
    check("credit_grants_reserved_range", sql`${t.reserved} >= 0 and ${t.reserved} <= ${t.remaining}`),
  ],
);
export type CreditGrantRow = typeof creditGrants.$inferSelect;

/** One spend: what it took from which grant, and the balance it left; once per idempotency key. */
export const creditSpends = pgTable(
  "credit_spends",
  {
    id: uuid("id").primaryKey(),
    userId: userRef(),
    amount: millicredits("amount").notNull(),
    reason: text("reason").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    balanceAfter: millicredits("balance_after").notNull(),
    /** [{grantId, amount}] in milli-credits. */
    takes: jsonb("takes").$type<{ grantId: string; amount: number }[]>().notNull(),
    /** The admin who asked for it (the manual form). */
    requestedBy: uuid("requested_by"),
    /** A metered charge (consume by feature): the key it was made with, if any ... */
    apiKeyId: text("api_key_id"),
    /** ... the feature id (contract/credit-costs.ts), "one" or "multiple" people, and how many uses. */
    feature: text("feature"),
    people: text("people", { enum: ["one", "multiple"] }),
    quantity: integer("quantity"),
    createdAt: at("created_at").notNull(),
    /**
     * The credit lease the charge was made through (decision 051), null for a charge decided under
     * the organisation's lock. No foreign key: leases are never deleted, and the charge's insert is
     * the hot path.
     */
    leaseId: uuid("lease_id"),
  },
  (t) => [
    // Key first: the batch looks earlier spends up by idempotency key alone (billing/spends.ts).
    uniqueIndex("credit_spends_idempotency_key_user").on(t.idempotencyKey, t.userId),
    // A key's charges by time, and a user's (the usage CSV pages through them).
    index("credit_spends_api_key_idx").on(t.apiKeyId, t.createdAt),
    index("credit_spends_user_created_idx").on(t.userId, t.createdAt),
    // What a lease spent, when it ends (billing/credit-leases.ts).
    index("credit_spends_lease_idx").on(t.leaseId).where(sql`${t.leaseId} is not null`),
    check("credit_spends_amount_positive", sql`${t.amount} > 0`),
  ],
);

/**
 * The charges summed per user, Berlin day, feature and API key, kept by the spends that make them
 * (in the same transaction): usage history reads a user's days here instead of summing every charge
 * (GET /v1/usage over 90 days is at most 90 rows per feature and key, whatever the number of
 * generations). "" stands for no feature (the admin's manual form) and no key, so the four columns
 * can be the primary key the spends add to.
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    userId: userRef(),
    /** The Berlin calendar day of the charges. */
    day: date("day").notNull(),
    feature: text("feature").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    /** Uses counted: the charges' quantities (a manual charge counts one). */
    uses: bigint("uses", { mode: "number" }).notNull(),
    credits: millicredits("credits").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day, t.feature, t.apiKeyId] })],
);

/** Webhook events already processed: a redelivery of one of these does nothing. */
export const webhookEvents = pgTable("webhook_events", {
  eventId: text("event_id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: at("received_at").notNull(),
});

/** Checkout sessions we created (both providers); the local provider's hosted page reads them. */
export const checkoutSessions = pgTable(
  "checkout_sessions",
  {
    /** cs_… */
    id: text("id").primaryKey(),
    provider: text("provider", { enum: ["local", "stripe"] }).notNull(),
    userId: userRef(),
    mode: text("mode", { enum: ["subscription", "payment"] }).notNull(),
    productId: text("product_id").notNull(),
    priceId: text("price_id").notNull(),
    /** Minor units. */
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    status: text("status", { enum: ["open", "complete", "expired"] }).notNull(),
    url: text("url").notNull(),
    successUrl: text("success_url").notNull(),
    cancelUrl: text("cancel_url").notNull(),
    customerId: text("customer_id").notNull(),
    /**
     * The member who opened it (null: before migration 0017, or the member's account is gone).
     * Removing the member from the organisation expires the sessions they opened.
     */
    openedBy: uuid("opened_by").references(() => users.id, { onDelete: "set null" }),
    /** Once paid: the subscription and its first invoice (subscription mode) or the payment intent. */
    subscriptionId: text("subscription_id"),
    invoiceId: text("invoice_id"),
    paymentIntentId: text("payment_intent_id"),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    completedAt: at("completed_at"),
    /** What the local checkout collected before showing the total (Stripe's session keeps these itself). */
    buyerName: text("buyer_name"),
    buyerCountry: text("buyer_country"),
    buyerVatId: text("buyer_vat_id"),
    taxTreatment: text("tax_treatment", { enum: TAX_TREATMENTS }),
    taxRateBasisPoints: integer("tax_rate_basis_points"),
    /** Minor units, on top of `amount` (the net price). */
    amountTax: integer("amount_tax"),
  },
  (t) => [index("checkout_sessions_user_idx").on(t.userId)],
);
export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

/** The local provider's subscriptions (what Stripe would hold): it bills them on its billing clock. */
export const localSubscriptions = pgTable("local_subscriptions", {
  /** sub_… */
  id: text("id").primaryKey(),
  userId: userRef(),
  customerId: text("customer_id").notNull(),
  productId: text("product_id").notNull(),
  priceId: text("price_id").notNull(),
  subscriptionItemId: text("subscription_item_id").notNull(),
  status: text("status", { enum: ["active", "past_due", "canceled"] }).notNull(),
  /** Periods are counted from the anchor (addMonths(anchor, n)) so month-end clamping never drifts. */
  billingAnchor: at("billing_anchor").notNull(),
  periodIndex: integer("period_index").notNull().default(0),
  currentPeriodStart: at("current_period_start").notNull(),
  currentPeriodEnd: at("current_period_end").notNull(),
  cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
  scheduledProductId: text("scheduled_product_id"),
  /** The card attaches but every renewal charge fails (Stripe's test card 4000 0000 0000 0341). */
  renewalsDecline: boolean("renewals_decline").notNull().default(false),
  failedAttempts: integer("failed_attempts").notNull().default(0),
  nextPaymentAttempt: at("next_payment_attempt"),
  openInvoiceId: text("open_invoice_id"),
  createdAt: at("created_at").notNull(),
  canceledAt: at("canceled_at"),
});
export type LocalSubscriptionRow = typeof localSubscriptions.$inferSelect;

/** Webhook events the local provider still has to deliver, with Stripe's retry schedule. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey(),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    payload: text("payload").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: at("next_attempt_at"),
    lastStatus: integer("last_status"),
    deliveredAt: at("delivered_at"),
    gaveUpAt: at("gave_up_at"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [index("webhook_deliveries_due_idx").on(t.nextAttemptAt)],
);

/** Named settings of the local provider; `clock_offset_ms` moves its billing clock (billing:advance). */
export const localBillingSettings = pgTable(
  "local_billing_settings",
  {
    key: text("key").notNull(),
    value: bigint("value", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.key] })],
);

/**
 * Every payment (first payment, renewal, top-up) and every failed renewal attempt: the billing
 * history and the invoices. One row per thing paid for (`fulfilment_key`, the same key as its
 * credit grant), so redelivered and duplicate events never make a second one. A paid row of the
 * local provider gets our own invoice number (`sequence` from invoice_sequences, in the same
 * transaction, so numbers have no gaps); a Stripe row carries Stripe's invoice number and links.
 */
export const invoices = pgTable(
  "invoices",
  {
    id: uuid("id").primaryKey(),
    userId: userRef(),
    fulfilmentKey: text("fulfilment_key").notNull(),
    provider: text("provider", { enum: ["local", "stripe"] }).notNull(),
    kind: text("kind", { enum: ["subscription", "renewal", "topup"] }).notNull(),
    status: text("status", { enum: ["paid", "failed", "not_charged", "refunded", "disputed"] }).notNull(),
    /** Ours, "INV-2026-000001", given when paid (a Stripe invoice's number is in provider_invoice_documents). */
    number: text("number"),
    /** Ours only: the position in its year's series. */
    series: text("series"),
    sequence: integer("sequence"),
    issuedAt: at("issued_at").notNull(),
    description: text("description").notNull(),
    currency: text("currency").notNull(),
    /** Minor units. */
    net: integer("net").notNull(),
    tax: integer("tax").notNull(),
    total: integer("total").notNull(),
    refunded: integer("refunded").notNull().default(0),
    taxTreatment: text("tax_treatment", { enum: TAX_TREATMENTS }),
    taxRateBasisPoints: integer("tax_rate_basis_points"),
    /** Snapshots as they were on the day: {name, address, country, vatId} and {name, email, country, vatId}. */
    seller: jsonb("seller").$type<InvoiceParty>().notNull(),
    buyer: jsonb("buyer").$type<InvoiceParty>().notNull(),
    /** The provider objects: in_… (subscriptions; Stripe top-ups with invoice_creation), cs_…, pi_…. */
    providerInvoiceId: text("provider_invoice_id"),
    paymentReference: text("payment_reference"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("invoices_fulfilment_key_key").on(t.fulfilmentKey),
    uniqueIndex("invoices_series_sequence_key").on(t.series, t.sequence),
    index("invoices_user_issued_idx").on(t.userId, t.issuedAt),
    // The console finds a customer by an invoice number quoted to support.
    index("invoices_number_idx").on(t.number),
    check("invoices_amounts", sql`${t.net} >= 0 and ${t.tax} >= 0 and ${t.total} = ${t.net} + ${t.tax}`),
    check("invoices_refunded_range", sql`${t.refunded} >= 0 and ${t.refunded} <= ${t.total}`),
  ],
);
export type InvoiceRow = typeof invoices.$inferSelect;

export interface InvoiceParty {
  name: string | null;
  email?: string | null;
  address?: string | null;
  country: string | null;
  vatId: string | null;
}

/** The last number given in each invoice series (one per year): incremented under its row lock. */
/**
 * A credit note: the document a refund issues against an invoice, numbered gap-free in its own
 * yearly series ("CN-2026-000001", through invoice_sequences), reversing net and VAT in the
 * invoice's proportions. One per refund fact (the cumulative refunded amount of a charge), so a
 * redelivered charge.refunded issues none.
 */
export const creditNotes = pgTable(
  "credit_notes",
  {
    id: uuid("id").primaryKey(),
    userId: userRef(),
    invoiceId: uuid("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    number: text("number").notNull(),
    series: text("series").notNull(),
    sequence: integer("sequence").notNull(),
    issuedAt: at("issued_at").notNull(),
    currency: text("currency").notNull(),
    /** Minor units refunded, as positive numbers: net + tax = total. */
    net: integer("net").notNull(),
    tax: integer("tax").notNull(),
    total: integer("total").notNull(),
    /** The refund fact, as the credit adjustment names it: "refund:ch_…:2500". */
    reference: text("reference").notNull(),
    /** With Stripe: the provider's credit note or refund (cn_…, re_…); null for the local checkout. */
    providerDocumentId: text("provider_document_id"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("credit_notes_reference_key").on(t.reference),
    uniqueIndex("credit_notes_series_sequence_key").on(t.series, t.sequence),
    index("credit_notes_invoice_idx").on(t.invoiceId),
    index("credit_notes_issued_idx").on(t.issuedAt),
    check("credit_notes_amounts", sql`${t.net} >= 0 and ${t.tax} >= 0 and ${t.total} = ${t.net} + ${t.tax}`),
  ],
);
export type CreditNoteRow = typeof creditNotes.$inferSelect;

export const invoiceSequences = pgTable("invoice_sequences", {
  series: text("series").primaryKey(),
  last: integer("last").notNull(),
});

/**
 * Stripe's invoice documents (number, hosted page, PDF), as invoice events bring them. Kept apart
 * from `invoices` because Stripe sends a one-time payment's invoice and its checkout event in no
 * set order: the history joins the two on the invoice id whichever came first.
 */
export const providerInvoiceDocuments = pgTable("provider_invoice_documents", {
  /** in_… */
  invoiceId: text("invoice_id").primaryKey(),
  number: text("number"),
  hostedInvoiceUrl: text("hosted_invoice_url"),
  invoicePdfUrl: text("invoice_pdf_url"),
  updatedAt: at("updated_at").notNull(),
});

/**
 * The local provider's stand-in for a Stripe Billing Portal session: a page where the user gives a
 * new card for their subscription (/_checkout/billing/{id}); its id is the capability, it lives an
 * hour (Stripe's portal sessions are short-lived too) and serves once.
 */
export const localCardSessions = pgTable("local_card_sessions", {
  /** bps_… */
  id: text("id").primaryKey(),
  userId: userRef(),
  /**
   * The member who opened it (null: a team's page from before migration 0020, which that migration
   * closed, or the member's account is gone). It takes a card only while they may still manage the
   * organisation's billing; losing that (a role change, a transfer, a removal, leaving) expires it
   * (decision 045).
   */
  openedBy: uuid("opened_by").references(() => users.id, { onDelete: "set null" }),
  returnUrl: text("return_url").notNull(),
  createdAt: at("created_at").notNull(),
  expiresAt: at("expires_at").notNull(),
  usedAt: at("used_at"),
});
export type LocalCardSessionRow = typeof localCardSessions.$inferSelect;

/**
 * Billing e-mails, written in the same transaction as the event that calls for them (a payment, a
 * failed renewal, a plan change...), under a key that names that event: a redelivered webhook or a
 * second event for the same thing finds the key taken and queues nothing, so each mail goes out
 * once. A sender picks up what is unsent after the commit (and retries what failed).
 */
export const billingMails = pgTable(
  "billing_mails",
  {
    id: uuid("id").primaryKey(),
    userId: userRef(),
    kind: text("kind").notNull(),
    dedupeKey: text("dedupe_key").notNull(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    createdAt: at("created_at").notNull(),
    sentAt: at("sent_at"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
  },
  (t) => [
    uniqueIndex("billing_mails_dedupe_key_key").on(t.dedupeKey),
    index("billing_mails_unsent_idx").on(t.createdAt).where(sql`${t.sentAt} is null`),
  ],
);

/**
 * Credits taken back from (or held in) a grant after its payment was refunded or disputed: the
 * ledger's record of each such change, once per provider fact (`reference`).
 */
export const creditAdjustments = pgTable(
  "credit_adjustments",
  {
    id: uuid("id").primaryKey(),
    userId: userRef(),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => creditGrants.id, { onDelete: "cascade" }),
    kind: text("kind", {
      // forfeit: written off when the organisation was deleted (DELETE /v1/orgs/{id}).
      enum: ["refund", "dispute_freeze", "dispute_won", "dispute_lost", "operator_take_back", "forfeit"],
    }).notNull(),
    /** Milli-credits taken back, frozen or released (never more than the grant had). */
    amount: millicredits("amount").notNull(),
    /** The provider fact: "refund:ch_…:2500" (cumulative amount refunded), "dispute:dp_…:created". */
    reference: text("reference").notNull(),
    createdAt: at("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("credit_adjustments_reference_key").on(t.reference),
    check("credit_adjustments_amount", sql`${t.amount} >= 0`),
  ],
);

/**
 * The mailboxes that have had the free initial credits: once per canonical mailbox
 * (auth/mailbox.ts), so `ann+1@…` and `ann+2@…` do not farm them. Kept as a digest, not the address,
 * and without a reference to the user: the row must outlive a deleted account (or deleting and
 * registering again would farm them too), and deletion erases the address.
 */
export const freeGrantMailboxes = pgTable("free_grant_mailboxes", {
  mailboxDigest: text("mailbox_digest").primaryKey(),
  grantedAt: at("granted_at").notNull(),
});
