// The spec's exact wording for the portal's pages, toasts and error messages (sections 2, 4 and
// 8), in one place: the static shells and the islands that hydrate the same places both use it,
// so a visitor never sees the text change when JavaScript arrives, and tests check each string.
// Every page's shared JavaScript carries this module, so the words of one page live beside it
// instead (profile-text, usage-text, api-keys-text, billing-text): 1.4 KB gzip off every page.

export const UI_TEXT = {
  buySubscription: "Buy Subscription",
  logIn: "Log In",
  register: "Register",
  myAccount: "My Account",
  signOut: "Sign Out",
  /** The account menu's link for staff (support and admin) to /admin/customers. */
  operatorConsole: "Operator console",
  back: "Back",
  submit: "Submit",
  greeting: (name: string) => `Hi, ${name}`,
  creditTooltip: "Your credit balance",
  passwordHelper:
    "8 to 30 characters with an uppercase letter, a lowercase letter, a number and a special character (@$!%*?&#).",
  forgotPassword: {
    title: "Forgot Password?",
    emailPlaceholder: "Write your email",
    helper: "Enter your email to get a link to reset your password",
  },
  /** The account menu's words for /profile/usage; the page's own are in usage-text.ts. */
  usage: { menu: "Usage" },
  /** The account menu's words for /profile/billing; the page's own are in billing-text.ts. */
  billing: { menu: "Billing" },
  /** The account menu's words for /profile/api-keys; the page's own are in api-keys-text.ts. */
  apiKeys: { menu: "API keys" },
  /** The account menu's and /profile's link to /profile/security. */
  security: { menu: "Security" },
  resetPassword: {
    checking: "Checking your reset link…",
    resendLink: "Send a new reset link",
  },
  /** On /login right after registering: the spec's toast says "registered", this says what comes next. */
  checkInbox:
    "We've sent a verification link to your e-mail address. Open it, then log in here. Nothing arrived?",
  resendVerification: "Resend verification e-mail",
  /** Shown under the login toast when the API says the e-mail address is not verified yet. */
  emailNotVerifiedHint:
    "Your e-mail address is not verified yet. Open the link in our e-mail, or request a new one.",
} as const;

/** Success toasts (spec sections 4, 7 and 8); /profile's plan actions' are in plan-action-text.ts. */
export const TOAST = {
  /** The close button of a toast shown without react-toastify (toast-fallback.tsx). */
  close: "Close message",
  loggedIn: "You're logged in successfully!",
  registered: "You're registered successfully!",
  verificationSent: "Email verification link sent successfully, please check your inbox or spam folder",
  passwordReset: "Password reset successfully, please login",
  /** The forgot-password success: the spec navigates to / and names no toast; this says what happened. */
  resetLinkSent:
    "If that address is registered, a reset link is on its way. Please check your inbox or spam folder",
  copied: "Copied to clipboard!",
} as const;

/**
 * Error messages (spec section 8); the two it leaves open ("no handler shown") for /profile's plan
 * actions are in plan-action-text.ts.
 */
export const ERROR_TEXT = {
  loginUnauthorized: "You are not authorized. Please log in as an admin or super admin!",
  loginFailedCredentials: "Login failed. Please check your credentials!",
  loginFailed: "Login failed",
  registerUnauthorized: "You are not authorized. Please log in as an admin!",
  emailExists: "Email already exists!",
  usernameExists: "Username already exists!",
  registrationFailedDetails: "Registration failed. Please check your details!",
  registerFailedTryAgain: "Register failed. Please try again!",
  networkError: "Network error. Please try again!",
  registerFailed: "Register failed",
  checkoutFailed: "Oops something went wrong! Try again or contact support.",
  oops: "Oops something went wrong, please try again or contact support",
  tokenInvalid: "Token is invalid or expired.",
  tooManyRequests: "Too many requests, please try again later.",
  loadFailed: "This could not be loaded. Please reload the page or try again later.",
  /** Not in the spec: the account (users/me) did not load although a session is stored. */
  accountLoadFailed: "Your account could not be loaded. Please reload the page or try again later.",
} as const;
