// Auto top-up's plain rules (AUTO-TOP-UP.md): settings, consent, trigger, failures (the monthly
// limit's are auto-top-up-limit.ts's).
//
// Nothing here does I/O or reads the clock: the server calls these under the organisation's lock
// with the rows it has read, so every rule is decided in one place and tested as a table.
//
// UNITS: money is integer minor units (cents) of the pack's currency, gross unless named `net`;
// the settings' `threshold` is whole credits as the API shows it, the trigger's balance and
// threshold are milli-credits as the ledger stores them (ledger.ts).
import type { AutoTopUpPauseReason } from "../../contract/auto-top-up.ts";
import type { Currency } from "../../contract/catalogue.ts";
import { formatMoney } from "../../contract/money.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { BERLIN } from "./berlin-time.ts";
import type { Millicredits } from "./ledger.ts";
import { formatRate, type TaxDecision, taxed } from "./vat.ts";

// ---------------------------------------------------------------------------------------------
// Settings (PUT /v1/billing/auto-top-up)

/** A pack auto top-up can buy: a catalogue top-up under its product id. */
export interface AutoTopUpPack {
  productId: string;
  /** Credits the pack grants (TopUpInfo.tokenAmount). */
  credits: number;
  /** Net price in minor units. */
  unitAmount: number;
  currency: Currency;
}

/** The organisation's VAT today: what decideVat answers for its billing details. */
export type VatToday = Pick<TaxDecision, "treatment" | "rateBasisPoints">;

export interface Money {
  /** Minor units. */
  amount: number;
  currency: string;
}

/** The PUT body's values, with the JSON field names (the zod schema has checked their types). */
export interface AutoTopUpSettingsInput {
  enabled: boolean;
  threshold: number;
  product_id: string;
  monthly_limit: Money;
}

export interface SettingsContext {
  packs: readonly AutoTopUpPack[];
  vat: VatToday;
}

export type SettingsField = "product_id" | "threshold" | "monthly_limit.amount" | "monthly_limit.currency";

/** One out-of-range value: the route answers 422 naming each field. */
export interface SettingsProblem {
  field: SettingsField;
  message: string;
}

/** A lower threshold would let a program run dry before the pack arrives. */
export const MIN_THRESHOLD_CREDITS = 10;
/** €10,000 a month: the most one organisation's card is charged without a person in the loop. */
export const MAX_MONTHLY_LIMIT = 1_000_000;

export const SETTINGS_MESSAGES = {
  unknownPack: "Choose one of the credit packs.",
  thresholdNotWhole: "The threshold must be a whole number of credits.",
  thresholdTooLow: `The threshold must be at least ${MIN_THRESHOLD_CREDITS} credits.`,
  thresholdTooHigh: (packCredits: number) =>
    `The threshold must be below the pack's ${credits(packCredits)} credits, so that one pack lifts the balance above it.`,
  limitNotWhole: "The monthly limit must be a whole number of cents.",
  limitNotPositive: "The monthly limit must be more than zero.",
  limitCurrency: (currency: string) =>
    `The monthly limit must be in ${currency.toUpperCase()}, the currency of the pack.`,
  limitTooLow: (gross: string) =>
    `The monthly limit must be at least ${gross}, the price of one pack including VAT.`,
  limitTooHigh: (most: string) => `The monthly limit can be at most ${most} including VAT.`,
} as const;

// The locale is fixed so that a server with another default locale writes the same text. "" (the
// default) is en-US wherever the tests run, so no test can tell the two apart:
// Stryker disable next-line StringLiteral: equivalent where the default locale is en-US.
const CREDITS = new Intl.NumberFormat("en-US");
/** "100", "1,000": how credits read in the consent text and messages. */
const credits = (n: number) => CREDITS.format(n);

/** One pack's price including VAT at the organisation's treatment today (0 % under reverse charge). */
export const packGross = (pack: AutoTopUpPack, vat: VatToday): number =>
  taxed(pack.unitAmount, vat.rateBasisPoints).total;

