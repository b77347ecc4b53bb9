// Security events (ACCOUNT-SECURITY.md): sign-ins, sign-outs, two-factor and password changes,
// each an entry of the audit log in a transaction of its own, or of the change it records. The
// account's /profile/security lists them with the time, the address and the browser.
import { appendAudit } from "../audit/audit-log.ts";
import type { Db, Tx } from "../db/types.ts";

/** Where a request came from, as a security event records it. */
export interface RequestOrigin {
  ip: string | null;
  /** The User-Agent header, cut to a length a log line can hold. */
  userAgent: string | null;
}

export interface SecurityEvent {
  /** login.succeeded, login.failed, session.logout, mfa.enabled, ... */
  action: string;
  /** The account the event is about; null for a sign-in attempt at an unknown username. */
  userId: string | null;
  /** Who acted, as a person reads it: the account's username, or "unknown user". */
  actorLabel: string;
  origin: RequestOrigin;
  /** The team organisation the event is about (its activity log), if any. */
  orgId?: string | undefined;
  details?: Record<string, unknown>;
}

/** The longest User-Agent kept: browsers send about 150 characters. */
const USER_AGENT_MAX = 256;

export function requestOrigin(ip: string | null, userAgent: string | undefined): RequestOrigin {
  return { ip, userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null };
}

/** Appends the event in `tx` (call last in the transaction: the chain's lock is held to its end). */
export function appendSecurityEvent(tx: Tx, event: SecurityEvent, now: Date) {
  return appendAudit(
    tx,
    {
      actorId: event.userId,
      actorLabel: event.actorLabel,
      action: event.action,
      subjectUserId: event.userId,
      subjectOrgId: event.orgId ?? null,
      reason: null,
      details: { ...event.details, user_agent: event.origin.userAgent },
      ip: event.origin.ip,
    },
    now,
  );
}

/** Records an event that changes nothing else, in a transaction of its own. */
export async function recordSecurityEvent(db: Db, event: SecurityEvent, now: Date): Promise<void> {
  await db.transaction((tx) => appendSecurityEvent(tx, event, now));
}
