// An account's security events as its owner sees them (/profile/security and the data export):
// sign-ins, sign-outs, password, two-factor and API-key events from the audit log, newest first,
// with the address and the browser recorded (never staff actions or their reasons, which are
// support's to explain).
import { and, desc, eq, like, or } from "drizzle-orm";
import { SECURITY_EVENT_PREFIXES } from "../../contract/security-events.ts";
import { auditLog } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { browserName } from "./browser-name.ts";

export async function securityEventsOf(db: Db, userId: string, limit: number) {
  const rows = await db
    .select({
      id: auditLog.id,
      at: auditLog.at,
      action: auditLog.action,
      ip: auditLog.ip,
      details: auditLog.details,
    })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.subjectUserId, userId),
        or(...SECURITY_EVENT_PREFIXES.map((prefix) => like(auditLog.action, `${prefix}%`))),
      ),
    )
    .orderBy(desc(auditLog.seq))
    .limit(limit);
  return rows.map((row) => ({
    id: row.id,
    at: row.at.toISOString(),
    action: row.action,
    ip: row.ip,
    browser: browserName(typeof row.details.user_agent === "string" ? row.details.user_agent : null),
  }));
}
