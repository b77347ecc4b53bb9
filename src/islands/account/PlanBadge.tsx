// The top bar's plan badge: the plan name for a paid plan, otherwise 'Buy Subscription' to /plans
// (nothing for a team member whose role does not buy).
import { seesBilling } from "../../../contract/account-area.ts";
import { hasPaidPlan, subscriptionOf } from "../../lib/account-view.ts";
import { UI_TEXT } from "../../lib/ui-text.ts";
import { useSession } from "../auth/use-session.ts";

interface Props {
  /** The desktop bar styles it as a button; the mobile menu as a menu row. */
  variant: "desktop" | "mobile";
  /** True on /plans, so the link shows as the current page. */
  current?: boolean;
}

// The island's wrapper element sits between the menu's <li> and this link, so the menu's own
// item styles do not reach it: the row spacing is given here.
const MOBILE_ROW = "flex items-center gap-2 rounded-field px-3 py-1.5 hover:bg-base-content/10";

export default function PlanBadge({ variant, current = false }: Props) {
  const { user } = useSession();
  if (user && hasPaidPlan(user)) {
    const plan = subscriptionOf(user).plan;
    return (
      <a href="/profile" className={variant === "desktop" ? "btn btn-ghost btn-sm gap-2" : MOBILE_ROW}>
        <span className="sr-only">Your plan: </span>
        <span className="badge badge-primary badge-sm font-semibold" data-plan-badge>
          {plan}
        </span>
      </a>
    );
  }
  // A member whose role does not buy is not offered a subscription (ORGANISATIONS.md).
  if (user && !seesBilling(user.organization)) return null;
  return (
    <a
      href="/plans"
      className={variant === "desktop" ? `btn btn-ghost btn-sm${current ? " btn-active" : ""}` : MOBILE_ROW}
      aria-current={current ? "page" : undefined}
    >
      {UI_TEXT.buySubscription}
    </a>
  );
}
