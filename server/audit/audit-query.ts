// Reading the audit log: a page of entries, newest first, filtered by actor, subject, action and
// time (the console's audit page and a customer's trail), and the whole filtered log as a CSV
// streamed oldest first, in the order of the chain.
import { and, asc, desc, eq, gt, gte, lt, type SQL } from "drizzle-orm";
import type { AuditEntryView } from "../../contract/admin.ts";
import { isUserId } from "../accounts/users.ts";
import { pagedCsvStream } from "../csv/paged-csv.ts";
import { type AuditRow, auditLog, users } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { browserName } from "./browser-name.ts";

export const AUDIT_PAGE_SIZE = 50;
const CSV_PAGE_SIZE = 1000;

export interface AuditFilter {
  /** A user id: entries by that staff member or user. */
  actor?: string | undefined;
  /** A user id: entries about that account. */
  subject?: string | undefined;
  /** An organisation id: entries about that organisation (subject_org_id). */
  subjectOrg?: string | undefined;
  /** An action ("credits.grant"), or its family with a trailing dot ("credits."). */
  action?: string | undefined;
  /** Entries at or after `from` and before `to`. */
  from?: Date | undefined;
  to?: Date | undefined;
}

/** The filter's conditions; an actor or subject that cannot be a user id matches nothing. */
function conditions(filter: AuditFilter): SQL[] | undefined {
  const where: SQL[] = [];
  if (filter.actor !== undefined) {
    if (!isUserId(filter.actor)) return undefined;
    where.push(eq(auditLog.actorId, filter.actor));
  }
  if (filter.subject !== undefined) {
    if (!isUserId(filter.subject)) return undefined;
    where.push(eq(auditLog.subjectUserId, filter.subject));
  }
  if (filter.subjectOrg !== undefined) {
    if (!isUserId(filter.subjectOrg)) return undefined;
    where.push(eq(auditLog.subjectOrgId, filter.subjectOrg));
  }
  if (filter.action) {
    // A family ("credits.") is a range of the action index: ["credits.", "credits/").
    if (filter.action.endsWith(".")) {
      const end = `${filter.action.slice(0, -1)}/`;
      where.push(gte(auditLog.action, filter.action), lt(auditLog.action, end));
    } else where.push(eq(auditLog.action, filter.action));
  }
  if (filter.from) where.push(gte(auditLog.at, filter.from));
  if (filter.to) where.push(lt(auditLog.at, filter.to));
  return where;
}

/** The subject's names as the users table has them now (null for no subject or no such row). */
interface SubjectNames {
  username: string | null;
  email: string | null;
}

/**
 * An entry as the API answers it. The chain's canonical JSON (audit-log.ts) is kept apart on
 * purpose: the hashed form must never change with the API's. Beside the stored fields, two a reader
 * needs: the subject's names today, and the browser read from the stored User-Agent (parsed here so
 * that the console's pages carry no parser).
 */
export function auditView(row: AuditRow, subject: SubjectNames): AuditEntryView {
  const userAgent = row.details.user_agent;
  return {
    id: row.id,
    seq: row.seq,
    at: row.at.toISOString(),
    actor_id: row.actorId,
    actor_label: row.actorLabel,
    action: row.action,
    subject_user_id: row.subjectUserId,
    subject_username: subject.username,
    subject_email: subject.email,
    reason: row.reason,
    details: row.details,
    ip: row.ip,
    browser: browserName(typeof userAgent === "string" ? userAgent : null),
  };
}

/** A page of entries, newest first; the cursor is the last entry's place in the chain. */
export async function listAudit(
  db: DbOrTx,
  filter: AuditFilter,
  cursor: string | undefined,
  pageSize = AUDIT_PAGE_SIZE,
): Promise<{ data: AuditEntryView[]; next_cursor: string | null }> {
  const where = conditions(filter);
  const before = cursor === undefined ? undefined : Number(cursor);
  if (!where || (before !== undefined && !(Number.isSafeInteger(before) && before > 0))) {
    return { data: [], next_cursor: null };
  }
  if (before !== undefined) where.push(lt(auditLog.seq, before));
  const rows = await db
    .select({ row: auditLog, username: users.username, email: users.email })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.subjectUserId))
    .where(and(...where))
    .orderBy(desc(auditLog.seq))
    .limit(pageSize + 1);
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    data: page.map(({ row, ...subject }) => auditView(row, subject)),
    next_cursor: rows.length > pageSize && last ? String(last.row.seq) : null,
  };
}

export const AUDIT_CSV_COLUMNS = [
  "seq",
  "at",
  "actor_id",
  "actor",
  "action",
  "subject_user_id",
  "reason",
  "details",
  "ip",
  "hash",
] as const;

/** The filtered log as CSV, oldest first, read 1,000 entries at a time as the client takes them. */
export function auditCsvStream(db: DbOrTx, filter: AuditFilter): ReadableStream<Uint8Array> {
  const where = conditions(filter);
  return pagedCsvStream<AuditRow, number>({
    header: AUDIT_CSV_COLUMNS,
    cells: (r) => [
      r.seq,
      r.at.toISOString(),
      r.actorId ?? "",
      r.actorLabel,
      r.action,
      r.subjectUserId ?? "",
      r.reason ?? "",
      JSON.stringify(r.details),
      r.ip ?? "",
      r.hash,
    ],
    readPage: async (after, limit) =>
      where
        ? db
            .select()
            .from(auditLog)
            .where(and(...where, gt(auditLog.seq, after ?? 0)))
            .orderBy(asc(auditLog.seq))
            .limit(limit)
        : [],
    cursorOf: (row) => row.seq,
    pageSize: CSV_PAGE_SIZE,
  });
}
