// What the profile's plan dialogs say about each tier: credits (spec section 9) and the dialog's own
// concurrency figures ("up to 4 (B, C), 5 (D), 10 (E) per the dialog information"; the /plans
// marketing table keeps its own figures). Products are sorted by price, cheapest first.
import type { Subscription } from "../../contract/account.ts";
import { TIERS } from "../../contract/catalogue.ts";

const DIALOG_CONCURRENCY: Readonly<Record<string, number>> = { B: 4, C: 4, D: 5, E: 10 };

export interface PlanDetails {
  creditsPerMonth: number | null;
  concurrentRequests: number | null;
}

/** Credits and the dialog's concurrency for a tier name such as "Tier C"; nulls when unknown. */
export function dialogPlanDetails(planName: string): PlanDetails {
  const tier = TIERS.find((t) => t.name === planName);
  return {
    creditsPerMonth: tier?.creditsPerMonth ?? null,
    concurrentRequests: tier ? (DIALOG_CONCURRENCY[tier.key] ?? null) : null,
  };
}

/** Products by default price ascending (spec section 2), without changing the input. */
export function byPriceAscending<T extends { default_price: { unit_amount: number } }>(
  products: readonly T[],
): T[] {
  return [...products].sort((a, b) => a.default_price.unit_amount - b.default_price.unit_amount);
}

/**
 * Every plan the user could change to: all but the current one, and all but the one a change
 * already waits for. Chosen again, that one changed nothing and still said "Plan updated
 * successfully" (found by the QA walk-through); the dialog's note says it is scheduled.
 */
export function otherPlans<T extends { id: string; name: string }>(
  products: readonly T[],
  current: { product_id: string | null; plan: string; scheduled_plan?: string | null },
): T[] {
  return products.filter(
    (p) => p.id !== current.product_id && p.name !== current.plan && p.name !== current.scheduled_plan,
  );
}

/**
 * The current plan, to keep, when the end of the period holds something the user may take back: a
 * scheduled change or the cancellation. Choosing it sends the current plan to
 * POST /v1/update-subscription, which withdraws either (the mails say "you can change your mind").
 * Null when nothing is pending: then the dialog offers only the other plans, as the spec says. Null
 * too while a renewal's payment is failing (the server refuses changes then), and for a plan on a
 * price the catalogue no longer lists: sending the catalogue's product of the same name would
 * schedule a change to it, not withdraw anything.
 */
export function planToKeep<T extends { id: string }>(
  products: readonly T[],
  current: Pick<Subscription, "status" | "product_id" | "scheduled_plan" | "cancel_at_period_end">,
): T | null {
  if (current.status === "past_due") return null;
  if (current.scheduled_plan === null && !current.cancel_at_period_end) return null;
  return products.find((p) => p.id === current.product_id) ?? null;
}
