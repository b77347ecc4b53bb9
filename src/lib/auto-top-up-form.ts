// Auto top-up's settings form as plain functions (AUTO-TOP-UP.md "Settings"): the form's first
// values, what it sends, the checks made before sending (the API makes them again, with the VAT
// the browser does not know), the API's 422 placed beside the fields, and when consent is needed.
// Money is integer minor units (cents) everywhere but in the text a person types.
import type { AutoTopUp, AutoTopUpRequest, SavedCard } from "../../contract/auto-top-up.ts";
import { formatMoney } from "../../contract/money.ts";
import { AUTO_TOP_UP_PAGE_TEXT, MAX_MONTHLY_LIMIT, MIN_THRESHOLD } from "./auto-top-up-text.ts";

const E = AUTO_TOP_UP_PAGE_TEXT.errors;
const CHARGES = AUTO_TOP_UP_PAGE_TEXT.charges;

/** A pack auto top-up can buy, from the top-up products the portal lists. */
export interface Pack {
  id: string;
  name: string;
  credits: number;
  /** Net price, minor units. */
  unitAmount: number;
  currency: string;
}

/** The shape of `GET /v1/top-up/products`' items that a pack is read from. */
interface TopUpProduct {
  id: string;
  name: string;
  default_price: { unit_amount: number; currency: string };
  metadata: { token_amount: string };
}

export const packsFrom = (products: readonly TopUpProduct[]): Pack[] =>
  products.map((p) => ({
    id: p.id,
    name: p.name,
    credits: Number(p.metadata.token_amount),
    unitAmount: p.default_price.unit_amount,
    currency: p.default_price.currency,
  }));

/** What the form holds: the numbers as typed. */
export interface SettingsForm {
  enabled: boolean;
  threshold: string;
  productId: string;
  /** Major units as typed ("200", "200.50"). */
  limit: string;
}

/** The fields a message is shown beside; `form` for the rest (said above the buttons). */
export type FormField = "enabled" | "threshold" | "product_id" | "monthly_limit" | "consent" | "form";
export type FormErrors = Partial<Record<FormField, string>>;

/** The threshold a first setting starts from. */
export const DEFAULT_THRESHOLD = 100;
/** The pack a first setting starts from, when the catalogue has it. */
export const DEFAULT_PACK_CREDITS = 500;
/**
 * A first limit: four packs' net price. Whatever the VAT rate (at most 27 % in the EU) it buys at
 * least three packs a month, and it is always above the API's least limit (one pack's gross).
 */
export const DEFAULT_LIMIT_PACKS = 4;

const MINOR_PER_MAJOR = 100;

/**
 * The amount a person typed, in minor units; null when it is not an amount. Takes "200", "200.5",
 * "200.50", "1,000", "1,000.50", "€ 200" and a decimal comma ("200,50").
 */
export function parseMoney(text: string): number | null {
  let s = text.replace(/[\s€$\u00a0]/g, "");
  // With a point, commas group thousands. A decimal comma is the last and only one: should there be
  // another, it stays and the text is not an amount.
  if (s.includes(".")) s = s.replace(/,/g, "");
  else if (/,\d{1,2}$/.test(s)) s = s.replace(",", ".");
  else if (/^\d{1,3}(,\d{3})+$/.test(s)) s = s.replace(/,/g, "");
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(s);
  if (!match) return null;
  const whole = Number(match[1]);
  const cents = Number((match[2] ?? "").padEnd(2, "0"));
  const amount = whole * MINOR_PER_MAJOR + cents;
  return Number.isSafeInteger(amount) ? amount : null;
}

/** Minor units as a person types them: 20000 -> "200", 20050 -> "200.50". */
export function moneyInput(minor: number): string {
  const whole = Math.trunc(minor / MINOR_PER_MAJOR);
  const cents = Math.abs(minor % MINOR_PER_MAJOR);
  return cents === 0 ? String(whole) : `${whole}.${String(cents).padStart(2, "0")}`;
}

/** The pack a first setting starts from: the 500-credit pack, or the cheapest there is. */
export function defaultPack(packs: readonly Pack[]): Pack | undefined {
  return packs.find((p) => p.credits === DEFAULT_PACK_CREDITS) ?? packs[0];
}

/** The highest threshold a pack allows: one pack must lift the balance above it. */
export const thresholdMax = (pack: Pack): number => pack.credits - 1;

