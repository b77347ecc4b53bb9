// Pruning the audit log by retention, on PGlite and PostgreSQL: only a whole expired prefix goes,
// the rest verifies as one chain from the checkpoint, the pruning is itself in the log, and the
// database still refuses any DELETE that is not a pruning.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { auditLog, auditLogPruned } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { useTestApp } from "../testing/suite.ts";
import { type AuditEntry, appendAudit, verifyAuditChain } from "./audit-log.ts";
import { isExpired, isSecurityEvent, pruneAuditLog } from "./audit-prune.ts";

const NOW = new Date("2026-11-25T10:00:00.000Z");
const ago = (months: number, days = 0) => new Date(Date.UTC(2026, 10 - months, 25 - days, 10));

const entry = (action: string): AuditEntry => ({
  actorId: null,
  actorLabel: "system",
  action,
  subjectUserId: null,
  reason: null,
  details: {},
  ip: null,
});

describe("retention", () => {
  it.each([
    ["login.failed", true],
    ["password.change", true],
    ["mfa.enable", true],
    ["credits.grant", false],
    ["payment.refund", false],
    ["role.change", false],
    ["member.invite", true],
    ["member.leave", true],
    ["org.delete", false],
    ["org.transfer", false],
  ])("%s is a security event: %s", (action, security) => {
    expect(isSecurityEvent(action)).toBe(security);
  });

  it.each([
    ["a failed login of 13 months and a day", "login.failed", ago(13, 1), true],
    ["a failed login of 12 months", "login.failed", ago(12), false],
    ["a grant of 10 years and a day", "credits.grant", ago(120, 1), true],
    ["a grant of 9 years", "credits.grant", ago(108), false],
    ["a grant of 13 months", "credits.grant", ago(13, 1), false],
    ["a member's role change of 13 months and a day", "member.role_change", ago(13, 1), true],
    ["an organisation's deletion of 13 months and a day", "org.delete", ago(13, 1), false],
  ])("%s expired: %s", (_case, action, at, expired) => {
    expect(isExpired({ action, at }, NOW)).toBe(expired);
  });
});

describe.each(TEST_DATABASES)("audit:prune (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const db = () => ctx.t.deps.db as Db;
  const append = (action: string, at: Date) => db().transaction((tx) => appendAudit(tx, entry(action), at));

  it("removes only the whole expired prefix, records it, and leaves one verifiable chain", async () => {
    await append("role.change", ago(121)); // expired (10 years)
    await append("login.failed", ago(20)); // expired (13 months)
    await append("credits.grant", ago(20)); // kept 10 years: the prefix ends here
    await append("login.failed", ago(19)); // expired, but after a kept row: stays
    await append("login.ok", ago(1));
    const result = await db().transaction((tx) => pruneAuditLog(tx, NOW));
    expect(result).toMatchObject({ pruned: true, rows: 2, throughSeq: 2 });
    const left = await db().select().from(auditLog).orderBy(auditLog.seq);
    expect(left.map((r) => [r.seq, r.action])).toEqual([
      [3, "credits.grant"],
      [4, "login.failed"],
      [5, "login.ok"],
      [6, "audit.prune"],
    ]);
    expect(left.at(-1)?.details).toMatchObject({ through_seq: 2, rows: 2 });
    expect(await db().select().from(auditLogPruned)).toHaveLength(1);
    expect(await verifyAuditChain(db())).toMatchObject({ ok: true, rows: 4 });
    // Nothing more has expired: a second run removes nothing and writes nothing.
    expect(await db().transaction((tx) => pruneAuditLog(tx, NOW))).toEqual({ pruned: false });
    expect(await db().select().from(auditLog)).toHaveLength(4);
    // New entries go on from the kept chain.
    await append("credits.grant", NOW);
    expect(await verifyAuditChain(db())).toMatchObject({ ok: true, rows: 5 });
  });

  it("still refuses a DELETE that is not a pruning, and a gap after the checkpoint shows", async () => {
    await append("role.change", ago(121));
    await append("role.change", ago(1));
    await expect(db().execute(sql`delete from audit_log where seq = 2`)).rejects.toThrow();
    await db().transaction((tx) => pruneAuditLog(tx, NOW));
    await expect(db().execute(sql`delete from audit_log_pruned`)).rejects.toThrow();
    await expect(db().execute(sql`update audit_log_pruned set rows = 0`)).rejects.toThrow();
    await db().transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`delete from audit_log where seq = 2`);
    });
    expect(await verifyAuditChain(db())).toMatchObject({
      ok: false,
      seq: 3,
      problem: "row 2 is missing before it",
    });
  });
});