/**
 * Every out-of-range value of a PUT, in field order; empty when all are in range. The limit's lower
 * bound (one pack's gross) is not a refusal when turning auto top-up off: a change of billing
 * details can put a saved limit below it (`limit_below_pack`), and turning off must never be refused.
 */
export function settingsProblems(input: AutoTopUpSettingsInput, context: SettingsContext): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const pack = context.packs.find((p) => p.productId === input.product_id);
  if (pack === undefined) problems.push({ field: "product_id", message: SETTINGS_MESSAGES.unknownPack });

  const threshold = input.threshold;
  if (!Number.isInteger(threshold))
    problems.push({ field: "threshold", message: SETTINGS_MESSAGES.thresholdNotWhole });
  else if (threshold < MIN_THRESHOLD_CREDITS)
    problems.push({ field: "threshold", message: SETTINGS_MESSAGES.thresholdTooLow });
  else if (pack !== undefined && threshold >= pack.credits)
    problems.push({ field: "threshold", message: SETTINGS_MESSAGES.thresholdTooHigh(pack.credits) });

  const limit = input.monthly_limit;
  const wholeAmount = Number.isInteger(limit.amount);
  if (!wholeAmount)
    problems.push({ field: "monthly_limit.amount", message: SETTINGS_MESSAGES.limitNotWhole });
  // Even when turning off: a limit of nothing is no limit, and the table refuses it.
  else if (limit.amount <= 0)
    problems.push({ field: "monthly_limit.amount", message: SETTINGS_MESSAGES.limitNotPositive });
  // Without a known pack there is no currency or price to compare the limit with.
  if (pack === undefined) return problems;
  if (limit.currency.toLowerCase() !== pack.currency) {
    problems.push({
      field: "monthly_limit.currency",
      message: SETTINGS_MESSAGES.limitCurrency(pack.currency),
    });
    return problems;
  }
  if (!wholeAmount || limit.amount <= 0) return problems;
  const gross = packGross(pack, context.vat);
  if (input.enabled && limit.amount < gross)
    problems.push({
      field: "monthly_limit.amount",
      message: SETTINGS_MESSAGES.limitTooLow(formatMoney(gross, pack.currency)),
    });
  else if (limit.amount > MAX_MONTHLY_LIMIT)
    problems.push({
      field: "monthly_limit.amount",
      message: SETTINGS_MESSAGES.limitTooHigh(formatMoney(MAX_MONTHLY_LIMIT, pack.currency)),
    });
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Consent

/** What a customer chose, as stored: consent covers exactly these values. */
export interface AutoTopUpChoice {
  enabled: boolean;
  /** The saved card's provider id (a `pm_...`); a replaced card is a new id. */
  cardId: string | null;
  productId: string;
  /** Whole credits. */
  threshold: number;
  monthlyLimit: Money;
}

const sameMoney = (a: Money, b: Money) => a.amount === b.amount && a.currency === b.currency;

/** The consent text stored with the consent in force, and the one rendered now for the next values. */
interface ConsentTexts {
  /** Null when no consent is on file for the stored values. */
  consented: string | null;
  /** Null when there is nothing to render it for (no card). */
  now: string | null;
}

/**
 * Whether a PUT needs fresh consent: turning auto top-up on (from off or from never set up), or,
 * while on, any change of card, pack, threshold or limit. Turning it off, or saving values while it
 * stays off, needs none: nothing is charged, and turning it on later asks then. Keeping it on or
 * resuming it needs consent too when the text for the values differs from the one consented to: the
 * VAT or the price changed since, or the card was replaced (a consent covers its text, not only the
 * values).
 */
export function consentNeeded(
  previous: AutoTopUpChoice | null,
  next: AutoTopUpChoice,
  texts: ConsentTexts,
): boolean {
  if (!next.enabled) return false;
  if (previous === null || !previous.enabled) return true;
  if (texts.consented !== texts.now) return true;
  return (
    previous.cardId !== next.cardId ||
    previous.productId !== next.productId ||
    previous.threshold !== next.threshold ||
    !sameMoney(previous.monthlyLimit, next.monthlyLimit)
  );
}

