// An account's security events as its owner sees them (/profile/security and the data export):
// sign-ins, sign-outs, password, two-factor and API-key events from the audit log, newest first,
// with the address and the browser recorded (never staff actions or their reasons, which are
// support's to explain).
import { and, count, desc, eq, like, not, or, type SQL, sql } from "drizzle-orm";
import {
  SECURITY_EVENT_PREFIXES,
  SECURITY_EVENTS_SHOWN,
  WRONG_PASSWORDS_SHOWN,
} from "../../contract/security-events.ts";
import { auditLog } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { browserName } from "./browser-name.ts";

const isSecurityEvent = or(...SECURITY_EVENT_PREFIXES.map((prefix) => like(auditLog.action, `${prefix}%`)));

/**
 * A wrong password at sign-in: `login.failed` without a `step` (the code step and a re-authentication
 * name theirs; a password change writes `password.change_failed`). The only event anyone who knows
 * the username can add to an account's list, at the sign-in limits.
 */
const isWrongPassword = sql`(${auditLog.action} = 'login.failed' and not (${auditLog.details} ? 'step'))`;

async function eventRows(db: Db, userId: string, which: SQL | undefined, limit: number) {
  return db
    .select({
      seq: auditLog.seq,
      id: auditLog.id,
      at: auditLog.at,
      action: auditLog.action,
      ip: auditLog.ip,
      details: auditLog.details,
    })
    .from(auditLog)
    .where(and(eq(auditLog.subjectUserId, userId), which))
    .orderBy(desc(auditLog.seq))
    .limit(limit);
}

type EventRow = Awaited<ReturnType<typeof eventRows>>[number];

function shown(row: EventRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    action: row.action,
    ip: row.ip,
    browser: browserName(typeof row.details.user_agent === "string" ? row.details.user_agent : null),
  };
}

/** The account's `limit` most recent security events, every kind alike (the data export). */
export async function securityEventsOf(db: Db, userId: string, limit: number) {
  return (await eventRows(db, userId, isSecurityEvent, limit)).map(shown);
}

/**
 * What /profile/security lists: the most recent events, among them at most the WRONG_PASSWORDS_SHOWN
 * latest wrong passwords, and how many earlier wrong passwords are left out. Otherwise twenty wrong
 * passwords, four minutes' worth at the sign-in limits from anyone who knows the username, would push
 * a passkey added or an address changed out of the owner's sight.
 */
export async function recentSecurityEvents(db: Db, userId: string) {
  const [others, wrongPasswords, [total]] = await Promise.all([
    eventRows(db, userId, and(isSecurityEvent, not(isWrongPassword)), SECURITY_EVENTS_SHOWN),
    eventRows(db, userId, isWrongPassword, WRONG_PASSWORDS_SHOWN),
    db
      .select({ n: count() })
      .from(auditLog)
      .where(and(eq(auditLog.subjectUserId, userId), isWrongPassword)),
  ]);
  const listed = [...others, ...wrongPasswords].sort((a, b) => b.seq - a.seq).slice(0, SECURITY_EVENTS_SHOWN);
  const wrongPasswordsListed = listed.filter((row) => wrongPasswords.includes(row)).length;
  return {
    data: listed.map(shown),
    wrong_passwords_not_listed: (total?.n ?? 0) - wrongPasswordsListed,
  };
}
