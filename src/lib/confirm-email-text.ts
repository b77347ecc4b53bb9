// The words of /confirm-email, a public page: kept out of security-text.ts (2.4 KB gzip) so that
// the page stays within the public pages' JavaScript budget.

export const CONFIRM_EMAIL_TEXT = {
  title: "Confirm e-mail address",
  pending: "Confirming the address…",
  profileLink: "Go to your security settings",
  loginLink: "Log in",
  forgotLink: "Reset your password",
} as const;
