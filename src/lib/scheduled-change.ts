// /profile's sentence about what the end of the period brings. Apart from account-view.ts, which
// the top bar on every page loads, so that those pages do not carry the date formatting it needs.
import type { Subscription } from "../../contract/account.ts";
import { isoDay } from "./format-date.ts";

/** What is scheduled for the end of the period, in words, or null when nothing is. */
export function scheduledChange(subscription: Subscription): string | null {
  const day = isoDay(subscription.expires_at);
  const when = day ? ` on ${day}` : " at the end of the current period";
  if (subscription.cancel_at_period_end)
    return `Your subscription ends${when}; you keep your unexpired credits.`;
  if (subscription.scheduled_plan) return `Changes to ${subscription.scheduled_plan}${when}.`;
  return null;
}