/** The form's first values: what the API has, or the defaults for a first setting. */
export function formFrom(state: AutoTopUp, packs: readonly Pack[]): SettingsForm {
  const pack = packs.find((p) => p.id === state.product_id) ?? defaultPack(packs);
  const limit =
    state.monthly_limit?.amount ??
    (pack ? DEFAULT_LIMIT_PACKS * pack.unitAmount : DEFAULT_LIMIT_PACKS * 5000);
  return {
    enabled: state.enabled,
    threshold: String(state.threshold ?? DEFAULT_THRESHOLD),
    productId: state.product_id ?? pack?.id ?? "",
    limit: moneyInput(limit),
  };
}

export type CheckedForm = { ok: true; request: AutoTopUpRequest } | { ok: false; errors: FormErrors };

/** The PUT body for the form's values, or a message per field that is out of range. */
export function checkForm(form: SettingsForm, packs: readonly Pack[]): CheckedForm {
  const errors: FormErrors = {};
  const pack = packs.find((p) => p.id === form.productId);
  if (!pack) errors.product_id = E.unknownPack;

  // Number() ignores the spaces around; only nothing but spaces would be 0.
  const threshold = form.threshold.trim() === "" ? Number.NaN : Number(form.threshold);
  if (!Number.isInteger(threshold)) errors.threshold = E.thresholdNotWhole;
  else if (threshold < MIN_THRESHOLD) errors.threshold = E.thresholdTooLow;
  else if (pack && threshold > thresholdMax(pack)) errors.threshold = E.thresholdTooHigh(pack.credits);

  const amount = parseMoney(form.limit) ?? Number.NaN;
  const currency = pack?.currency ?? "eur";
  if (Number.isNaN(amount)) errors.monthly_limit = E.limitNotMoney;
  // Even when off: the API refuses a limit of nothing.
  else if (amount <= 0) errors.monthly_limit = E.limitNotPositive;
  // The least limit is one pack's gross, which only the API knows (the VAT): the net is a floor.
  else if (pack && form.enabled && amount < pack.unitAmount)
    errors.monthly_limit = E.limitTooLow(formatMoney(pack.unitAmount, currency));
  else if (amount > MAX_MONTHLY_LIMIT)
    errors.monthly_limit = E.limitTooHigh(formatMoney(MAX_MONTHLY_LIMIT, currency));

  if (Object.keys(errors).length > 0 || !pack) return { ok: false, errors };
  return {
    ok: true,
    request: {
      enabled: form.enabled,
      threshold,
      product_id: pack.id,
      monthly_limit: { amount, currency },
    },
  };
}

const FIELDS: readonly FormField[] = ["enabled", "threshold", "product_id", "monthly_limit", "consent"];

/**
 * The field a 422 item names: `loc` is `["body", field, ...]` (`["body", "monthly_limit", "amount"]`
 * belongs to the limit); anything else is the form's.
 */
export function fieldOf(loc: readonly unknown[]): FormField {
  const field = loc[0] === "body" ? loc[1] : loc[0];
  return (FIELDS as readonly unknown[]).includes(field) ? (field as FormField) : "form";
}

/** The first message per field of a 422 answer's `detail`; a sentence detail is the form's. */
export function errorsFrom422(detail: unknown): FormErrors {
  const errors: FormErrors = {};
  if (typeof detail === "string") return detail ? { form: detail } : errors;
  if (!Array.isArray(detail)) return errors;
  for (const item of detail as unknown[]) {
    if (typeof item !== "object" || item === null) continue;
    const { loc, msg } = item as { loc?: unknown; msg?: unknown };
    if (typeof msg !== "string") continue;
    const field = Array.isArray(loc) ? fieldOf(loc) : "form";
    errors[field] ??= msg;
  }
  return errors;
}

const sameRequestValues = (state: AutoTopUp, request: AutoTopUpRequest) =>
  state.threshold === request.threshold &&
  state.product_id === request.product_id &&
  state.monthly_limit !== null &&
  state.monthly_limit.amount === request.monthly_limit.amount &&
  state.monthly_limit.currency.toLowerCase() === request.monthly_limit.currency.toLowerCase();

/** Pauses that only new consent ends: a new card, or billing details that changed a pack's price. */
const CONSENT_PAUSES: readonly (string | null)[] = ["card_replaced", "consent_changed"];

/**
 * Whether sending `request` needs the customer's consent first: turning auto top-up on, a change
 * of pack, threshold or limit while it is on, or saving while paused for a new card or new terms.
 * (Whatever else changed the text, the API says with a 422 on `consent`, and the form then asks,
 * see AutoTopUpSettings.)
 */
