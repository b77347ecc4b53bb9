// The staff member behind an operator action, and the audit entry the action writes in its own
// transaction: no effect without its entry, no entry without its effect (OPERATIONS.md).
import { and, desc, eq, sql } from "drizzle-orm";
import { type AuditEntry, appendAudit } from "../audit/audit-log.ts";
import { type AuditRow, auditLog, type Role } from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { OperatorRefusal } from "./refusal.ts";

export interface Actor {
  id: string;
  /** The staff member's username, as the log shows them. */
  label: string;
  role: Role;
  ip: string | null;
}

/** Staff may not grant credits to, refund, disable or change the role of their own account. */
export function refuseOwnAccount(actor: Actor, customerId: string, notOwnAccount: string): void {
  if (actor.id === customerId) throw new OperatorRefusal(403, notOwnAccount);
}

/** Appends the audit entry of `actor`'s action on `subjectUserId` (call last in the action's transaction). */
export function audit(
  tx: Tx,
  actor: Actor,
  entry: Pick<AuditEntry, "action" | "subjectUserId" | "reason" | "details">,
  now: Date,
): Promise<AuditRow> {
  return appendAudit(tx, { actorId: actor.id, actorLabel: actor.label, ip: actor.ip, ...entry }, now);
}

/**
 * The audit entry an earlier call with the same idempotency key wrote for this action on this
 * customer, if any: a money action repeated with its key answers what the first did and does
 * nothing more. Read under the customer's row lock, so two concurrent repeats see each other.
 */
export async function earlierKeyedAction(
  tx: Tx,
  subjectUserId: string,
  action: string,
  idempotencyKey: string,
): Promise<AuditRow | undefined> {
  const [row] = await tx
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.subjectUserId, subjectUserId),
        eq(auditLog.action, action),
        sql`${auditLog.details}->>'idempotency_key' = ${idempotencyKey}`,
      ),
    )
    .orderBy(desc(auditLog.seq))
    .limit(1);
  return row;
}
