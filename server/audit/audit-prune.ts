// Pruning the audit log by retention (OPERATIONS.md): security events are kept 13 months, operator
// actions 10 years. Only a whole expired prefix of the chain is removed, so what stays is still one
// unbroken chain: a checkpoint row (audit_log_pruned) records the last removed row's hash, which
// the first kept row names as its previous hash, and the pruning writes its own entry to the log.
// Run as `npm run audit:prune` (the command line); the database lets a DELETE through only in the
// transaction that says it is pruning (migration 0007).
import { asc, gt, lte, sql } from "drizzle-orm";
import { type AuditRow, auditLog, auditLogPruned } from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { addBerlinMonths } from "../domain/berlin-time.ts";
import { appendAudit, lockChain } from "./audit-log.ts";

/**
 * The security events of an account (ACCOUNT-SECURITY.md): sign-ins, sign-outs, password, e-mail
 * and two-factor changes, passkeys; and the membership events of organisations (ORGANISATIONS.md:
 * invitations, joining, role and cap changes, removal and leaving), kept as long. Everything else
 * is an operator action (or the system's; org.create, org.rename, org.transfer, org.delete too),
 * kept ten years like the business records it explains.
 */
const SECURITY_EVENT_PREFIXES = [
  "login.",
  "logout",
  "session.",
  "password.",
  "email.",
  "mfa.",
  "passkey.",
  "recovery_codes.",
  "member.",
];

export const RETENTION_MONTHS = { securityEvent: 13, operatorAction: 120 } as const;

export function isSecurityEvent(action: string): boolean {
  return SECURITY_EVENT_PREFIXES.some((prefix) => action.startsWith(prefix));
}

/** Whether `row` may be removed at `now`: older than its kind's retention. */
export function isExpired(row: Pick<AuditRow, "action" | "at">, now: Date): boolean {
  const months = isSecurityEvent(row.action)
    ? RETENTION_MONTHS.securityEvent
    : RETENTION_MONTHS.operatorAction;
  return addBerlinMonths(row.at, months).getTime() <= now.getTime();
}

export type PruneResult =
  | { pruned: false }
  | { pruned: true; rows: number; throughSeq: number; lastHash: string };

/**
 * Removes the longest prefix of the chain whose every row is expired, in the caller's transaction
 * (under the chain's lock, as an append), and records it: a checkpoint and a `audit.prune` entry.
 */
export async function pruneAuditLog(tx: Tx, now: Date, pageSize = 1000): Promise<PruneResult> {
  await lockChain(tx);
  let last: AuditRow | undefined;
  let rows = 0;
  for (let after = 0; ; ) {
    const page = await tx
      .select()
      .from(auditLog)
      .where(gt(auditLog.seq, after))
      .orderBy(asc(auditLog.seq))
      .limit(pageSize);
    const stop = page.findIndex((row) => !isExpired(row, now));
    const expired = stop === -1 ? page : page.slice(0, stop);
    if (expired.length > 0) {
      last = expired.at(-1);
      rows += expired.length;
    }
    if (stop !== -1 || page.length < pageSize) break;
    after = page.at(-1)?.seq ?? after;
  }
  if (!last) return { pruned: false };
  await tx.execute(sql`select set_config('audit_log.pruning', 'on', true)`);
  await tx.delete(auditLog).where(lte(auditLog.seq, last.seq));
  await tx.execute(sql`select set_config('audit_log.pruning', 'off', true)`);
  await tx.insert(auditLogPruned).values({ throughSeq: last.seq, lastHash: last.hash, rows, prunedAt: now });
  await appendAudit(
    tx,
    {
      actorId: null,
      actorLabel: "command line",
      action: "audit.prune",
      subjectUserId: null,
      reason: "retention: security events 13 months, operator actions 10 years",
      details: { through_seq: last.seq, rows, last_hash: last.hash },
      ip: null,
    },
    now,
  );
  return { pruned: true, rows, throughSeq: last.seq, lastHash: last.hash };
}
