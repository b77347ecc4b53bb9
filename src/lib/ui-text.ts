// The spec's exact wording for the portal's pages (sections 2 and 4), in one place: the static
// shells use it now, and the islands that later hydrate the same places must use it too, so a
// visitor never sees the text change when JavaScript arrives.

export const UI_TEXT = {
  buySubscription: "Buy Subscription",
  logIn: "Log In",
  register: "Register",
  myAccount: "My Account",
  back: "Back",
  submit: "Submit",
  forgotPassword: {
    title: "Forgot Password?",
    emailPlaceholder: "Write your email",
    helper: "Enter your email to get a link to reset your password",
  },
} as const;
