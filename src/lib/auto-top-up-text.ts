// The words of auto top-up (AUTO-TOP-UP.md "Pages"): /profile/billing's section and the console's
// panel. Only their lazily loaded chunks import this module, so no page's first load carries it.
// The card page's return words are the contract's (CARD_RETURN_TEXT).
import type { AutoTopUp, AutoTopUpAttempt, AutoTopUpPauseReason } from "../../contract/auto-top-up.ts";
import { COMPLETE_PAYMENT, PAYMENT_STATUS_LABELS } from "./payment-status-text.ts";

/** The least threshold the API takes (AUTO-TOP-UP.md "Settings"). */
export const MIN_THRESHOLD = 10;
/** The most monthly limit the API takes, in minor units: €10,000. */
export const MAX_MONTHLY_LIMIT = 1_000_000;

export const AUTO_TOP_UP_PAGE_TEXT = {
  title: "Auto top-up",
  intro:
    "Keep your programs running. When the balance falls below a threshold, we buy a credit pack " +
    "with your saved card, up to a monthly limit you set.",
  /**
   * While the dispute hold lasts (the page's alert above says why): the API refuses turning it on
   * with 409 AUTO_TOP_UP_TEXT.disputeHold, and a charge would turn it off at once.
   */
  heldNote: "During the dispute hold, auto top-up stays off and cannot be turned on.",
  loading: "Loading auto top-up…",
  loadFailed: "Auto top-up could not be loaded.",
  retry: "Try again",
  status: "Status",
  statusLabels: { active: "Active", paused: "Paused", off: "Off" } satisfies Record<
    AutoTopUp["status"],
    string
  >,
  /** What each state means when the API gives no reason. */
  statusText: {
    active: "A pack is bought whenever the balance falls below the threshold.",
    paused: "No pack is bought until auto top-up resumes.",
    off: "Nothing is bought automatically.",
  } satisfies Record<AutoTopUp["status"], string>,
  /**
   * Billing's own words for pauses that agreeing to new terms ends: the API's sentence is also the
   * mail's and the console's ("under Billing"); on Billing it names what to press. Null: the API's
   * sentence stands. Every pause reason is listed, so a new one is a type error until decided here.
   */
  pausedHere: {
    authentication_required: null,
    declined: null,
    daily_limit: null,
    monthly_limit: null,
    limit_below_pack: null,
    member_left: null,
    card_replaced:
      "A new card was saved. To resume auto top-up with it, press Save under Settings and agree to the terms for this card.",
    consent_changed:
      "Your billing details changed what one pack costs. To resume auto top-up, press Save under Settings and agree to the new terms.",
  } satisfies Record<AutoTopUpPauseReason, string | null>,
  pausedUntil: (when: string) => `Resumes on ${when} (your local time).`,
  resume: "Resume auto top-up",
  resumed: "Auto top-up is active again.",
  /** Resuming answered 422 on `consent`: the card or the VAT changed since the terms were agreed to. */
  resumeNeedsConsent:
    "The terms changed since you agreed to them. Read them below and agree to resume auto top-up.",
  completePayment: COMPLETE_PAYMENT,
  completePaymentNote: "Your bank asks you to confirm the last payment.",

  card: {
    title: "Saved card",
    none: "No card saved yet. Auto top-up needs one.",
    number: (brand: string, last4: string) => `${brandName(brand)} •••• ${last4}`,
    expires: (month: number, year: number) => `Expires ${String(month).padStart(2, "0")}/${year}`,
    note: "Cards are saved on our payment provider's page, never here.",
    add: "Add card",
    replace: "Replace card",
    remove: "Remove card",
    opening: "Opening…",
    setupFailed: "The card page could not be opened. Please try again or contact support.",
    removeTitle: "Remove the saved card?",
    removeBody:
      "Auto top-up turns off and stops using this card. If your plan renews with it, the plan keeps it.",
    keep: "Keep card",
    removed: "The card was removed. Auto top-up is off.",
    removeFailed: "The card could not be removed. Please try again or contact support.",
    waiting: "Waiting for your card…",
    notYet: "Your card has not arrived yet. Reload the page in a minute.",
    arrived: "Your card is saved.",
  },

  form: {
    title: "Settings",
    enabled: "Auto top-up on",
    threshold: "When the balance falls below",
    thresholdUnit: "credits",
    thresholdHelp: (max: number) => `From ${MIN_THRESHOLD} to ${max.toLocaleString("en-US")} credits.`,
    pack: "Buy this pack",
    // "excl. VAT" as the plans page says: true for every buyer, reverse charge (0 % here) included.
    packOption: (name: string, price: string) => `${name}, ${price} excl. VAT`,
    limit: "Monthly limit, including VAT",
    limitHelp: (currency: string) => `In ${currency.toUpperCase()}. No more is charged in one month.`,
    resets: (day: string, time: string) => `Resets on ${day} at ${time} (your local time).`,
    save: "Save",
    saving: "Saving…",
    saved: "Auto top-up is saved.",
    turnedOn: "Auto top-up is on.",
    turnedOff: "Auto top-up is off.",
    saveFailed: "Auto top-up could not be saved. Please try again or contact support.",
    needsCard: "Add a card before you turn auto top-up on.",
    packsLoading: "Loading the packs…",
  },

  consent: {
    title: "Please read and agree",
    intro: "This is what you allow us to do with your card:",
    agree: "I agree",
    mustAgree: "Tick “I agree” to go on.",
    confirmOn: "Agree and turn on",
    confirmChange: "Agree and save",
    back: "Change the values",
    loading: "Preparing the terms…",
    failed: "The terms could not be loaded. Please try again.",
  },

  charges: {
    title: "This month",
    /** `amounts`: what was charged, or `withReserved`'s words when money is reserved too. */
    text: (amounts: string, limit: string) => `${amounts} of ${limit} this month`,
    /**
     * Before the settings are first saved there is no limit yet, while the form beside shows the
     * one it starts from: the meter says when a limit counts rather than "no limit".
     */
    unsaved: "Nothing charged this month. The monthly limit applies once the settings are saved.",
    unsavedWith: (amounts: string) =>
      `${amounts} this month. The monthly limit applies once the settings are saved.`,
    withReserved: (charged: string, reserved: string) => `${charged} charged + ${reserved} reserved`,
    reservedNote:
      "Reserved: payments on their way or waiting for your bank's confirmation, and cancelled ones until their invoice is voided. They count against the limit until then.",
    label: "Charged and reserved this month against the monthly limit",
  },

  attempts: {
    title: "Recent automatic top-ups",
    caption: "Automatic top-ups, newest first",
    none: "No automatic top-ups yet.",
    date: "Date",
    credits: "Credits",
    amount: "Amount",
    status: "Status",
    invoice: "Invoice",
    detail: "Detail",
    statusLabels: {
      processing: "Processing",
      authentication_required: PAYMENT_STATUS_LABELS.authentication_required,
      paid: PAYMENT_STATUS_LABELS.paid,
      failed: PAYMENT_STATUS_LABELS.failed,
      cancelled: PAYMENT_STATUS_LABELS.cancelled,
    } satisfies Record<AutoTopUpAttempt["status"], string>,
  },

  /** Client-side checks, in the API's words where the API has them (server/domain/auto-top-up.ts). */
  errors: {
    unknownPack: "Choose one of the credit packs.",
    thresholdNotWhole: "The threshold must be a whole number of credits.",
    thresholdTooLow: `The threshold must be at least ${MIN_THRESHOLD} credits.`,
    thresholdTooHigh: (packCredits: number) =>
      `The threshold must be below the pack's ${packCredits.toLocaleString("en-US")} credits, so that one pack lifts the balance above it.`,
    limitNotMoney: "Enter the limit as an amount, like 200 or 200.50.",
    limitNotPositive: "The monthly limit must be more than zero.",
    // The limit includes VAT: one pack's net and the VAT on it (none under reverse charge).
    limitTooLow: (net: string) => `The monthly limit must cover at least one pack: ${net} and the VAT on it.`,
    limitTooHigh: (most: string) => `The monthly limit can be at most ${most} including VAT.`,
  },

  admin: {
    title: "Auto top-up",
    never: "This organisation has not set up auto top-up.",
    settings: "Settings",
    threshold: "Threshold",
    pack: "Pack",
    limit: "Monthly limit",
    card: "Card",
    noCard: "none",
    thresholdValue: (n: number) => `below ${n.toLocaleString("en-US")} credits`,
    turnOff: "Turn off auto top-up",
    effect: (name: string) =>
      `${name} is no longer charged automatically. Its owners must agree again to turn it on.`,
    done: "Auto top-up: turned off",
  },
} as const;

const BRANDS: Readonly<Record<string, string>> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
  diners: "Diners Club",
  jcb: "JCB",
  unionpay: "UnionPay",
  cartes_bancaires: "Cartes Bancaires",
};

/** A card brand as people write it: "visa" -> "Visa"; an unknown one as the provider names it. */
export function brandName(brand: string): string {
  const known = BRANDS[brand.toLowerCase()];
  if (known) return known;
  return brand ? brand.charAt(0).toUpperCase() + brand.slice(1) : "Card";
}
