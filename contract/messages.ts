// Every user-facing message of the account forms and the account API, exactly as the spec
// (section 5) and API-CONTRACT.md word them. The portal shows these and the server answers with
// them, so both import them from here and tests compare against these constants.
import { PAYMENT_DISPUTED } from "./dispute-hold-messages.ts";
import { EMAIL_CHANGE_DETAIL } from "./email-change-messages.ts";

/** Form validation messages (spec section 5), in the order the spec lists them. */
export const VALIDATION = {
  usernameRequired: "Username is required",
  usernameInvalid: "Invalid username",
  emailRequired: "Email is required",
  emailInvalid: "Please enter a valid email address",
  passwordRequired: "Password is required",
  passwordTooShort: "Password must be at least 8 characters long",
  passwordTooLong: "Password cannot exceed 30 characters",
  passwordUppercase: "Password must contain at least one uppercase letter",
  passwordLowercase: "Password must contain at least one lowercase letter",
  passwordNumber: "Password must contain at least one number",
  passwordSpecial: "Password must contain at least one special character (@$!%*?&#)",
  confirmPasswordRequired: "Please confirm your password",
  passwordsMustMatch: "Passwords must match",
  passwordUnchanged: "The new password must differ from the current one",
  /** Not in the spec's forms: the verification and reset calls need a token, and say so. */
  tokenRequired: "Token is required",
  tokenTooLong: "Token is invalid or expired.",
  /** ACCOUNT-SECURITY.md: registration refuses throwaway addresses (checked by the server only). */
  emailDisposable: "Please use a permanent email address: this one is from a disposable-mail service",
  /**
   * Registration, an address change and an invitation refuse the top-level domains reserved never
   * to deliver mail (`.invalid`, `.localhost`: RFC 2606, RFC 6761), as they refuse throwaway ones.
   */
  emailReserved: "Please use a real email address: this one's domain is reserved and never receives mail",
  /** ACCOUNT-SECURITY.md: the two-factor code step and setup. */
  codeRequired: "Enter the code from your authenticator app",
  codeTooLong: "That is not a code from an authenticator app or a recovery code",
} as const;

