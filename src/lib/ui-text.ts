// The spec's exact wording for the portal's pages, toasts and error messages (sections 2, 4 and
// 8), in one place: the static shells and the islands that hydrate the same places both use it,
// so a visitor never sees the text change when JavaScript arrives, and tests check each string.

export const UI_TEXT = {
  buySubscription: "Buy Subscription",
  logIn: "Log In",
  register: "Register",
  myAccount: "My Account",
  signOut: "Sign Out",
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
  token: {
    open: "Get Bearer Token",
    title: "Copy Bearer Token",
    copy: "Copy",
    copied: "Copied",
    close: "Close",
    expires: (when: string) => `This token expires ${when}: log in again for a new one.`,
    forPrograms: "For a program, create an API key instead: it does not expire every day.",
    apiKeysLink: "API keys",
  },
  usage: {
    title: "Usage",
    menu: "Usage",
    intro: "What your programs' generations spent, by day, feature and API key.",
    presets: { days7: "7 days", days30: "30 days", days90: "90 days", thisMonth: "This month" },
    rangeLabel: "Period",
    chartTitle: "Credits used per day",
    chartLabel: (from: string, to: string) =>
      `Credits used per day from ${from} to ${to}, stacked by feature`,
    tableCaption: "Credits used per day and feature",
    tableToggle: "Show the numbers as a table",
    byFeature: "By feature",
    byKey: "By API key",
    day: "Day",
    feature: "Feature",
    key: "API key",
    uses: "Uses",
    credits: "Credits",
    total: "Total",
    noKey: "Without a key",
    manual: "Manual charges",
    revokedKey: "revoked",
    download: "Download CSV",
    downloading: "Preparing…",
    loading: "Loading your usage…",
    downloadFailed: "The CSV could not be downloaded. Please try again.",
    loadFailed: "Your usage could not be loaded.",
    retry: "Try again",
    emptyTitle: "No usage in this period",
    emptyBody:
      "When your programs call the generation API with one of your API keys, each generation and the " +
      "credits it cost show up here, by day, feature and key.",
    zoneNote: "Days are Berlin days (Europe/Berlin).",
  },
  /** The account menu's and /profile's few words about billing; the pages' own are in billing-text.ts. */
  billing: {
    title: "Billing",
    menu: "Billing",
    updatePaymentMethod: "Update payment method",
    failedNotice:
      "Your last renewal payment failed. Update your payment method to pay it and keep your plan.",
  },
  apiKeys: {
    title: "API keys",
    menu: "API keys",
    intro:
      "Keys let your programs call the generation API without your password. Each key can expire, be " +
      "limited to some features and a monthly credit budget, and be revoked at any time.",
    create: "Create API key",
    createTitle: "Create API key",
    name: "Name",
    namePlaceholder: "e.g. Production server",
    expiry: "Expires",
    expiryNever: "Never",
    expiryDays: (days: number) => `In ${days} days`,
    limit: "Monthly credit limit (optional)",
    limitHelper: "Counted per calendar month (Berlin time). Leave empty for no limit but your balance.",
    features: "Features",
    allFeatures: "All features",
    someFeatures: "Only these features:",
    cancel: "Cancel",
    creating: "Creating…",
    createdTitle: "Your new API key",
    createdWarning: "Copy it now: it will not be shown again. Store it like a password.",
    done: "I have copied it",
    revoke: "Revoke",
    revokeTitle: "Revoke this key?",
    revokeBody: (name: string) => `Programs using "${name}" stop working at once. This cannot be undone.`,
    confirmRevoke: "Yes, revoke",
    keepKey: "Keep key",
    revoked: "API key revoked",
    emptyTitle: "No API keys yet",
    emptyBody:
      "Create a key for each program or server that calls the generation API. If one leaks, revoke it " +
      "without touching the others.",
    loading: "Loading your API keys…",
    loadFailed: "Your API keys could not be loaded.",
    retry: "Try again",
    columns: {
      name: "Name",
      key: "Key",
      created: "Created",
      lastUsed: "Last used",
      expires: "Expires",
      usage: "Used this month",
    },
    never: "Never",
    noLimit: "no limit",
    expired: "expired",
    restrictedTo: "Only",
    usingTitle: "Using your key",
  },
  verifyEmail: {
    pending: "Verifying your e-mail address…",
    success: "Email verified successfully!",
    loginLink: "Login",
    resendLink: "Resend verification e-mail",
  },
  resetPassword: {
    checking: "Checking your reset link…",
    resendLink: "Send a new reset link",
  },
  payment: {
    success: "Payment Successful!",
    failed: "Payment Failed",
    goToDashboard: "Go to Dashboard",
    tryAgain: "Try again",
  },
  profile: {
    /** The static line under 'My Account', painted before the account has loaded. */
    intro:
      "Your account details, your plan and your credit balance. On a paid plan you can change or " +
      "cancel it here, and buy one-time top-up packs of credits.",
    username: "Username",
    email: "Email",
    plan: "Subscription plan",
    planEnds: "Plan end date",
    tokens: "Tokens",
    notAvailable: "N/A",
    buyPlan: "Buy Plan",
    changePlan: "Change Subscription Plan",
    changePlanTitle: "Upgrade/Downgrade plan",
    updatePlan: "Update plan",
    close: "Close",
    cancelSubscription: "Cancel Subscription",
    cancelTitle: "Cancel your subscription?",
    keepSubscription: "Keep subscription",
    confirmCancel: "Yes, cancel",
    topUpTitle: "One time top-up packages",
    buy: "Buy",
    breakdown: {
      title: "What your balance is made of",
      none: "No credits left.",
      failed: "The breakdown of your credits could not be loaded. Reload the page to try again.",
      zoneNote: "Credits are spent in this order. Times are Berlin time (Europe/Berlin).",
    },
    usageLink: "See usage",
    lowBalance: {
      title: "Low-balance alert",
      enable: "E-mail me when my balance falls below",
      amount: "Credits",
      save: "Save alert",
      saving: "Saving…",
      helper: "One e-mail each time your balance falls below this amount, not one per charge.",
      loadFailed: "Your alert setting could not be loaded.",
      saved: (threshold: number) => `We will e-mail you when your balance falls below ${threshold} credits`,
      off: "Low-balance alert turned off",
      saveFailed: "The alert could not be saved. Please try again.",
    },
  },
  /** Shown under the login toast when the API says the e-mail address is not verified yet. */
  emailNotVerifiedHint:
    "Your e-mail address is not verified yet. Open the link in our e-mail, or request a new one.",
} as const;