/**
 * Whether a PUT raises the monthly limit, which needs recent authentication. A first setting counts
 * as raising it from nothing; a change of currency cannot be compared, so it counts too.
 */
export function raisesLimit(previous: AutoTopUpChoice | null, next: AutoTopUpChoice): boolean {
  if (previous === null) return true;
  if (previous.monthlyLimit.currency !== next.monthlyLimit.currency) return true;
  return next.monthlyLimit.amount > previous.monthlyLimit.amount;
}

/**
 * The version of the consent text below, stored with each consent and shown by GET. Change it with
 * any change of the wording: a consent is evidence for the exact text the customer accepted.
 */
export const CONSENT_TEXT_VERSION = "2026-11-auto-top-up-1";

export interface ConsentValues {
  cardLast4: string;
  pack: AutoTopUpPack;
  vat: VatToday;
  /** An organisation without a VAT ID is a consumer: it waives the right of withdrawal. */
  hasVatId: boolean;
  /** Whole credits. */
  threshold: number;
  monthlyLimit: Money;
}

/** The consumer's waiver (§ 356 (5) BGB): the credits are supplied at once. */
export const WITHDRAWAL_WAIVER =
  "I ask for the credits to be supplied at once and know that I lose my right of withdrawal when they are.";

/** What a consent agreed to pay per pack, or what one pack costs today. */
export interface PackTerms {
  /** Credits one pack grants. */
  credits: number;
  /** Gross, minor units. */
  gross: number;
  currency: string;
  /** The consent carries the withdrawal waiver; today: a consumer's consent must. */
  waiver: boolean;
}

/**
 * Whether a consent still covers a charge today: the same credits for the same gross in the same
 * currency, and the withdrawal waiver given when one is needed now (a VAT ID withdrawn makes the buyer a consumer).
 * The card's last four digits and the wording are not terms: the card updater renews a card in
 * place, and a wording change has its own version.
 */
export function consentCoversCharge(consented: PackTerms, today: PackTerms): boolean {
  return (
    consented.credits === today.credits &&
    consented.gross === today.gross &&
    consented.currency === today.currency &&
    (consented.waiver || !today.waiver)
  );
}

/** "€50.00 plus VAT (€59.50 at today's 19 %)", "€50.00 (reverse charge)". */
function priceWords(pack: AutoTopUpPack, vat: VatToday): string {
  const net = formatMoney(pack.unitAmount, pack.currency);
  if (vat.treatment === "reverse_charge") return `${net} (reverse charge)`;
  // The contract words only the two cases above; a buyer outside the EU pays no VAT at all, and
  // "plus VAT (€50.00 at today's 0 %)" would tell them otherwise.
  if (vat.treatment === "outside_eu") return `${net} (no VAT: outside the EU)`;
  const gross = formatMoney(packGross(pack, vat), pack.currency);
  return `${net} plus VAT (${gross} at today's ${formatRate(vat.rateBasisPoints)})`;
}

/** The consent text for exactly these values (AUTO-TOP-UP.md, "Consent"), stored with the consent. */
export function consentText(values: ConsentValues): string {
  const { cardLast4, pack, vat, threshold, monthlyLimit } = values;
  const text =
    `We will charge your card ending ${cardLast4} ${priceWords(pack, vat)} for ${credits(pack.credits)} credits ` +
    `whenever this organisation's balance falls below ${credits(threshold)} credits, at most ` +
    `${formatMoney(monthlyLimit.amount, monthlyLimit.currency)} including VAT per calendar month (${BERLIN}). ` +
    "You can turn this off at any time under Billing.";
  return values.hasVatId ? text : `${text} ${WITHDRAWAL_WAIVER}`;
}

// ---------------------------------------------------------------------------------------------
// The trigger

