// `GET /v1/users/me/security-events`: the account's recent security events from the audit log
// (ACCOUNT-SECURITY.md), as /profile/security lists them. Browser-safe (zod/mini).
import * as z from "zod/mini";

/** How many events the page shows: the most recent first. */
export const SECURITY_EVENTS_SHOWN = 20;

/**
 * How many wrong passwords at sign-in are among them at most: anyone who knows the username can
 * add those, and must not push the account's own changes out of the list.
 */
export const WRONG_PASSWORDS_SHOWN = 5;

/** The audit actions that count as security events (a prefix ends with "."). */
export const SECURITY_EVENT_PREFIXES = [
  "login.",
  "session.",
  "password.",
  "email.",
  "mfa.",
  "passkey.",
  "api_key.",
  "api_keys.",
  "account.export",
] as const;

export const securityEventsSchema = z.object({
  data: z.array(
    z.object({
      /** The audit entry's id. */
      id: z.string(),
      at: z.string(),
      /** login.succeeded, mfa.enabled, ... */
      action: z.string(),
      ip: z.nullable(z.string()),
      /** "Chrome 131 on Windows", from the User-Agent recorded; null when it names no browser. */
      browser: z.nullable(z.string()),
    }),
  ),
  /** Wrong passwords at sign-in older than the WRONG_PASSWORDS_SHOWN listed. */
  wrong_passwords_not_listed: z.number(),
});
export type SecurityEvents = z.infer<typeof securityEventsSchema>;

/** `DELETE /v1/users/me`: the account's username, typed to confirm. */
export const deleteAccountSchema = z.object({
  confirm: z.string({ error: "Type your username to confirm" }).check(z.maxLength(100)),
});
