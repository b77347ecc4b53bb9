// The words of /login's passkey button, apart from the code step's (code-step-text.ts): the code
// step loads when a password needs a second factor, the button with the page.
export const PASSKEY_SIGN_IN_TEXT = {
  button: "Sign in with a passkey",
  cancelled: "Passkey sign-in was cancelled.",
  wrongAddress: "Passkeys work only on the portal's own domain name, not on this address.",
} as const;
