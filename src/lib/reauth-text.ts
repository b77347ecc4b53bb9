// The words of the "Confirm your password" dialog, beside the pages that can open it (not in
// ui-text.ts, which every page carries).
import { PASSKEY_SIGN_IN_TEXT } from "./passkey-sign-in-text.ts";

/** The "Confirm your password" dialog of sensitive actions (ACCOUNT-SECURITY.md). */
export const REAUTH_TEXT = {
  title: "Confirm your password",
  body: "For your security, enter your password again to continue. You won't be asked again for 10 minutes.",
  bodyWithCode:
    "For your security, enter your password and a code from your authenticator app again to continue. You won't be asked again for 10 minutes.",
  /** A staff account whose only second factor is a passkey confirms with it alone (decision 046). */
  titlePasskey: "Confirm it is you",
  bodyPasskey:
    "For your security, confirm it is you with your passkey to continue. You won't be asked again for 10 minutes.",
  password: "Password",
  code: "Code from your authenticator app, or a recovery code",
  confirm: "Confirm",
  confirming: "Confirming…",
  cancel: "Cancel",
  usePasskey: "Use a passkey instead",
  usePasskeyOnly: "Use your passkey",
  passkeyCancelled: "The passkey was not used. Try again, or enter your password.",
  passkeyCancelledOnly: "The passkey was not used. Try again.",
  passkeyNotConfirmedOnly: "This passkey was not accepted. Try again.",
  /** The page's address is not the portal's domain (an IP address): no passkey works here. */
  passkeyWrongAddress: `${PASSKEY_SIGN_IN_TEXT.wrongAddress} Enter your password.`,
  passkeyWrongAddressOnly: `${PASSKEY_SIGN_IN_TEXT.wrongAddress} Open the portal there to confirm.`,
} as const;
