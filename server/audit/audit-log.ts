// The audit log's two operations: append an entry in the transaction of the action it records, and
// verify the chain. Each row's hash is SHA-256 of the previous row's hash and the row's canonical
// JSON (RFC 8785, by `canonicalize`), so changing, removing or reordering any row breaks the chain
// from there on; the database refuses UPDATE, DELETE and TRUNCATE (db/schema/audit.ts).
//
// One chain, whatever the number of writers: an append takes a transaction-scoped advisory lock
// before it reads the last row, so two server processes (or the command line and a server) append
// one after the other, each after the other's commit. The lock is held until the action's
// transaction ends: append last in a transaction, after the work that might wait on other locks.
import { createHash, randomUUID } from "node:crypto";
import canonicalize from "canonicalize";
import { asc, desc, gt, sql } from "drizzle-orm";
import { type AuditRow, auditLog, auditLogPruned } from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";

/** The previous hash of the first row. */
export const GENESIS_HASH = "0".repeat(64);

/** Any constant works; it only has to be the same in every instance of this service. */
const AUDIT_CHAIN_LOCK = 7_314_925_002;

/** What an action or a security event records; the log adds its place, id, time and hashes. */
export interface AuditEntry {
  /** The staff member or user who acted; null for the system or the command line. */
  actorId: string | null;
  /** Who acted, as a person reads it: a username, "command line", "system". */
  actorLabel: string;
  /** Dotted: credits.grant, role.change, service_key.create, login.failed, ... */
  action: string;
  subjectUserId: string | null;
  /** The organisation the action was about (its activity log); omit for none. */
  subjectOrgId?: string | null | undefined;
  reason: string | null;
  /** What the action did; never a secret (no password, token, key secret or card number). */
  details: Record<string, unknown>;
  ip: string | null;
}

type HashedFields = Omit<AuditRow, "prevHash" | "hash" | "subjectOrgId"> & {
  subjectOrgId?: string | null | undefined;
};

/** The hash of a row: SHA-256 over the previous hash and the canonical JSON of every other column. */
export function auditHash(prevHash: string, row: HashedFields): string {
  const body = canonicalize({
    seq: row.seq,
    id: row.id,
    at: row.at.toISOString(),
    actor_id: row.actorId,
    actor_label: row.actorLabel,
    action: row.action,
    subject_user_id: row.subjectUserId,
    reason: row.reason,
    details: row.details,
    ip: row.ip,
    // Only when set: the rows written before organisations hash as they did (ORGANISATIONS.md).
    ...(row.subjectOrgId == null ? {} : { subject_org_id: row.subjectOrgId }),
  });
  if (body === undefined) throw new TypeError("An audit row has no JSON form");
  return createHash("sha256").update(prevHash).update(body).digest("hex");
}

/** Why an audit entry cannot be stored as it would be hashed: text or values from the request. */
export class UnstorableAuditEntry extends Error {}

/** A stored row that does not hash as it was hashed: a bug of ours (a normalisation), never input. */
export class AuditChainMismatch extends Error {}

/**
 * A text PostgreSQL stores as it is given: no U+0000 (text and jsonb refuse it) and no lone
 * surrogate (not Unicode; drivers replace it, so the stored row would no longer match its hash).
 */
const storableText = (text: string) => text.isWellFormed() && !text.includes("\u0000");

function checkValue(value: unknown, where: string): void {
  if (typeof value === "string") {
    if (!storableText(value)) throw new UnstorableAuditEntry(`${where} holds U+0000 or ill-formed Unicode`);
  } else if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new UnstorableAuditEntry(`${where} is not a finite number`);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      checkValue(item, `${where}[${i}]`);
    });
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      checkValue(key, `${where} key`);
      checkValue(item, `${where}.${key}`);
    }
  } else if (value !== null && typeof value !== "boolean") {
    throw new UnstorableAuditEntry(`${where} has no JSON form`);
  }
}

