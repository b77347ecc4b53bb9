// Which message a failed call shows (spec section 8), as plain functions of the answer's status and
// `detail`, so the whole catalogue is one table test. `status` is undefined when no answer came.
import { ERROR_TEXT } from "./ui-text.ts";

/**
 * The API `detail` strings this mapping looks for. They are contract/messages.ts's DETAIL values,
 * repeated because importing that module would add every validation message to every page's
 * JavaScript; error-messages.test.ts checks that they stay equal.
 */
export const API_DETAIL = {
  emailNotVerified: "Email not verified",
  emailExists: "Email already exists.",
  usernameExists: "Username already exists.",
  tokenInvalidOrExpired: "Token is invalid or expired.",
  accountDisabled: "Account disabled. Contact support.",
} as const;

export interface FailedAnswer {
  /** HTTP status, or undefined when the request never got an answer (network error). */
  status: number | undefined;
  /** The answer's `detail`: a string, a 422 list, or anything else the server sent. */
  detail: unknown;
}

/** An answer's `detail` when it is a sentence (a 422 lists its fields instead). */
export const detailText = (detail: unknown): string => (typeof detail === "string" ? detail : "");

/**
 * Login: 401 -> the spec's authorisation message; no answer -> the generic 'Login failed'; 429 ->
 * the API's own "too many requests" (a credentials message would send the user looking for a typo);
 * every other status (400 wrong password, 403 e-mail not verified, 422) -> check your credentials.
 */
export function loginErrorMessage(failed: FailedAnswer): string {
  const { status } = failed;
  if (status === undefined) return ERROR_TEXT.loginFailed;
  if (isAccountDisabled(failed)) return API_DETAIL.accountDisabled;
  if (status === 401) return ERROR_TEXT.loginUnauthorized;
  if (status === 429) return ERROR_TEXT.tooManyRequests;
  return ERROR_TEXT.loginFailedCredentials;
}

/** A login or any signed-in call refused because staff disabled the account (OPERATIONS.md). */
export function isAccountDisabled({ status, detail }: FailedAnswer): boolean {
  return status === 403 && detailText(detail) === API_DETAIL.accountDisabled;
}

/** True when a failed login failed only because the e-mail address is not verified yet. */
export function isEmailNotVerified({ status, detail }: FailedAnswer): boolean {
  return status === 403 && detailText(detail).includes(API_DETAIL.emailNotVerified);
}

/**
 * Register: 401, the two duplicate messages (by the detail they contain), other 400, 429 (the API's
 * own words), other statuses, and no answer ('Network error. Please try again!').
 */
export function registerErrorMessage({ status, detail }: FailedAnswer): string {
  if (status === undefined) return ERROR_TEXT.networkError;
  if (status === 401) return ERROR_TEXT.registerUnauthorized;
  if (status === 400) {
    const text = detailText(detail);
    if (text.includes(API_DETAIL.emailExists)) return ERROR_TEXT.emailExists;
    if (text.includes(API_DETAIL.usernameExists)) return ERROR_TEXT.usernameExists;
    return ERROR_TEXT.registrationFailedDetails;
  }
  if (status === 429) return ERROR_TEXT.tooManyRequests;
  return ERROR_TEXT.registerFailedTryAgain;
}

/** The field a register error belongs to, so the form can also show it there. */
export function registerErrorField({ status, detail }: FailedAnswer): "email" | "username" | null {
  if (status !== 400) return null;
  const text = detailText(detail);
  if (text.includes(API_DETAIL.emailExists)) return "email";
  if (text.includes(API_DETAIL.usernameExists)) return "username";
  return null;
}

/**
 * Field messages from a 422 answer (`detail: [{loc: ["body", field], msg}]`): the first message per
 * field. The server uses the contract's messages, so they read exactly like the form's own.
 */
export function fieldErrorsFrom422({ status, detail }: FailedAnswer): Record<string, string> {
  const errors: Record<string, string> = {};
  if (status !== 422 || !Array.isArray(detail)) return errors;
  for (const item of detail as unknown[]) {
    if (typeof item !== "object" || item === null) continue;
    const { loc, msg } = item as { loc?: unknown; msg?: unknown };
    if (!Array.isArray(loc) || typeof msg !== "string") continue;
    const field = loc.at(-1);
    if (typeof field === "string" && field !== "body" && !(field in errors)) errors[field] = msg;
  }
  return errors;
}

/** Cancel, resend-verification, reset and forgot-password failures: one message (429 says "later"). */
export function accountActionErrorMessage({ status }: FailedAnswer): string {
  return status === 429 ? ERROR_TEXT.tooManyRequests : ERROR_TEXT.oops;
}

/** A password reset that the server refused because the link's token is no good. */
export function isInvalidToken({ status, detail }: FailedAnswer): boolean {
  return status === 400 && detailText(detail).includes(API_DETAIL.tokenInvalidOrExpired);
}
