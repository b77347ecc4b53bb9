// Tables of auto top-up (AUTO-TOP-UP.md): the organisation's saved card, its settings, the consents
// it gave (kept 10 years as evidence), each attempt to charge the card, the card-setup sessions it
// opened (both providers), and the local provider's own saved cards and one-off invoices (what
// Stripe would hold).
import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { ATTEMPT_STATUSES } from "../../domain/auto-top-up-limit.ts";
import { TAX_TREATMENTS } from "../../domain/vat.ts";
import { users } from "./accounts.ts";
import { organizations } from "./organizations.ts";

const at = (name: string) => timestamp(name, { withTimezone: true });
const orgRef = () =>
  uuid("org_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" });

/** Auto top-up's states as stored; `reason` says why it is paused or off. */
export const AUTO_TOP_UP_STATUSES = ["active", "paused", "off"] as const;

/**
 * The card an organisation saved for later charges (one; a newer card replaces the older). Saved
 * from the provider's event for its SetupIntent, never from the browser's redirect; an event of an
 * older SetupIntent than the saved card's changes nothing (`setup_at`).
 */
export const savedCards = pgTable("saved_cards", {
  orgId: uuid("org_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  provider: text("provider", { enum: ["local", "stripe"] }).notNull(),
  /** pm_… */
  paymentMethodId: text("payment_method_id").notNull(),
  /** seti_… that saved it. */
  setupIntentId: text("setup_intent_id").notNull(),
  /** When the provider made the SetupIntent: the newest card wins, whatever order events arrive in. */
  setupAt: at("setup_at").notNull(),
  brand: text("brand").notNull(),
  last4: text("last4").notNull(),
  expMonth: integer("exp_month").notNull(),
  expYear: integer("exp_year").notNull(),
  /** The member who saved it: their leaving the organisation pauses auto top-up. */
  savedBy: uuid("saved_by").references(() => users.id, { onDelete: "set null" }),
  savedAt: at("saved_at").notNull(),
  updatedAt: at("updated_at").notNull(),
});
export type SavedCardRow = typeof savedCards.$inferSelect;

/**
 * The organisation's auto top-up settings and state. `enabled` is what the customer chose; `status`
 * is what happens: active, paused (the settings and consent stand) or off (needs new consent).
 */
export const autoTopUpSettings = pgTable(
  "auto_top_up_settings",
  {
    orgId: uuid("org_id")
      .primaryKey()
      .references(() => organizations.id, { onDelete: "cascade" }),
    enabled: boolean("enabled").notNull().default(false),
    status: text("status", { enum: AUTO_TOP_UP_STATUSES }).notNull().default("off"),
    /** A PauseReason or OffReason key (domain/auto-top-up.ts); null while active or never set up. */
    reason: text("reason"),
    /** For a decline, the sentence the customer reads (declineSentence) and the provider's code. */
    reasonDetail: text("reason_detail"),
    declineCode: text("decline_code"),
    /** A `monthly_limit` pause ends here (the next Berlin month). */
    pausedUntil: at("paused_until"),
    /** Whole credits. */
    threshold: integer("threshold").notNull(),
    productId: text("product_id").notNull(),
    /** Gross, minor units of `currency`. */
    monthlyLimit: integer("monthly_limit").notNull(),
    currency: text("currency").notNull(),
    /** The card the consent covers (pm_…): a replaced card needs new consent. */
    cardPaymentMethodId: text("card_payment_method_id"),
    /** The consent the current values were turned on with. */
    consentId: uuid("consent_id"),
    updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    check("auto_top_up_threshold_positive", sql`${t.threshold} > 0`),
    check("auto_top_up_limit_positive", sql`${t.monthlyLimit} > 0`),
  ],
);
export type AutoTopUpSettingsRow = typeof autoTopUpSettings.$inferSelect;

/**
 * Each consent to auto top-up, as evidence in a chargeback: the rendered text and its version, the
 * values and card it covers, who gave it, when and from where. Kept 10 years, so it references
 * neither the organisation nor the member: deleting either keeps the record.
 */
export const autoTopUpConsents = pgTable(
  "auto_top_up_consents",
  {
    id: uuid("id").primaryKey(),
    orgId: uuid("org_id").notNull(),
    userId: uuid("user_id").notNull(),
    /** The member's e-mail address at the time (the account may be gone when it is needed). */
    userEmail: text("user_email").notNull(),
    textVersion: text("text_version").notNull(),
    text: text("text").notNull(),
    /** {threshold, product_id, monthly_limit: {amount, currency}, card: {payment_method_id, last4}}. */
    choice: jsonb("choice").$type<Record<string, unknown>>().notNull(),
    clientAddress: text("client_address"),
    userAgent: text("user_agent"),
    acceptedAt: at("accepted_at").notNull(),
  },
  (t) => [index("auto_top_up_consents_org_idx").on(t.orgId, t.acceptedAt)],
);
export type AutoTopUpConsentRow = typeof autoTopUpConsents.$inferSelect;

/**
 * One attempt to charge the saved card for one pack. At most one is open (processing, or waiting for
 * the customer's authentication) per organisation: a unique index, so spends crossing the threshold
 * at once, on any number of instances, queue one. It counts against the month it was made in
 * (`created_at`) unless it failed, or was cancelled with no invoice that could still be paid.
 */
export const autoTopUpAttempts = pgTable(
  "auto_top_up_attempts",
  {
    id: uuid("id").primaryKey(),
    orgId: orgRef(),
    status: text("status", { enum: ATTEMPT_STATUSES }).notNull(),
    provider: text("provider", { enum: ["local", "stripe"] }).notNull(),
    productId: text("product_id").notNull(),
    /** What the pack grants, whole credits. */
    credits: integer("credits").notNull(),
    currency: text("currency").notNull(),
    /** Minor units: the pack's net price and the gross charged at the VAT treatment of the day. */
    net: integer("net").notNull(),
    gross: integer("gross").notNull(),
    paymentMethodId: text("payment_method_id").notNull(),
    /** in_… at the provider, stored before it is paid (a restart reads it instead of charging again). */
    providerInvoiceId: text("provider_invoice_id"),
    /** When the payment was first sent: after 23 hours it is never sent again, only read. */
    sentAt: at("sent_at"),
    /**
     * When the provider was seen to have the invoice void or paid: no payment can land on it any
     * more. A cancelled attempt with an invoice counts against the limit until then: a payment sent
     * before the cancel may still land on it (decision 032, addendum).
     */
    invoiceClosedAt: at("invoice_closed_at"),
    /** Where the customer completes a payment their bank wants confirmed (7 days). */
    payUrl: text("pay_url"),
    declineCode: text("decline_code"),
    /** The sentence the customer reads about a failure or cancellation. */
    detail: text("detail"),
    createdAt: at("created_at").notNull(),
    settledAt: at("settled_at"),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("auto_top_up_attempts_one_open")
      .on(t.orgId)
      .where(sql`${t.status} in ('processing', 'authentication_required')`),
    index("auto_top_up_attempts_org_created_idx").on(t.orgId, t.createdAt),
    uniqueIndex("auto_top_up_attempts_invoice_key").on(t.providerInvoiceId),
    index("auto_top_up_attempts_open_idx")
      .on(t.updatedAt)
      .where(sql`${t.status} in ('processing', 'authentication_required')`),
    check("auto_top_up_attempts_amounts", sql`${t.net} > 0 and ${t.gross} >= ${t.net}`),
  ],
);
export type AutoTopUpAttemptRow = typeof autoTopUpAttempts.$inferSelect;

/**
 * The card-setup pages we opened (both providers): who opened each, so that removing the member
 * expires theirs (decision 028), and, for the local checkout, what its page shows.
 */
export const cardSetupSessions = pgTable(
  "card_setup_sessions",
  {
    /** cs_… */
    id: text("id").primaryKey(),
    provider: text("provider", { enum: ["local", "stripe"] }).notNull(),
    orgId: orgRef(),
    openedBy: uuid("opened_by").references(() => users.id, { onDelete: "set null" }),
    customerId: text("customer_id").notNull(),
    currency: text("currency").notNull(),
    status: text("status", { enum: ["open", "complete", "expired"] }).notNull(),
    url: text("url").notNull(),
    successUrl: text("success_url").notNull(),
    cancelUrl: text("cancel_url").notNull(),
    /** The custom text shown on the page (the consent to later charges). */
    consentText: text("consent_text").notNull(),
    /** seti_… once completed. */
    setupIntentId: text("setup_intent_id"),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    completedAt: at("completed_at"),
  },
  (t) => [index("card_setup_sessions_org_idx").on(t.orgId)],
);
export type CardSetupSessionRow = typeof cardSetupSessions.$inferSelect;

/** The local provider's saved cards (Stripe's PaymentMethods): which test card, attached to whom. */
export const localPaymentMethods = pgTable(
  "local_payment_methods",
  {
    /** pm_… */
    id: text("id").primaryKey(),
    customerId: text("customer_id").notNull(),
    orgId: orgRef(),
    /** The test card's number (only test cards are accepted: cards.ts). */
    cardNumber: text("card_number").notNull(),
    brand: text("brand").notNull(),
    last4: text("last4").notNull(),
    expMonth: integer("exp_month").notNull(),
    expYear: integer("exp_year").notNull(),
    setupIntentId: text("setup_intent_id").notNull(),
    createdAt: at("created_at").notNull(),
    detachedAt: at("detached_at"),
  },
  (t) => [index("local_payment_methods_customer_idx").on(t.customerId)],
);
export type LocalPaymentMethodRow = typeof localPaymentMethods.$inferSelect;

/**
 * The local provider's one-off invoices (Stripe's Invoice with one item), charged off-session to a
 * saved card. `open` until paid, or voided; one that needs authentication is paid on its page
 * (/_checkout/invoice/{id}).
 */
export const localInvoices = pgTable(
  "local_invoices",
  {
    /** in_… */
    id: text("id").primaryKey(),
    customerId: text("customer_id").notNull(),
    orgId: orgRef(),
    /** metadata.auto_top_up_attempt_id */
    attemptId: uuid("attempt_id").notNull(),
    paymentMethodId: text("payment_method_id").notNull(),
    productId: text("product_id").notNull(),
    description: text("description").notNull(),
    currency: text("currency").notNull(),
    /** Minor units. */
    net: integer("net").notNull(),
    tax: integer("tax").notNull(),
    total: integer("total").notNull(),
    taxTreatment: text("tax_treatment", { enum: TAX_TREATMENTS }).notNull(),
    taxRateBasisPoints: integer("tax_rate_basis_points").notNull(),
    buyerName: text("buyer_name"),
    buyerEmail: text("buyer_email"),
    buyerCountry: text("buyer_country"),
    buyerVatId: text("buyer_vat_id"),
    status: text("status", { enum: ["draft", "open", "paid", "void"] }).notNull(),
    /** pi_… of its payment. */
    paymentIntentId: text("payment_intent_id").notNull(),
    /** The last decline: Stripe's last_payment_error code and decline code. */
    lastErrorCode: text("last_error_code"),
    lastDeclineCode: text("last_decline_code"),
    createdAt: at("created_at").notNull(),
    paidAt: at("paid_at"),
    voidedAt: at("voided_at"),
  },
  (t) => [uniqueIndex("local_invoices_attempt_key").on(t.attemptId)],
);
export type LocalInvoiceRow = typeof localInvoices.$inferSelect;