/**
 * Throws unless `entry` can be stored exactly as it is hashed. appendAudit checks every entry; an
 * action with an effect outside the database (a refund or a cancel at the payment provider) checks
 * its entry before that effect, so an entry that cannot be written never follows an effect that
 * cannot be undone.
 */
export function checkStorable(entry: AuditEntry): AuditEntry {
  checkValue(entry, "the entry");
  return entry;
}

/** Takes the chain's lock until the transaction ends: one writer at a time, on every instance. */
export async function lockChain(tx: Tx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK})`);
}

/** Appends `entry` as the chain's next row, in the caller's transaction (see the header on locking). */
export async function appendAudit(tx: Tx, entry: AuditEntry, now: Date): Promise<AuditRow> {
  checkStorable(entry);
  await lockChain(tx);
  const [last] = await tx
    .select({ seq: auditLog.seq, hash: auditLog.hash })
    .from(auditLog)
    .orderBy(desc(auditLog.seq))
    .limit(1);
  // An empty log after a pruning goes on from its checkpoint (pruning always leaves its own entry).
  const [start] = last
    ? []
    : await tx.select().from(auditLogPruned).orderBy(desc(auditLogPruned.throughSeq)).limit(1);
  const prevHash = last?.hash ?? start?.lastHash ?? GENESIS_HASH;
  const fields: HashedFields = {
    seq: (last?.seq ?? start?.throughSeq ?? 0) + 1,
    id: randomUUID(),
    at: now,
    ...entry,
    subjectOrgId: entry.subjectOrgId ?? null,
  };
  const [row] = await tx
    .insert(auditLog)
    .values({ ...fields, prevHash, hash: auditHash(prevHash, fields) })
    .returning();
  if (!row) throw new Error("The audit entry was not written");
  // Fail closed: the row as the database stores it must hash to what was computed before it was
  // stored. A value the database normalises (an id's case, a time's precision, a JSON number)
  // would otherwise break the chain for good, and audit:verify would stop at this row forever.
  // Throwing rolls the action's transaction back with it: no effect without its entry.
  if (auditHash(prevHash, row) !== row.hash) {
    throw new AuditChainMismatch(
      `The audit entry ${row.id} (${row.action}) reads back differently from what was hashed; nothing was written`,
    );
  }
  return row;
}

export type ChainCheck =
  | { ok: true; rows: number; head: string }
  | { ok: false; rows: number; seq: number; id: string; problem: string };

/**
 * Walks the chain from the first row and names the first row that does not hold: a row missing
 * before it, a previous hash that is not the row before's, or content that does not match its
 * hash. `head` is the last row's hash: kept outside the database (the operator's records), it also
 * shows a change to the last rows made together with their hashes.
 */
export async function verifyAuditChain(db: DbOrTx, pageSize = 1000): Promise<ChainCheck> {
  // After a pruning the chain starts at its newest checkpoint (audit-prune.ts).
  const [start] = await db.select().from(auditLogPruned).orderBy(desc(auditLogPruned.throughSeq)).limit(1);
  let prevHash = start?.lastHash ?? GENESIS_HASH;
  let last = start?.throughSeq ?? 0;
  let rows = 0;
  for (;;) {
    const page = await db
      .select()
      .from(auditLog)
      .where(gt(auditLog.seq, last))
      .orderBy(asc(auditLog.seq))
      .limit(pageSize);
    for (const row of page) {
      const broken = (problem: string): ChainCheck => ({
        ok: false,
        rows,
        seq: row.seq,
        id: row.id,
        problem,
      });
      if (row.seq !== last + 1) return broken(`row ${last + 1} is missing before it`);
      if (row.prevHash !== prevHash)
        return broken("its prev_hash is not the hash of the row before (this row or that one was changed)");
      if (auditHash(prevHash, row) !== row.hash) return broken("its content does not match its hash");
      prevHash = row.hash;
      last = row.seq;
      rows += 1;
    }
    if (page.length < pageSize) return { ok: true, rows, head: prevHash };
  }
}
