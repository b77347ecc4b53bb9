// Error answers. Every error is JSON with `detail` (FastAPI style): an ApiError carries the
// contract's status and message, and so does billing's own BillingRefusal (billing knows nothing
// of HTTP); a RequestValidationError becomes the 422 list; anything else is a bug, logged and
// answered with a bare 500.
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { DETAIL } from "../../contract/messages.ts";
import { UnstorableAuditEntry } from "../audit/audit-log.ts";
import { BillingRefusal } from "../billing/refusal.ts";
import { OperatorRefusal } from "../operations/refusal.ts";
import { redactPath } from "./request-log.ts";

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly detail: string;
  readonly headers: Record<string, string>;
  /** Fields the answer carries beside `detail` (`reauth_required: true`). */
  readonly extra: Record<string, unknown>;
  constructor(
    status: ContentfulStatusCode,
    detail: string,
    headers: Record<string, string> = {},
    extra: Record<string, unknown> = {},
  ) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.headers = headers;
    this.extra = extra;
  }
}

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class RequestValidationError extends Error {
  readonly items: ValidationItem[];
  constructor(items: ValidationItem[]) {
    super("Request validation failed");
    this.items = items;
  }
}

export function jsonError(
  c: Context,
  status: ContentfulStatusCode,
  detail: string,
  headers: Record<string, string> = {},
) {
  return c.json({ detail }, status, headers);
}

export function errorHandler(logger: Logger): ErrorHandler {
  return (error, c) => {
    if (error instanceof ApiError) {
      return c.json({ detail: error.detail, ...error.extra }, error.status, error.headers);
    }
    if (error instanceof BillingRefusal)
      return jsonError(c, error.status as ContentfulStatusCode, error.message);
    if (error instanceof OperatorRefusal)
      return c.json({ detail: error.message, ...error.extra }, error.status);
    if (error instanceof RequestValidationError) return c.json({ detail: error.items }, 422);
    // Text the request carried that the audit log could not store as hashed (a field the edge's
    // free-text checks do not cover): the action was refused before any effect.
    if (error instanceof UnstorableAuditEntry) return jsonError(c, 422, DETAIL.unstorableText);
    if (error instanceof HTTPException && error.status < 500) {
      return jsonError(c, error.status as ContentfulStatusCode, error.message || "Bad Request");
    }
    // The path as the request log writes it: a mailed token in it stays out of the log.
    logger.error({ err: error, method: c.req.method, path: redactPath(c.req.path) }, "Unhandled error");
    return jsonError(c, 500, DETAIL.internalError);
  };
}
