// The words of /profile (the account, plan actions, top-ups, the credits breakdown and the
// low-balance alert), kept out of UI_TEXT (which every page's islands load) so that only /profile
// carries them.

import { FAILED_RENEWAL_TEXT } from "./failed-renewal-text.ts";

export const PROFILE_TEXT = {
  ...FAILED_RENEWAL_TEXT,
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
  /** The dialog's first line: the plan now, and when a change would start. */
  changePlanIntro: (plan: string, periodEnd: string | null) =>
    `You are on ${plan}. The new plan starts when your current period ends${periodEnd ? `, on ${periodEnd}` : ""}.`,
  /** The current plan as a choice, offered while a change or the cancellation is pending. */
  keepPlan: (plan: string) => `Keep ${plan}`,
  keepPlanNote: (pending: { scheduledPlan: string | null; cancelling: boolean }) =>
    pending.cancelling
      ? "Withdraws the cancellation: the plan renews as before."
      : `Withdraws the change to ${pending.scheduledPlan}.`,
  close: "Close",
  cancelSubscription: "Cancel Subscription",
  cancelTitle: "Cancel your subscription?",
  keepSubscription: "Keep subscription",
  confirmCancel: "Yes, cancel",
  /** A renewal whose payment failed: cancelling ends the plan at once (server/domain/subscription.ts). */
  cancelPastDue: (plan: string) =>
    `Your ${plan} plan's last payment failed, so cancelling ends it now, without a refund. You are then on the Free plan and keep your unexpired credits.`,
  /** What cancelling keeps and until when; a change scheduled for the period's end goes with it. */
  cancelBody: (plan: string, periodEnd: string | null, scheduledPlan: string | null) =>
    `Your ${plan} plan and its credits stay until ${periodEnd ? `${periodEnd}, ` : ""}the end of the current period. After that you are on the Free plan and keep your unexpired credits.${scheduledPlan ? ` The change to ${scheduledPlan} scheduled for then is dropped.` : ""}`,
  topUpTitle: "One time top-up packages",
  buy: "Buy",
  breakdown: {
    title: "What your balance is made of",
    none: "No credits left.",
    failed: "The breakdown of your credits could not be loaded. Reload the page to try again.",
    zoneNote: "Credits are spent in this order. Times are Berlin time (Europe/Berlin).",
  },
  usageLink: "See usage",
  /** /profile's last two sections: each holds the links its title names. */
  apiAccessTitle: "API keys and usage",
  /** The same section for a billing member, who makes no keys (ORGANISATIONS.md "Roles"). */
  usageTitle: "Usage",
  usageIntro: "What the organisation's API keys have spent, by day, feature, key and member.",
  manageKeys: "Manage API keys",
  accountTitle: "Billing and security",
  accountIntro:
    "Your invoices, billing details and payment method; your password, two-factor sign-in and the " +
    "places you are signed in.",
  /** The same section for a role without billing (a manager, a developer): security alone. */
  securityTitle: "Security",
  securityIntro: "Your password, two-factor sign-in and the places you are signed in.",
  /** For a team organisation, and creating one (ORGANISATIONS.md "Pages"). */
  organisation: {
    field: "Organisation",
    /** Read before the role's badge beside the organisation's name, for assistive technology. */
    role: "Your role",
    title: "Organisations",
    intro:
      "An organisation shares one balance, one plan and one invoice among its members. It starts on " +
      "the Free plan with no credits; you are its owner.",
    membersLink: (org: string) => `Members of ${org}`,
    billingByOthers:
      "The organisation's plan, top-ups and low-balance alert are managed by its owners and billing members.",
  },
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
} as const;
