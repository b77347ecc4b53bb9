// The words of /confirm-email, a public page: kept out of security-text.ts (2.4 KB gzip) so that
// the page stays within the public pages' JavaScript budget.

export const CONFIRM_EMAIL_TEXT = {
  title: "Confirm e-mail address",
  pending: "Confirming the address…",
  profileLink: "Go to your security settings",
  loginLink: "Log in",
  forgotLink: "Reset your password",
  /** The way back from the old address asks first: it signs every browser out and ends the password. */
  backIntro:
    "This changes your account's e-mail address back to this one, signs every browser out and ends the password. Then set a new password with 'Forgot password': the link comes to this address.",
  backConfirm: "Change it back",
  /** No answer, too many tries or a server error: nothing was done and the link still works. */
  failed: "The link could not be followed just now. Nothing was changed, and the link still works.",
  retry: "Try again",
  /** 409: another account took the new address before its link was followed. */
  taken: "Another account took this address before you confirmed it, so your address did not change.",
} as const;