export type AutoTopUpStatus = "active" | "paused" | "off";

/** What moved the balance (or the setting) just now. */
export const BALANCE_CAUSES = [
  "consume_charged",
  "consume_refused_insufficient",
  "turned_on",
  "resumed",
  "auto_top_up_granted",
  "staff_take_back",
  "refund",
  "dispute_hold",
  "expiry",
] as const;
export type BalanceCause = (typeof BALANCE_CAUSES)[number];

/**
 * The causes that may queue a top-up. Staff take-backs, refunds, dispute holds and expiry never do:
 * the customer did not spend, and buying back credits someone took away on purpose would undo it.
 */
export const QUEUEING_CAUSES: readonly BalanceCause[] = [
  "consume_charged",
  "consume_refused_insufficient",
  "turned_on",
  "resumed",
  "auto_top_up_granted",
];

/** Auto top-ups per organisation in a Berlin day; the next one pauses with `daily_limit`. */
export const DAILY_ATTEMPT_LIMIT = 10;

export interface TriggerState {
  status: AutoTopUpStatus;
  /** An attempt not yet paid, failed or cancelled (one awaiting authentication included). */
  openAttempt: boolean;
  balance: Millicredits;
  threshold: Millicredits;
  cause: BalanceCause;
  /** Attempts made today (Berlin day), whatever became of them. */
  attemptsToday: number;
}

export type SkipReason = "cause_never_queues" | "not_active" | "attempt_open" | "not_below_threshold";

export type QueueDecision =
  | { action: "queue" }
  | { action: "skip"; reason: SkipReason }
  | { action: "pause"; reason: "daily_limit" };

/** The trigger rule, asked under the organisation's lock after every balance change. */
export function shouldQueue(state: TriggerState): QueueDecision {
  if (!QUEUEING_CAUSES.includes(state.cause)) return { action: "skip", reason: "cause_never_queues" };
  if (state.status !== "active") return { action: "skip", reason: "not_active" };
  // The unique constraint on open attempts is the guarantee; this spares the insert that would fail.
  if (state.openAttempt) return { action: "skip", reason: "attempt_open" };
  if (state.balance >= state.threshold) return { action: "skip", reason: "not_below_threshold" };
  if (state.attemptsToday >= DAILY_ATTEMPT_LIMIT) return { action: "pause", reason: "daily_limit" };
  return { action: "queue" };
}

// ---------------------------------------------------------------------------------------------
// A charge's answer

/** The provider's answer to an off-session charge (an invoice paid with `off_session=true`). */
export type ChargeResult =
  | { status: "paid" }
  | { status: "requires_action" }
  /** `code`: the decline code (Stripe's `decline_code`, else the error's `code`), or null. */
  | { status: "declined"; code: string | null };

export type FailureOutcome =
  | { next: "grant" }
  | { next: "paused"; reason: "authentication_required"; attempt: "open"; sentence: string }
  | { next: "paused"; reason: "declined"; attempt: "failed"; code: string | null; sentence: string };

/** What to say and do after a charge; every answer, known or not, leads to a state and a sentence. */
export function failureOutcome(result: ChargeResult): FailureOutcome {
  if (result.status === "paid") return { next: "grant" };
  // A decline for want of authentication is completed the same way: the invoice's payment page.
  if (result.status === "requires_action" || result.code === "authentication_required")
    return {
      next: "paused",
      reason: "authentication_required",
      attempt: "open",
      sentence: PAUSE_REASONS.authentication_required.sentence,
    };
  return {
    next: "paused",
    reason: "declined",
    attempt: "failed",
    code: result.code,
    sentence: declineSentence(result.code),
  };
}