/** Success toasts (spec sections 4, 7 and 8). */
export const TOAST = {
  loggedIn: "You're logged in successfully!",
  registered: "You're registered successfully!",
  verificationSent: "Email verification link sent successfully, please check your inbox or spam folder",
  passwordReset: "Password reset successfully, please login",
  /** The forgot-password success: the spec navigates to / and names no toast; this says what happened. */
  resetLinkSent:
    "If that address is registered, a reset link is on its way. Please check your inbox or spam folder",
  copied: "Copied to clipboard!",
  planUpdated: "Plan updated successfully",
  subscriptionCanceled: "Subscription canceled successfully",
} as const;

/** Error messages (spec section 8), plus the two the spec leaves open ("no handler shown"). */
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
  /** Not in the spec ("no handler shown"): a clear message for a failed plan change. */
  updatePlanFailed: "Your plan could not be changed. Please try again or contact support.",
  /** Not in the spec ("no handler shown"): a clear message for a failed top-up checkout. */
  topUpFailed: "The top-up checkout could not be started. Please try again or contact support.",
  loadFailed: "This could not be loaded. Please reload the page or try again later.",
  /** Not in the spec: the account (users/me) did not load although a session is stored. */
  accountLoadFailed: "Your account could not be loaded. Please reload the page or try again later.",
} as const;
