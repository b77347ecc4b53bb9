// The top bar's mark of a dispute hold, after the credit balance: the organisation's keys are
// refused 402 whatever the balance. Named in the API's words and where it leads: /profile, which
// explains the hold and links support. Its own chunk, loaded only for a held organisation: every page (the
// signed-out /login too) carries the account menu, and this costs them nothing.
import type { ReactNode } from "react";
import { DISPUTE_HOLD_TEXT } from "../../lib/dispute-hold-text.ts";

// ReactNode: AccountMenu loads it with a fallback that renders nothing (a chunk that failed).
export default function DisputeHoldMark(): ReactNode {
  return (
    <a
      href="/profile"
      className="badge badge-warning badge-sm shrink-0 font-bold"
      aria-label={DISPUTE_HOLD_TEXT.markLabel}
      title={DISPUTE_HOLD_TEXT.markLabel}
      data-dispute-hold-mark
    >
      !
    </a>
  );
}