const SAY = {
  generic:
    "Your card was declined. Your card issuer can tell you why, or you can save another card under Billing.",
  insufficientFunds:
    "Your card has insufficient funds for this payment. Add funds, or save another card under Billing.",
  overLimit:
    "Your card has reached its spending limit. Ask your card issuer to raise it, or save another card under Billing.",
  expired: "Your card has expired. Save a current card under Billing.",
  cvc: "Your card's security code was not accepted. Save the card again under Billing, with its correct code.",
  number: "Your card number was not accepted. Save the card again, or another card, under Billing.",
  postcode: "Your card's postcode did not match your bank's records. Save the card again under Billing.",
  pin: "Your card asks for a PIN, which a payment online cannot give. Save another card under Billing.",
  temporary:
    "Your bank could not process this payment just now. Resume auto top-up under Billing to try again, or save another card.",
  notSupported:
    "Your card cannot be used for this kind of payment. Ask your card issuer, or save another card under Billing.",
  currency: "Your card cannot pay in this currency. Save another card under Billing.",
  authentication: "Your bank asks you to confirm this payment. Use the payment link we sent to complete it.",
  stopped:
    "Your bank stopped payments to us at your request. Save another card under Billing, or ask your bank to allow them.",
  duplicate:
    "Your bank took this for a repeat of a recent payment. Check your statement before you resume auto top-up under Billing.",
  amount:
    "Your bank does not allow a payment of this amount. Ask your card issuer, or save another card under Billing.",
  newDetails: "Your card's details have changed. Save the new card under Billing.",
  tooManyDeclines:
    "This card was declined too often recently. Wait a day before you resume auto top-up, or save another card under Billing.",
} as const;

/**
 * A sentence for each Stripe decline code (https://docs.stripe.com/declines/codes) and the error
 * codes a card charge answers with. Lost, stolen, fraudulent and blocked cards read as a generic
 * decline, as Stripe advises: saying a card was reported stolen tells whoever holds it. Staff see
 * the code itself on the attempt.
 */
export const DECLINE_SENTENCES: Readonly<Record<string, string>> = {
  approve_with_id: SAY.temporary,
  authentication_required: SAY.authentication,
  call_issuer: SAY.generic,
  card_decline_rate_limit_exceeded: SAY.tooManyDeclines,
  card_declined: SAY.generic,
  card_not_supported: SAY.notSupported,
  card_velocity_exceeded: SAY.overLimit,
  currency_not_supported: SAY.currency,
  do_not_honor: SAY.generic,
  do_not_try_again: SAY.generic,
  duplicate_transaction: SAY.duplicate,
  expired_card: SAY.expired,
  fraudulent: SAY.generic,
  generic_decline: SAY.generic,
  incorrect_cvc: SAY.cvc,
  incorrect_number: SAY.number,
  incorrect_pin: SAY.pin,
  incorrect_zip: SAY.postcode,
  insufficient_funds: SAY.insufficientFunds,
  invalid_account: SAY.notSupported,
  invalid_amount: SAY.amount,
  invalid_cvc: SAY.cvc,
  invalid_expiry_month: SAY.expired,
  invalid_expiry_year: SAY.expired,
  invalid_number: SAY.number,
  invalid_pin: SAY.pin,
  issuer_not_available: SAY.temporary,
  lost_card: SAY.generic,
  merchant_blacklist: SAY.generic,
  new_account_information_available: SAY.newDetails,
  no_action_taken: SAY.generic,
  not_permitted: SAY.notSupported,
  offline_pin_required: SAY.pin,
  online_or_offline_pin_required: SAY.pin,
  pickup_card: SAY.generic,
  pin_try_exceeded: SAY.pin,
  processing_error: SAY.temporary,
  reenter_transaction: SAY.temporary,
  restricted_card: SAY.generic,
  revocation_of_all_authorizations: SAY.stopped,
  revocation_of_authorization: SAY.stopped,
  security_violation: SAY.generic,
  service_not_allowed: SAY.notSupported,
  stolen_card: SAY.generic,
  stop_payment_order: SAY.stopped,
  testmode_decline: SAY.generic,
  transaction_not_allowed: SAY.notSupported,
  try_again_later: SAY.temporary,
  withdrawal_count_limit_exceeded: SAY.overLimit,
};

