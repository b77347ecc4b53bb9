// The words of /login's code step (two-factor sign-in), apart from the security page's. The step
// loads with its words once a password needs a second factor; the passkey button's are in
// passkey-sign-in-text.ts, which /login ships with the page.
export const CODE_STEP_TEXT = {
  title: "Two-factor authentication",
  intro: "Enter the 6-digit code from your authenticator app.",
  introRecovery: "Enter one of the recovery codes you saved when you turned on two-factor sign-in.",
  codeLabel: "Authentication code",
  recoveryLabel: "Recovery code",
  useRecovery: "Use a recovery code instead",
  useApp: "Use your authenticator app instead",
  verify: "Verify",
  back: "Back to log in",
  usePasskey: "Use a passkey instead",
  /** The step of an account whose only second factor is a passkey (a staff account: decision 046). */
  introPasskey: "Confirm it is you with your passkey to finish signing in.",
  usePasskeyOnly: "Use your passkey",
  triesLeft: (n: number) => (n === 1 ? "1 try left" : `${n} tries left`),
} as const;
