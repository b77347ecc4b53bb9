// Reads and validates request bodies with the contract's schemas. Whatever arrives (no body, the
// wrong content type, broken JSON, an array, a number) ends as a 422 in FastAPI's shape, never a 500.
import type { Context } from "hono";
import type * as z from "zod/mini";
import { BODY_ERRORS, VALIDATION } from "../../contract/messages.ts";
import { addressRefusal, isReservedAddress } from "../auth/mailbox.ts";
import { RequestValidationError, type ValidationItem } from "./errors.ts";

type Issue = { path: PropertyKey[]; message: string };

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** zod issues -> FastAPI's `detail` items: `{loc: ["body", field], msg, type}`. */
export function validationItems(issues: readonly Issue[], input: unknown, where = "body"): ValidationItem[] {
  return issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
    if (path.length === 0) return { loc: [where], msg: BODY_ERRORS.notAnObject, type: "type_error" };
    return {
      loc: [where, ...path],
      msg: issue.message,
      type: valueAt(input, issue.path) === undefined ? "missing" : "value_error",
    };
  });
}

/** `input` (already read) checked against `schema`: its data, or a 422 with the issues. */
export function parseWith<T extends z.ZodMiniType>(schema: T, input: unknown, where = "body"): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new RequestValidationError(validationItems(result.error.issues, input, where));
  return result.data as z.infer<T>;
}

/**
 * A 422 beside the body's `email` when the address may not become an account's or be invited
 * (reserved or disposable, auth/mailbox.ts): registration, an address change and an invitation.
 */
export function refuseUnusableAddress(address: string): void {
  const refused = addressRefusal(address);
  if (refused !== null) throw new RequestValidationError([emailProblem(refused)]);
}

const emailProblem = (msg: string): ValidationItem => ({ loc: ["body", "email"], msg, type: "value_error" });

/**
 * The 422's item beside the body's `email` when mail sent there never arrives (a reserved domain,
 * auth/mailbox.ts), in the words registration uses; null when it may (or is no string). For the
 * addresses that receive mail without becoming an account's: the billing details' invoice address.
 * A disposable domain stays allowed there: it receives mail, and no free credits hang on it.
 */
export function reservedAddressProblem(address: unknown): ValidationItem | null {
  return typeof address === "string" && isReservedAddress(address)
    ? emailProblem(VALIDATION.emailReserved)
    : null;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^(?:application\/x-www-form-urlencoded|multipart\/form-data)\s*(?:;|$)/i;

export async function parseJsonBody<T extends z.ZodMiniType>(c: Context, schema: T): Promise<z.infer<T>> {
  if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) {
    throw new RequestValidationError([
      { loc: ["body"], msg: BODY_ERRORS.wrongJsonContentType, type: "content_type" },
    ]);
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new RequestValidationError([{ loc: ["body"], msg: BODY_ERRORS.notJson, type: "json_invalid" }]);
  }
  return parseWith(schema, body, "body");
}

const URLENCODED_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/**
 * A urlencoded form as `c.req.parseBody({ all: true })` gives it (a repeated field, or one named
 * `x[]`, as an array), read with the platform's URLSearchParams: Hono reads every form through a
 * web Response's formData(), 30 to 40 µs a call against 2 µs, on each login and introspection.
 */
export function urlencodedFields(text: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = form[key];
    if (seen === undefined) form[key] = key.endsWith("[]") ? [value] : value;
    else if (Array.isArray(seen)) seen.push(value);
    else form[key] = [seen, value];
  }
  return form;
}

export async function parseFormBody<T extends z.ZodMiniType>(c: Context, schema: T): Promise<z.infer<T>> {
  if (!FORM_TYPE.test(c.req.header("content-type") ?? "")) {
    throw new RequestValidationError([
      { loc: ["body"], msg: BODY_ERRORS.wrongFormContentType, type: "content_type" },
    ]);
  }
  let body: Record<string, unknown>;
  try {
    // all: repeated fields arrive as arrays and fail validation instead of one silently winning.
    body = URLENCODED_TYPE.test(c.req.header("content-type") ?? "")
      ? urlencodedFields(await c.req.text())
      : await c.req.parseBody({ all: true });
  } catch {
    throw new RequestValidationError([
      { loc: ["body"], msg: BODY_ERRORS.wrongFormContentType, type: "content_type" },
    ]);
  }
  return parseWith(schema, body, "body");
}
