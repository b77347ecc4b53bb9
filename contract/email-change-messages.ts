// The two answers of POST /v1/user/confirm-email, in a module of their own: /confirm-email tells
// them apart, and importing DETAIL's whole table would cost that public page 1.8 KB gzip.

export const EMAIL_CHANGE_DETAIL = {
  changed: "Your e-mail address was changed.",
  reverted:
    "Your e-mail address was changed back, every browser was signed out, and your password no longer works. Reset your password now.",
  /** A way back followed without `revert: true` (POST /v1/user/confirm-email's 409). */
  revertUnconfirmed:
    "Changing your e-mail address back signs every browser out: confirm it on the page first.",
} as const;
