// Zod schemas of auto top-up's calls (AUTO-TOP-UP.md): the saved card, the settings and their
// consent, and what GET answers about the state and the attempts. The portal checks the server's
// answers with them; the server validates requests and documents them in OpenAPI from the same
// objects. `zod/mini`, browser-safe, like billing.ts.
import * as z from "zod/mini";
import { ADMIN_TEXT, REASON_MAX, REASON_MIN } from "./admin-rules.ts";
import { notPrintable, printable } from "./free-text.ts";

const moneySchema = z.object({
  /** Minor units (cents). */
  amount: z.number().check(z.int()),
  currency: z.string().check(z.minLength(3), z.maxLength(3)),
});

/** The longest consent text a PUT may echo: the rendered text is about 400 characters. */
const CONSENT_TEXT_MAX = 2000;

/** `PUT /v1/billing/auto-top-up`'s consent: the customer accepted the text shown for these values. */
export const autoTopUpConsentSchema = z.object({
  text_version: z.string().check(z.minLength(1), z.maxLength(100)),
  /**
   * The exact text the customer accepted, as `POST /v1/billing/auto-top-up/consent-text` answered
   * it. When given, the server refuses it (422 on `consent`) unless it is the text it renders now
   * for these values, card and VAT: a consent is never stored for a text nobody saw.
   */
  text: z.optional(z.string().check(z.maxLength(CONSENT_TEXT_MAX))),
  accepted: z.literal(true),
});

/** `PUT /v1/billing/auto-top-up`. */
export const autoTopUpRequestSchema = z.object({
  enabled: z.boolean(),
  /** Whole credits. */
  threshold: z.number().check(z.int()),
  product_id: z.string().check(z.trim(), z.minLength(1, "Field required"), z.maxLength(255)),
  monthly_limit: moneySchema,
  consent: z.optional(autoTopUpConsentSchema),
});
export type AutoTopUpRequest = z.infer<typeof autoTopUpRequestSchema>;

export const savedCardSchema = z.object({
  brand: z.string(),
  last4: z.string(),
  exp_month: z.number(),
  exp_year: z.number(),
});
export type SavedCard = z.infer<typeof savedCardSchema>;

export const AUTO_TOP_UP_STATES = ["active", "paused", "off"] as const;
/**
 * Why auto top-up is paused: `paused_reason`'s keys while paused (the server words each in
 * PAUSE_REASONS). The field stays a string: an off reason shares it, and a newer server may send
 * a key this portal does not know yet.
 */
export type AutoTopUpPauseReason =
  | "authentication_required"
  | "declined"
  | "daily_limit"
  | "monthly_limit"
  | "limit_below_pack"
  | "member_left"
  | "consent_changed"
  | "card_replaced";
export const ATTEMPT_STATES = [
  "processing",
  "authentication_required",
  "paid",
  "failed",
  "cancelled",
] as const;

export const autoTopUpAttemptSchema = z.object({
  id: z.string(),
  at: z.string(),
  status: z.enum(ATTEMPT_STATES),
  credits: z.number(),
  amount: moneySchema,
  /** The invoice's number once paid (ours, or Stripe's). */
  invoice_number: z.nullable(z.string()),
  /** Our invoice's id in the billing history (GET /v1/billing/invoices/{id}) once it is numbered. */
  invoice_id: z.nullable(z.string()),
  /** Stripe's hosted page of its invoice. */
  invoice_url: z.nullable(z.string()),
  /** What the customer reads about a failure, or the pending authentication. */
  detail: z.nullable(z.string()),
  /** Where a payment the bank wants confirmed is completed (authentication_required only). */
  pay_url: z.nullable(z.string()),
});
export type AutoTopUpAttempt = z.infer<typeof autoTopUpAttemptSchema>;

/** `GET /v1/billing/auto-top-up` (and the answer of PUT). */
export const autoTopUpSchema = z.object({
  enabled: z.boolean(),
  /** Null until first saved. */
  threshold: z.nullable(z.number()),
  product_id: z.nullable(z.string()),
  monthly_limit: z.nullable(moneySchema),
  /**
   * What this Berlin month's paid attempts charged (refunded ones too). The limit also keeps room
   * for money not taken yet (a payment on its way or awaiting authentication, a cancelled attempt's
   * invoice not yet seen void): never shown as charged.
   */
  charged_this_month: moneySchema,
  /**
   * What the limit keeps this Berlin month for money not taken yet, in the same currency: a
   * payment on its way or awaiting authentication, a cancelled attempt's invoice not yet seen void.
   * With `charged_this_month`, what counts against the limit: a pack that would take the sum past
   * it pauses auto top-up (`monthly_limit`).
   */
  reserved_this_month: moneySchema,
  /** When this month's limit resets (the next Berlin month), ISO 8601. */
  limit_resets_at: z.string(),
  card: z.nullable(savedCardSchema),
  status: z.enum(AUTO_TOP_UP_STATES),
  /** Why paused or off (a key: `declined`, `monthly_limit`, `card_removed`...), null while active. */
  paused_reason: z.nullable(z.string()),
  /** The sentence Billing shows for the reason. */
  reason_text: z.nullable(z.string()),
  /** When a `monthly_limit` (the next Berlin month) or `daily_limit` (Berlin midnight) pause ends. */
  paused_until: z.nullable(z.string()),
  consent_text_version: z.string(),
  last_attempt: z.nullable(
    z.object({
      at: z.string(),
      status: z.enum(ATTEMPT_STATES),
      credits: z.number(),
      invoice_number: z.nullable(z.string()),
      detail: z.nullable(z.string()),
    }),
  ),
  /** The latest attempts, newest first (at most 10). */
  attempts: z.array(autoTopUpAttemptSchema),
});
export type AutoTopUp = z.infer<typeof autoTopUpSchema>;

