// The words of /verify-email, the page the verification link opens: apart from ui-text.ts, whose
// words every page loads.

export const VERIFY_EMAIL_TEXT = {
  pending: "Verifying your e-mail address…",
  success: "Email verified successfully!",
  loginLink: "Login",
  resendLink: "Resend verification e-mail",
} as const;
