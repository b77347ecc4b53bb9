// The staff member behind an operator action, and the audit entry the action writes in its own
// transaction: no effect without its entry, no entry without its effect (OPERATIONS.md).
import { and, desc, eq, or, sql } from "drizzle-orm";
import { ADMIN_TEXT } from "../../contract/admin-rules.ts";
import { isUserId, lockAccount } from "../accounts/users.ts";
import { type AuditEntry, appendAudit, checkStorable } from "../audit/audit-log.ts";
import type { AutoTopUpActor } from "../billing/auto-top-up/engine.ts";
import { type AuditRow, auditLog, type Role, type UserRow } from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { OperatorRefusal } from "./refusal.ts";

export interface Actor {
  id: string;
  /** The staff member's username, as the log shows them. */
  label: string;
  role: Role;
  ip: string | null;
}

/** The staff member as auto top-up's activity log names who changed it. */
export const autoTopUpActor = (actor: Actor): AutoTopUpActor => ({
  userId: actor.id,
  label: actor.label,
  ip: actor.ip,
});

/**
 * Staff may not grant credits to, refund, disable or change the role of their own account. The
 * customer is the row read (and locked) from the database, never the id as the request spelled it:
 * the database reads an id in forms a string comparison does not (decision 022).
 */
export function refuseOwnAccount(actor: Actor, customer: { id: string }, notOwnAccount: string): void {
  if (actor.id === customer.id) throw new OperatorRefusal(403, notOwnAccount);
}

/**
 * The customer's row, locked until the transaction ends (the lock every spend and grant of theirs
 * takes); 404 when there is none, 409 when its owner deleted it: a deleted account keeps only what
 * the law keeps (its invoices and payments), and no staff action may bring it back to life.
 */
export async function lockCustomer(tx: Tx, customerId: string): Promise<UserRow> {
  if (!isUserId(customerId)) throw new OperatorRefusal(404, ADMIN_TEXT.customerNotFound);
  const row = await lockAccount(tx, customerId);
  if (!row) throw new OperatorRefusal(404, ADMIN_TEXT.customerNotFound);
  if (row.deletedAt) throw new OperatorRefusal(409, ADMIN_TEXT.accountDeleted);
  return row;
}

type ActionEntry = Pick<AuditEntry, "action" | "subjectUserId" | "subjectOrgId" | "reason" | "details">;

/**
 * The audit entry of `actor`'s action, checked to be storable as it is hashed. An action whose
 * effect lies outside the database (the payment provider's) builds it before that effect: an entry
 * that cannot be written then stops the action before anything happened.
 */
export function auditEntryOf(actor: Actor, entry: ActionEntry): AuditEntry {
  return checkStorable({ actorId: actor.id, actorLabel: actor.label, ip: actor.ip, ...entry });
}

/** Appends the audit entry of `actor`'s action on `subjectUserId` (call last in the action's transaction). */
export function audit(tx: Tx, actor: Actor, entry: ActionEntry, now: Date): Promise<AuditRow> {
  return appendAudit(tx, auditEntryOf(actor, entry), now);
}

/**
 * The audit entry an earlier call with the same idempotency key wrote for this action on this
 * customer (a user id) or organisation (`{ orgId }`), if any: a money action repeated with its key
 * answers what the first did and does nothing more. Read under the customer's or organisation's
 * row lock, so two concurrent repeats see each other.
 */
const subjectId = (subject: string | { orgId: string }) =>
  typeof subject === "string" ? subject : subject.orgId;

export async function earlierKeyedAction(
  tx: Tx,
  subject: string | { orgId: string },
  action: string,
  idempotencyKey: string,
): Promise<AuditRow | undefined> {
  const [row] = await tx
    .select()
    .from(auditLog)
    .where(
      and(
        // A personal organisation's id is its user's: a key used on the customer page and then on
        // the organisation page (or the other way round) is the same action. A team organisation's
        // id is no user's, so either column names one subject.
        or(eq(auditLog.subjectUserId, subjectId(subject)), eq(auditLog.subjectOrgId, subjectId(subject))),
        eq(auditLog.action, action),
        sql`${auditLog.details}->>'idempotency_key' = ${idempotencyKey}`,
      ),
    )
    .orderBy(desc(auditLog.seq))
    .limit(1);
  return row;
}
