// What billing throws when it refuses a request: the code of the refusal, with the status and
// message the contract gives it (domain/billing-errors.ts). Billing knows nothing of HTTP; the
// HTTP edge's error handler (http/errors.ts) answers a refusal with its status and message.
import { type BillingErrorCode, billingError } from "../domain/billing-errors.ts";

export class BillingRefusal extends Error {
  readonly code: BillingErrorCode;
  readonly status: number;
  constructor(code: BillingErrorCode) {
    const { status, message } = billingError(code);
    super(message);
    this.name = "BillingRefusal";
    this.code = code;
    this.status = status;
  }
}
