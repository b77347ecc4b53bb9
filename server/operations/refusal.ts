// What the operator actions throw when they refuse: the status the contract gives the refusal and
// its message, and any figure the caller needs (a take-back over the unspent credits names them).
// The HTTP edge answers it as `{detail, ...extra}` (http/errors.ts); the core knows nothing of HTTP.
export class OperatorRefusal extends Error {
  readonly status: 403 | 404 | 409 | 422;
  readonly extra: Record<string, unknown>;
  constructor(status: 403 | 404 | 409 | 422, detail: string, extra: Record<string, unknown> = {}) {
    super(detail);
    this.name = "OperatorRefusal";
    this.status = status;
    this.extra = extra;
  }
}
