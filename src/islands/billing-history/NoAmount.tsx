// In place of the amount of a payment that moved no money (held back, declined or cancelled), as
// the billing history and auto top-up's attempts show it: a dash, read out as "none".
import { NO_AMOUNT } from "../../lib/payment-status-text.ts";

export function NoAmount() {
  return (
    <>
      <span aria-hidden="true">—</span>
      <span className="sr-only">{NO_AMOUNT}</span>
    </>
  );
}