/** `detail` strings of the API's error and success answers (API-CONTRACT.md). */
export const DETAIL = {
  incorrectCredentials: "Incorrect username or password",
  emailNotVerified: "Email not verified",
  emailExists: "Email already exists.",
  usernameExists: "Username already exists.",
  couldNotValidateCredentials: "Could not validate credentials",
  notEnoughPermissions: "Not enough permissions",
  tokenInvalidOrExpired: "Token is invalid or expired.",
  resetRequested: "If that address is registered, a reset link is on its way.",
  verificationResent:
    "If that address is registered and not yet verified, a new verification link is on its way.",
  passwordResetDone: "Password reset successfully",
  emailVerified: "Email verified successfully!",
  tooManyRequests: "Too many requests, please try again later.",
  bodyTooLarge: "Request body too large",
  notFound: "Not Found",
  internalError: "Internal Server Error",
  apiKeyLimit: "You have 20 API keys: revoke one before creating another.",
  apiKeyNotFound: "API key not found",
  apiKeyCreditLimit: "API key credit limit reached",
  featureNotAllowed: "This API key may not be used for this feature",
  backdatingDevelopmentOnly: "A charge's time ('at') can be given only on a development server",
  backdatingFuture: "A charge's time ('at') cannot be in the future",
  backdatingTooOld: "A charge's time ('at') can be at most 366 days ago",
  userNotFound: "User not found",
  invalidServiceKey: "Invalid service key",
  /** OPERATIONS.md: login, every token and every charge of an account staff disabled. */
  accountDisabled: "Account disabled. Contact support.",
  /** ACCOUNT-SECURITY.md: consume on an account with a dispute hold. */
  paymentDisputed: PAYMENT_DISPUTED,
  idempotencyKeyReused: "Idempotency key reused with a different request",
  signedOut: "Signed out.",
  reauthRequired: "Confirm your password to continue",
  /** POST /v1/reauth with the password alone on an account with two-factor sign-in on. */
  reauthCodeRequired: "Enter the code from your authenticator app, or a recovery code",
  /** POST /v1/reauth with a password from a staff account whose only second factor is a passkey (046). */
  reauthPasskeyRequired: "Confirm with your passkey: this account signs in with it",
  incorrectPassword: "Incorrect password",
  signedOutEverywhere: "Signed out everywhere.",
  /** ACCOUNT-SECURITY.md: POST /v1/token's answer when the account has two-factor sign-in on. */
  mfaRequired: "Two-factor code required",
  incorrectCode: "Incorrect code",
  /** New recovery codes take a code from the app; a recovery code given there is not used up. */
  appCodeNeeded: "Enter a code from your authenticator app: a recovery code cannot make new ones",
  mfaStepExpired: "This sign-in has expired. Please sign in again",
  /** POST /v1/token and /v1/token/mfa (429): the account's wrong codes passed the hourly limit. */
  tooManyWrongCodes: "Too many wrong codes for this account. Please try again later",
  /** Checkout calls on a server without Stripe whose local checkout is off (a public HOST). */
  checkoutUnavailable: "Payments are not available on this server",
  staffMfaRequired: "Two-factor authentication is required for staff access",
  mfaAlreadyOn: "Two-factor authentication is already on",
  mfaNotOn: "Two-factor authentication is not on",
  unstorableText: "The request holds text that cannot be stored: no control characters or broken Unicode",
  staffKeepSecondFactor:
    "Staff accounts keep a second factor: add another one (a passkey or an authenticator app) first, or ask an admin to take the staff role away",
  mfaNotStarted: "Start the two-factor setup first",
  /**
   * Adding an authenticator app or a passkey with a token that shows the password alone, on an
   * account whose sign-in asks for a second factor (decision 046): signing in again with it helps.
   */
  secondFactorSignInRequired:
    "This session began with your password alone: sign out, then sign in again with your passkey or authenticator code to add a second factor",
  mfaTurnedOff: "Two-factor authentication is off",
  /** DELETE /v1/users/me: the body's `confirm` must be the account's username. */
  deleteConfirmMismatch: "Type your username exactly to confirm",
  accountDeleted: "Your account was deleted.",
  passkeyNotAccepted: "This passkey was not accepted. Try again, or sign in with your password",
  /** POST /v1/reauth with a passkey that did not verify. */
  passkeyNotConfirmed: "This passkey was not accepted. Try again, or enter your password",
  /** Re-authenticating with a passkey on an account that has none. */
  noPasskey: "This account has no passkey",
  passkeyExists: "This passkey is already on your account",
  passkeyLimit: "You have 10 passkeys already: remove one first",
  passkeyNotFound: "Passkey not found",
  emailChangeSent: "Check the new address: the change takes effect when you follow the link we sent there.",
  emailSame: "This is already your e-mail address",
  emailChanged: EMAIL_CHANGE_DETAIL.changed,
  emailChangeReverted: EMAIL_CHANGE_DETAIL.reverted,
  emailRevertUnconfirmed: EMAIL_CHANGE_DETAIL.revertUnconfirmed,
  emailChangeCancelled: "The e-mail change was cancelled: the link we sent no longer works.",
  emailChangeNotPending: "No e-mail change is waiting for its link.",
} as const;

/** `msg` of the 422 items that are about the body as a whole rather than one field. */
export const BODY_ERRORS = {
  notJson: "Request body must be valid JSON",
  wrongJsonContentType: "Content-Type must be application/json",
  wrongFormContentType: "Content-Type must be application/x-www-form-urlencoded or multipart/form-data",
  notAnObject: "Request body must be an object",
  grantType: "grant_type must be password",
} as const;
