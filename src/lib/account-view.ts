// What the account islands show for a user, as plain functions (plan badge, balance, profile).
import type { Subscription, User } from "../../contract/account.ts";

/**
 * The contract's FREE_SUBSCRIPTION, repeated here because importing it would pull zod into every
 * page (account-view.test.ts checks the two stay equal).
 */
export const FREE_PLAN: Subscription = Object.freeze({
  plan: "FREE",
  product_id: null,
  status: "free",
  expires_at: null,
  cancel_at_period_end: false,
  scheduled_plan: null,
});

/** The subscription, with a missing or null one read as FREE (API-CONTRACT.md). */
export function subscriptionOf(user: User): Subscription {
  return user.subscription ?? FREE_PLAN;
}

/** A paid plan is any plan but FREE. */
export function hasPaidPlan(user: User | null): boolean {
  return user !== null && subscriptionOf(user).plan.toUpperCase() !== "FREE";
}

/**
 * Whether the organisation the answer is for is on a dispute hold (its keys' API calls are refused
 * 402); an answer without the field (another provider, an older API) is read as not held.
 */
export function onDisputeHold(user: User | null): boolean {
  return user?.dispute_hold === true;
}

// Credits are kept to the thousandth (the background remover costs 0.1 a person, a partial refund
// takes back 186.741): two digits rounded 863.259 up to 863.26, more than the account holds.
const BALANCE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

/** A credit balance for display: 5000 -> "5,000"; 12.5 -> "12.5"; 863.259 as it is. */
export function formatBalance(amount: number): string {
  return BALANCE.format(amount);
}