// A Map, not the record's own lookup: a code such as "constructor" must not reach Object.prototype.
const DECLINE_SENTENCE_OF: ReadonlyMap<string | null, string> = new Map(Object.entries(DECLINE_SENTENCES));

/** The sentence for a decline code; an unknown or missing code reads as a generic decline. */
export function declineSentence(code: string | null): string {
  return DECLINE_SENTENCE_OF.get(code) ?? SAY.generic;
}

// ---------------------------------------------------------------------------------------------
// Why auto top-up is paused or off: the sentence Billing shows and the mail says

export interface ReasonInfo {
  status: "paused" | "off";
  sentence: string;
}

/** Paused: the settings and consent stand; it resumes (or the customer resumes it) without new consent. */
export const PAUSE_REASONS = {
  authentication_required: {
    status: "paused",
    sentence:
      "Your bank asks you to confirm the last payment. Use the payment link we sent; auto top-up resumes once it is paid.",
  },
  /** Billing adds the decline's own sentence (declineSentence). */
  declined: { status: "paused", sentence: "The last automatic payment was declined." },
  /**
   * Every top-up made today counts (shouldQueue's attemptsToday), paid, declined or cancelled: the
   * words say top-ups counted, not packs bought.
   */
  daily_limit: {
    status: "paused",
    sentence: `Auto top-up reached today's limit of ${DAILY_ATTEMPT_LIMIT} top-ups, declined and cancelled ones included. It resumes by itself at midnight (Berlin time).`,
  },
  monthly_limit: {
    status: "paused",
    sentence:
      "The next pack would pass this month's limit. Auto top-up resumes next month, or raise the limit under Billing.",
  },
  limit_below_pack: {
    status: "paused",
    sentence:
      "One pack now costs more than the monthly limit including VAT. Raise the limit or choose another pack under Billing.",
  },
  member_left: { status: "paused", sentence: ORG_DETAIL.memberLeftCard },
  /**
   * Consent covers its text: when the billing details change the pack's price or VAT wording (a
   * new country, a VAT ID confirmed or withdrawn), nothing is charged until a member agrees anew.
   */
  consent_changed: {
    status: "paused",
    sentence:
      "Your billing details changed what one pack costs. Read the new terms and agree to them under Billing to resume auto top-up.",
  },
  /** Consent covers one card: a newer card is charged only once the customer agrees for it. */
  card_replaced: {
    status: "paused",
    sentence: "A new card was saved. Agree to the terms for it under Billing to resume auto top-up.",
  },
} as const satisfies Record<AutoTopUpPauseReason, ReasonInfo>;
export type PauseReason = keyof typeof PAUSE_REASONS;

/** Off: turning it on again needs new consent (consentNeeded). */
export const OFF_REASONS = {
  plan_ended: {
    status: "off",
    sentence: "Auto top-up is off because this organisation's paid plan ended.",
  },
  card_removed: { status: "off", sentence: "Auto top-up is off because the saved card was removed." },
  organisation_disabled: {
    status: "off",
    sentence: "Auto top-up is off because this organisation was disabled.",
  },
  dispute_hold: {
    status: "off",
    // A dispute opened on one of its own payments, or a lost one that put the organisation on hold
    // (dispute-hold.ts): the sentence is true of both.
    sentence: "Auto top-up is off because a payment of this organisation was disputed.",
  },
  /** Our staff turned it off from the console (their reason is in the activity log). */
  staff: {
    status: "off",
    sentence:
      "Auto top-up was turned off by our support team. Contact support, or turn it on again under Billing.",
  },
} as const satisfies Record<string, ReasonInfo>;
export type OffReason = keyof typeof OFF_REASONS;

/** Why auto top-up stopped, as Billing and the mails say it; `member_left` pauses instead. */
export function offReason(reason: OffReason | "member_left"): ReasonInfo {
  return reason === "member_left" ? PAUSE_REASONS.member_left : OFF_REASONS[reason];
}
