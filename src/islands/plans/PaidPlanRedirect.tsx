// /plans is for choosing a first plan: a logged-in user on a paid plan is sent to / (spec section 2).
import { useEffect } from "react";
import { hasPaidPlan } from "../../lib/account-view.ts";
import { redirect } from "../../lib/navigation.ts";
import { useSession } from "../auth/use-session.ts";

export default function PaidPlanRedirect() {
  const { user } = useSession();
  useEffect(() => {
    if (hasPaidPlan(user)) redirect("/");
  }, [user]);
  return null;
}
