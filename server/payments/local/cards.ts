// Stripe's test cards that the local checkout understands (https://docs.stripe.com/testing).
export type CardOutcome =
  | { ok: true; renewalsDecline: boolean }
  | { ok: false; message: string; status: "declined" | "invalid" };

export const CARD_DECLINED_MESSAGE = "Your card was declined.";
export const CARD_UNKNOWN_MESSAGE =
  "This test checkout accepts the test cards 4242 4242 4242 4242 (pays) and 4000 0000 0000 0002 (declined).";
export const CARD_MISSING_MESSAGE = "Enter a card number.";

export const TEST_CARDS = {
  pays: "4242424242424242",
  declined: "4000000000000002",
  /** Attaches and pays the first time; every later (renewal) charge fails. */
  renewalsDecline: "4000000000000341",
} as const;

export function cardOutcome(input: string): CardOutcome {
  const digits = input.replace(/[\s-]/g, "");
  if (digits === "") return { ok: false, status: "invalid", message: CARD_MISSING_MESSAGE };
  if (digits === TEST_CARDS.pays) return { ok: true, renewalsDecline: false };
  if (digits === TEST_CARDS.renewalsDecline) return { ok: true, renewalsDecline: true };
  if (digits === TEST_CARDS.declined)
    return { ok: false, status: "declined", message: CARD_DECLINED_MESSAGE };
  return { ok: false, status: "invalid", message: CARD_UNKNOWN_MESSAGE };
}
