// The toasts of /profile's plan and top-up actions (spec sections 7 and 8), beside the dialogs that
// show them (PlanActions, TopUps: chunks /profile loads on demand) instead of in UI_TEXT, whose
// module every page's shared JavaScript carries: the signed-out pages do not pay for them.

export const PLAN_ACTION_TEXT = {
  planUpdated: "Plan updated successfully",
  subscriptionCanceled: "Subscription canceled successfully",
  /** Not in the spec ("no handler shown"): a clear message for a failed plan change. */
  updatePlanFailed: "Your plan could not be changed. Please try again or contact support.",
  /** Not in the spec ("no handler shown"): a clear message for a failed top-up checkout. */
  topUpFailed: "The top-up checkout could not be started. Please try again or contact support.",
} as const;