export function needsConsent(state: AutoTopUp, request: AutoTopUpRequest): boolean {
  if (!request.enabled) return false;
  if (!state.enabled || state.status === "off") return true;
  if (state.status === "paused" && CONSENT_PAUSES.includes(state.paused_reason)) return true;
  return !sameRequestValues(state, request);
}

/**
 * The PUT body once the customer agreed to `shown`, the text the API rendered for these values:
 * its version and the text itself, so that the API refuses it if the text changed meanwhile.
 */
export function withConsent(
  request: AutoTopUpRequest,
  shown: { text: string; version: string },
): AutoTopUpRequest {
  return { ...request, consent: { text_version: shown.version, text: shown.text, accepted: true } };
}

/**
 * This month's charges against the limit, for a progress bar and its sentence. Room the limit keeps
 * for money not taken yet (`reserved_this_month`) is named beside what was charged, and filled in
 * the bar: the limit counts both, so a pause for it never reads as room left.
 */
export function chargesMeter(
  state: Pick<AutoTopUp, "charged_this_month" | "reserved_this_month" | "monthly_limit">,
): {
  value: number;
  max: number;
  text: string;
  /** Whether anything is reserved: the meter then explains the word. */
  reserved: boolean;
} {
  const charged = state.charged_this_month;
  const reserved = state.reserved_this_month.amount;
  const limit = state.monthly_limit;
  const counted = charged.amount + reserved;
  const chargedText = formatMoney(charged.amount, charged.currency);
  const amounts =
    reserved > 0
      ? CHARGES.withReserved(chargedText, formatMoney(reserved, state.reserved_this_month.currency))
      : chargedText;
  // No limit saved yet (a first setting; the API takes none below one pack).
  if (!limit || limit.amount <= 0) {
    const text = counted === 0 ? CHARGES.unsaved : CHARGES.unsavedWith(amounts);
    return { value: counted, max: Math.max(counted, 1), text, reserved: reserved > 0 };
  }
  return {
    value: Math.min(counted, limit.amount),
    max: limit.amount,
    text: CHARGES.text(amounts, formatMoney(limit.amount, limit.currency)),
    reserved: reserved > 0,
  };
}

/**
 * When the limit resets, on the visitor's own clock: "Resets on 2026-12-01 at 00:00 (your local time)."
 * `timeZone` (tests) stands in for the visitor's; without it, the runtime's own zone.
 */
export function resetsText(iso: string, timeZone?: string): string | null {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  const day = new Intl.DateTimeFormat("sv-SE", {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    timeZone,
  });
  const time = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone,
  });
  return AUTO_TOP_UP_PAGE_TEXT.form.resets(day.format(date), time.format(date));
}

/** A card as one string, to tell whether the saved card changed. */
export const cardSignature = (card: SavedCard | null): string =>
  card ? `${card.brand}:${card.last4}:${card.exp_month}:${card.exp_year}` : "none";

/**
 * Whether the card the customer just saved has arrived (it comes with the provider's event, a
 * moment after the redirect): a card other than the one before the card page (`before`, a
 * signature), or any card when what was there before is not known.
 */
export function cardArrived(before: string | null, card: SavedCard | null): boolean {
  if (card === null) return false;
  return cardSignature(card) !== before;
}

/** Pauses that asking again does not end (see canResume). */
const NOT_RESUMED_BY_ASKING: readonly (string | null)[] = [
  "monthly_limit",
  // Ends by itself at midnight in Berlin; no Resume lets a charge through before (the API keeps it).
  "daily_limit",
  "limit_below_pack",
  "authentication_required",
  "member_left",
  // Ended by agreeing to the new text: Save in the settings shows it (needsConsent).
  ...CONSENT_PAUSES,
];

/**
 * Whether Billing offers "Resume": a pause the customer ends by asking again (a decline). A
 * daily-limit pause ends by itself when the Berlin day does (Billing says when), a monthly-limit
 * pause by itself or with a higher limit, a limit below one pack with a
 * higher limit, an authentication with the payment's page, a card whose saver left with a new card,
 * a new card or new terms with consent (Save).
 */
export function canResume(state: Pick<AutoTopUp, "status" | "enabled" | "paused_reason" | "card">): boolean {
  if (state.status !== "paused" || !state.enabled || state.card === null) return false;
  return !NOT_RESUMED_BY_ASKING.includes(state.paused_reason);
}
