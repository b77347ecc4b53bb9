// Stripe's test cards that the local checkout understands (https://docs.stripe.com/testing): the
// ones its checkout pays with, and the ones its card-setup page saves for later charges, with what
// each does when charged off-session (AUTO-TOP-UP.md, "The local checkout").
export type CardOutcome =
  | { ok: true; renewalsDecline: boolean; disputed: boolean }
  | { ok: false; message: string; status: "declined" | "invalid" };

export const CARD_DECLINED_MESSAGE = "Your card was declined.";
export const CARD_UNKNOWN_MESSAGE =
  "This test checkout accepts the test cards 4242 4242 4242 4242 (pays), 4000 0000 0000 0002 (declined), 4000 0000 0000 0341 (pays now, declines renewals) and 4000 0000 0000 0259 (pays, then the payment is disputed).";
/** Why the dispute card is refused for a subscription: the stand-in disputes one-off payments only. */
export const CARD_DISPUTE_ONE_OFF_MESSAGE =
  "4000 0000 0000 0259 (pays, then the payment is disputed) is for credit packs: use another card here.";
export const CARD_MISSING_MESSAGE = "Enter a card number.";

export const TEST_CARDS = {
  pays: "4242424242424242",
  declined: "4000000000000002",
  /** Attaches and pays the first time; every later (renewal) charge fails. */
  renewalsDecline: "4000000000000341",
  /** Pays, then the card holder disputes the payment at once (Stripe's "fraudulent" dispute card). */
  disputed: "4000000000000259",
} as const;

const digitsOf = (input: string) => input.replace(/[\s-]/g, "");

/**
 * What paying with `input` does. The dispute card pays one-off payments only (`oneOff`: a credit
 * pack's checkout): the stand-in's subscription invoices carry no payment intent for a dispute to
 * name, so a plan's checkout and the card-update page refuse it, saying why.
 */
export function cardOutcome(input: string, oneOff = false): CardOutcome {
  const digits = digitsOf(input);
  if (digits === "") return { ok: false, status: "invalid", message: CARD_MISSING_MESSAGE };
  if (digits === TEST_CARDS.pays) return { ok: true, renewalsDecline: false, disputed: false };
  if (digits === TEST_CARDS.renewalsDecline) return { ok: true, renewalsDecline: true, disputed: false };
  if (digits === TEST_CARDS.disputed)
    return oneOff
      ? { ok: true, renewalsDecline: false, disputed: true }
      : { ok: false, status: "invalid", message: CARD_DISPUTE_ONE_OFF_MESSAGE };
  if (digits === TEST_CARDS.declined)
    return { ok: false, status: "declined", message: CARD_DECLINED_MESSAGE };
  return { ok: false, status: "invalid", message: CARD_UNKNOWN_MESSAGE };
}

// ---- cards saved for later charges (the card-setup page, and auto top-up's charges) ----

/**
 * What an off-session charge of a saved card answers, as Stripe's PaymentIntent error would:
 * `code` is the error's code, `declineCode` its decline_code.
 */
export type OffSessionOutcome =
  | { status: "paid" }
  | { status: "requires_action"; code: "authentication_required"; declineCode: "authentication_required" }
  | { status: "declined"; code: string; declineCode: string | null };

interface SavableCard {
  /** Saving asks for 3-D Secure first (the page's simulated authentication step). */
  authentication: boolean;
  offSession: OffSessionOutcome;
  /** For the page's hint. */
  says: string;
}

const AUTHENTICATION_REQUIRED = {
  status: "requires_action",
  code: "authentication_required",
  declineCode: "authentication_required",
} as const;

/** The contract's table, card by card (digits only). */
export const SAVABLE_CARDS: Readonly<Record<string, SavableCard>> = {
  "4242424242424242": { authentication: false, offSession: { status: "paid" }, says: "saves, charges pay" },
  "4000002500003155": {
    authentication: true,
    offSession: { status: "paid" },
    says: "asks for authentication, charges pay",
  },
  "4000002760003184": {
    authentication: true,
    offSession: AUTHENTICATION_REQUIRED,
    says: "asks for authentication, every charge needs authentication",
  },
  "4000008260003178": {
    authentication: true,
    offSession: { status: "declined", code: "card_declined", declineCode: "insufficient_funds" },
    says: "asks for authentication, charges decline for insufficient funds",
  },
  // The contract names this decline by the error's code only (no decline_code).
  "4000000000000341": {
    authentication: false,
    offSession: { status: "declined", code: "card_declined", declineCode: null },
    says: "saves, charges are declined",
  },
};

const spaced = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, "$1 ");

/** The setup page's hint and its error for a number it does not know: every card it takes. */
export const SETUP_CARDS_HINT = `Test cards: ${[
  ...Object.entries(SAVABLE_CARDS).map(([digits, card]) => `${spaced(digits)} ${card.says}`),
  `${spaced(TEST_CARDS.declined)} is declined`,
].join("; ")}.`;
export const SETUP_CARD_UNKNOWN_MESSAGE = `This test page only accepts Stripe's test cards. ${SETUP_CARDS_HINT}`;

export type SetupCardOutcome =
  | { ok: true; digits: string; last4: string; authentication: boolean }
  | { ok: false; message: string; status: "declined" | "invalid" };

/** What the card-setup page does with a card number: save it (perhaps after authentication) or say why not. */
export function setupCardOutcome(input: string): SetupCardOutcome {
  const digits = digitsOf(input);
  if (digits === "") return { ok: false, status: "invalid", message: CARD_MISSING_MESSAGE };
  if (digits === TEST_CARDS.declined)
    return { ok: false, status: "declined", message: CARD_DECLINED_MESSAGE };
  const card = SAVABLE_CARDS[digits];
  if (!card || !Object.hasOwn(SAVABLE_CARDS, digits))
    return { ok: false, status: "invalid", message: SETUP_CARD_UNKNOWN_MESSAGE };
  return { ok: true, digits, last4: digits.slice(-4), authentication: card.authentication };
}

/** What charging a saved card without its holder answers; a number saved by no rule here declines. */
export function offSessionOutcome(cardNumber: string): OffSessionOutcome {
  const digits = digitsOf(cardNumber);
  const card = Object.hasOwn(SAVABLE_CARDS, digits) ? SAVABLE_CARDS[digits] : undefined;
  return card?.offSession ?? { status: "declined", code: "card_declined", declineCode: "generic_decline" };
}
