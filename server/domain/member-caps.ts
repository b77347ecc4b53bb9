// Member monthly caps (ORGANISATIONS.md, "Keys, introspection and spending"): the rules the spend
// batch applies under the organisation's lock, as plain functions.

/** A charge that takes a member's month past this share of their cap mails a warning (alert-latches.ts). */
export const CAP_WARNING_SHARE = 0.8;

/** Would a charge of `amount` take `used` past `cap` (milli-credits)? Then it is refused. */
export const exceedsCap = (used: number, amount: number, cap: number | null): boolean =>
  cap !== null && used + amount > cap;
