// /payment/{status}: 'Payment Successful!' with 'Go to Dashboard' (to /) when status is success,
// otherwise 'Payment Failed' with 'Try again' (to /plans). Refreshes the user either way, so the
// top bar shows the new plan and balance (the provider's webhook may land a moment later: the
// success page asks again a few times until the plan or balance changes). A customer already on a
// paid plan was buying a top-up: their 'Try again' is /profile, where the packs are, since /plans
// would send them to / (spec section 2).
import { useEffect, useState } from "react";
import { hasPaidPlan } from "../../lib/account-view.ts";
import { PAYMENT_TEXT } from "../../lib/payment-text.ts";
import { routeParam } from "../../lib/route-param.ts";
import { refreshUserUntilChanged } from "../../stores/auth.ts";
import { LoadingState } from "../auth/LoadingState.tsx";
import { useSession } from "../auth/use-session.ts";

export default function PaymentResult() {
  const [status, setStatus] = useState<"unknown" | "success" | "failed">("unknown");
  const { user } = useSession();

  useEffect(() => {
    const success = routeParam(window.location.pathname, "/payment/") === "success";
    setStatus(success ? "success" : "failed");
    void refreshUserUntilChanged(success ? 5 : 0);
  }, []);

  if (status === "unknown") return <LoadingState message="Checking your payment…" />;
  if (status === "success") {
    return (
      <div className="flex flex-col items-center gap-4 text-center" data-payment-result="success">
        <h2 className="flex items-center gap-2 text-xl font-bold">
          <span className="status status-success status-lg" aria-hidden="true" />
          {PAYMENT_TEXT.success}
        </h2>
        <p className="text-base-content/80">Thank you! Your credits are on their way to your account.</p>
        <a href="/" className="btn btn-primary">
          {PAYMENT_TEXT.goToDashboard}
        </a>
      </div>
    );
  }
  return (
    <div className="flex flex-col items-center gap-4 text-center" data-payment-result="failed">
      <h2 className="flex items-center gap-2 text-xl font-bold">
        <span className="status status-error status-lg" aria-hidden="true" />
        {PAYMENT_TEXT.failed}
      </h2>
      <p className="text-base-content/80">
        Your card was not charged. You can try again or pick another plan.
      </p>
      <a href={hasPaidPlan(user) ? "/profile" : "/plans"} className="btn btn-primary">
        {PAYMENT_TEXT.tryAgain}
      </a>
    </div>
  );
}