/** `POST /v1/billing/auto-top-up/consent-text`: the text to accept for these values, before PUT. */
export const consentTextRequestSchema = z.object({
  threshold: z.number().check(z.int()),
  product_id: z.string().check(z.trim(), z.minLength(1, "Field required"), z.maxLength(255)),
  monthly_limit: moneySchema,
});
export const consentTextSchema = z.object({ text: z.string(), text_version: z.string() });

/** What `?card=` on /profile/billing says after the provider's card page. */
export const CARD_RETURN_TEXT = {
  saved: "Your card is being saved. It appears here in a moment.",
  cancelled: "No card was saved.",
} as const;

/**
 * The console's `POST /v1/admin/orgs/{id}/auto-top-up/off {reason}`: the reason as every console
 * action's (admin-rules.ts), kept in the activity log.
 */
export const adminAutoTopUpOffSchema = z.object({
  reason: z
    .string({ error: ADMIN_TEXT.reasonRequired })
    .check(
      z.trim(),
      z.minLength(1, ADMIN_TEXT.reasonRequired),
      z.minLength(REASON_MIN, ADMIN_TEXT.reasonTooShort),
      z.maxLength(REASON_MAX, ADMIN_TEXT.reasonTooLong),
      printable(notPrintable("The reason"), true),
    ),
});

/** The answers of auto top-up's calls that are not a field's (the 409s, 404s and 422 on `consent`). */
export const AUTO_TOP_UP_TEXT = {
  /** 409: turning it on, or asking for the consent text, without a saved card. */
  noCard: "Save a card first: auto top-up charges the saved card.",
  /** 409: turning it on without a paid plan (a subscription active or past due). */
  noPlan: "Auto top-up needs a paid plan: top-ups are not available on the Free plan.",
  /**
   * 409: turning it on, or resuming it, while the organisation is on a dispute hold: a charge would
   * turn it off again at once (AUTO-TOP-UP.md, "Off"), after the consent was stored.
   */
  disputeHold: "Auto top-up stays off while your account is on hold for a disputed payment. Contact support.",
  /** 409: resuming with the card of a member who left (ORGANISATIONS.md); a newly saved card resumes it. */
  cardOfMemberWhoLeft: "The member who saved this card left. Save a card to turn auto top-up on again.",
  /** 422 on `consent`: turning it on, or changing it while on, without accepting the text. */
  consentRequired: "Accept the text for these values to turn auto top-up on or change it.",
  /** 422 on `consent`: the text accepted is not the one in force (the page showed an older one). */
  consentOutdated: "The text has changed since it was shown: read it again and accept it.",
  /**
   * 422 on `consent`: the text accepted is not the one rendered now for these values (another card
   * was saved, or the VAT on file changed, since it was shown).
   */
  consentChanged: "The terms changed since you agreed to them. Read them again and agree to continue.",
  /** 409: a member with this many card pages open for the organisation. */
  tooManyCardSetups:
    "You have 10 card pages open for this organisation: finish one, or try again when they expire.",
  /** An attempt awaiting the bank's confirmation, cancelled by turning auto top-up off. */
  cancelledByTurningOff: "Cancelled: auto top-up was turned off, so this payment is no longer needed.",
  /** The same, by turning it on again or resuming it (a new payment follows when the balance is low). */
  cancelledByTurningOn: "Cancelled: auto top-up was turned on again, so this payment is no longer needed.",
  /** 404: removing the card when none is saved. */
  noSavedCard: "No card is saved.",
  /** 409: the console turning it off when it is off. */
  alreadyOff: "Auto top-up is already off.",
  /** The console's answer once it is off. */
  turnedOff: "Auto top-up turned off",
} as const;

/** The custom text of the card-setup page: saving a card allows the later charges. */
export const cardSetupConsentText = (seller: string) =>
  `By saving this card you allow ${seller} to charge it for the automatic credit purchases you turn on under Billing.`;
