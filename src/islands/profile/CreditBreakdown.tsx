// /profile, next to the balance: which credits the balance is made of and when each part expires,
// in the order they are spent, with the time zone named (expiries are Berlin instants). Credits
// support granted are a line of their own, with what support wrote to the customer under it.
import { useStore } from "@nanostores/react";
import { useEffect } from "react";
import { describePart } from "../../lib/credit-breakdown.ts";
import { PROFILE_TEXT } from "../../lib/profile-text.ts";
import { $creditBreakdown, loadCreditBreakdown } from "../../stores/credits.ts";

const T = PROFILE_TEXT.breakdown;

export function CreditBreakdown({ balance }: { balance: number }) {
  const state = useStore($creditBreakdown);
  // A charge, a purchase or an expiry changes the balance: the parts are read again then.
  useEffect(() => {
    void loadCreditBreakdown(balance);
  }, [balance]);
  return (
    <div
      className="flex flex-col gap-1.5 sm:col-span-2"
      data-credit-breakdown
      aria-busy={state.status === "loading"}
    >
      <h3 className="text-sm font-medium">{T.title}</h3>
      {/* Two lines are kept while the parts load (most balances have one or two), so what follows
          does not move when they come. */}
      <div className="min-h-10 text-sm">
        {state.status === "failed" && (
          <p role="alert" className="alert alert-error">
            {T.failed}
          </p>
        )}
        {state.status === "ready" && state.parts.length === 0 && (
          <p className="text-base-content/80">{T.none}</p>
        )}
        {state.parts.length > 0 && (
          <ul className="list-inside list-disc">
            {state.parts.map((part) => (
              <li
                key={`${part.kind}-${part.expiresAt ?? "never"}-${part.goodwill ? `goodwill-${part.goodwill.note}` : ""}`}
                data-credit-part={part.goodwill ? "goodwill" : part.kind}
              >
                {describePart(part)}
                {part.goodwill?.note && (
                  <span className="block ps-5 text-base-content/80" data-goodwill-note>
                    “{part.goodwill.note}”
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      <p className="text-xs text-base-content/70">{T.zoneNote}</p>
    </div>
  );
}
