// The audit log: one append-only, hash-chained table for every operator action and every security
// event of an account (OPERATIONS.md, ACCOUNT-SECURITY.md). The database itself refuses UPDATE,
// DELETE and TRUNCATE on it (a trigger, in the migration), and each row's hash covers the hash of
// the row before, so an edit anywhere shows in `npm run audit:verify` (server/audit/).
//
// No foreign keys: the log outlives the accounts it names (a deleted account's entries stay, with
// the user id as their only link), and a cascade would try to delete rows the trigger refuses.
import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const auditLog = pgTable(
  "audit_log",
  {
    /** The row's place in the chain: 1, 2, 3, ... without gaps. */
    seq: bigint("seq", { mode: "number" }).primaryKey(),
    id: uuid("id").notNull().unique(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    /** The staff member or user who acted; null for the system or the command line. */
    actorId: uuid("actor_id"),
    /** Who acted, as a person reads it: a username, "command line", "system". */
    actorLabel: text("actor_label").notNull(),
    /** Dotted: credits.grant, role.change, service_key.create, login.failed, ... */
    action: text("action").notNull(),
    /** The account the action was about, if any. */
    subjectUserId: uuid("subject_user_id"),
    /**
     * The organisation the action was about (its activity log). Hashed when not null and left out
     * of the hashed JSON when null, so the rows written before it existed still verify.
     */
    subjectOrgId: uuid("subject_org_id"),
    reason: text("reason"),
    /** What the action did, in JSON; never a secret. */
    details: jsonb("details").$type<Record<string, unknown>>().notNull(),
    ip: text("ip"),
    /** The hash of the row before (64 zeros for the first). */
    prevHash: text("prev_hash").notNull(),
    /** Hex SHA-256 of prev_hash and the row's canonical JSON. */
    hash: text("hash").notNull(),
  },
  (t) => [
    index("audit_log_subject_idx").on(t.subjectUserId, t.seq),
    index("audit_log_subject_org_idx").on(t.subjectOrgId, t.seq),
    index("audit_log_actor_idx").on(t.actorId, t.seq),
    index("audit_log_action_idx").on(t.action, t.seq),
    index("audit_log_at_idx").on(t.at),
    check("audit_log_seq_positive", sql`${t.seq} > 0`),
  ],
);

export type AuditRow = typeof auditLog.$inferSelect;

/**
 * Where the chain starts after a pruning (`npm run audit:prune`, audit-prune.ts): the rows up to
 * `throughSeq` were removed, and the first row kept names `lastHash` as its previous hash. Rows are
 * only added; the newest says where verification starts.
 */
export const auditLogPruned = pgTable("audit_log_pruned", {
  throughSeq: bigint("through_seq", { mode: "number" }).primaryKey(),
  lastHash: text("last_hash").notNull(),
  rows: bigint("rows", { mode: "number" }).notNull(),
  prunedAt: timestamp("pruned_at", { withTimezone: true }).notNull(),
});
