// The operator console's limits and messages, without zod: the console's islands import them with
// the page, while the schemas (contract/admin.ts) load on the first call, as every page's do.

/** What an operator action's reason must be (kept in the audit log). */
export const REASON_MIN = 3;
export const REASON_MAX = 500;
/** A grant's note to the customer: one or two sentences, shown on /profile and in the mail. */
export const NOTE_MAX = 200;
/** The most credits one grant or take-back may move (a typo guard; larger amounts take several). */
export const OPERATOR_CREDITS_MAX = 1_000_000;

export const ADMIN_TEXT = {
  reasonRequired: "Give a reason",
  reasonTooShort: `The reason must be at least ${REASON_MIN} characters`,
  reasonTooLong: `The reason can be at most ${REASON_MAX} characters`,
  amountRequired: "Give an amount of credits",
  noteTooLong: `The note to the customer can be at most ${NOTE_MAX} characters`,
  /** The grant dialog's field for it: unlike the reason, the customer reads it. */
  noteLabel: "Note to the customer (optional: shown on their account and in the mail)",
  amountInvalid: "Use a number of credits other than 0, with at most 3 decimals",
  amountTooLarge: `At most ${OPERATOR_CREDITS_MAX.toLocaleString("en-US")} credits at a time`,
  idempotencyKeyRequired: "idempotency_key is required",
  customerNotFound: "Customer not found",
  noSuchAccount: "No account has this username or e-mail",
  /** The grant dialog's expiry, typed as the console writes days. */
  dayInvalid: "Use a day as 2026-12-31, or leave it empty for no expiry",
  notIsoTime: "Use an ISO 8601 date (2026-11-01) or time (2026-11-01T09:30:00Z)",
  notOwnAccount: "Staff cannot do this to their own account",
  lastAdmin: "The last admin cannot be demoted",
  overGrantLimit: (limit: number) => `Support can grant at most ${limit} credits at a time`,
  takeBackTooMuch: (available: number) =>
    `Only ${available} credits are unspent: take back at most that much`,
  adminOnly: "Only an admin may do this",
  staffOnly: "Only support staff and admins may do this",
  alreadyDisabled: "The account is already disabled",
  notDisabled: "The account is not disabled",
  sameRole: "The account already has this role",
  noSubscription: "The customer has no live subscription",
  keyNotFound: "API key not found",
  alreadyVerified: "The address is already verified",
  noDisputeHold: "The account has no dispute hold",
  accountDisabled: "Account disabled. Contact support.",
  accountDeleted: "The customer deleted this account: it can no longer be changed",
  staffNeedsSecondFactor:
    "Staff need two-factor sign-in: the account must turn it on (/profile/security) before it gets a staff role",
  overDailyGrantLimit: (limit: number, left: number) =>
    `Support can grant at most ${limit} credits a day (Berlin time); ${left} are left today`,
  staffChargeReasonRequired: "Give a reason: staff charges are written to the audit log",
} as const;
