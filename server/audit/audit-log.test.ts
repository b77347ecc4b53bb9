// The audit log on PGlite and PostgreSQL: appended in the action's transaction, refused any change
// by the database, and verified as a chain that names the first row that does not hold.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openTestDatabase, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { auditLog } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { useTestApp } from "../testing/suite.ts";
import {
  AuditChainMismatch,
  type AuditEntry,
  appendAudit,
  auditHash,
  checkStorable,
  GENESIS_HASH,
  UnstorableAuditEntry,
  verifyAuditChain,
} from "./audit-log.ts";

const ENTRY: AuditEntry = {
  actorId: null,
  actorLabel: "command line",
  action: "role.change",
  subjectUserId: "9b2f4c8e-5d1a-4e3b-8f7c-2a6d9e0b1c3f",
  reason: "New support colleague",
  details: { from: "user", to: "admin" },
  ip: null,
};
const NOW = new Date("2026-11-25T10:00:00.000Z");

describe("auditHash", () => {
  const row = { seq: 1, id: "6c1e0b3a-2f4d-4c5e-9a8b-7d6e5f4a3b2c", at: NOW, ...ENTRY };

  it("is the SHA-256 of the previous hash and the row's canonical JSON", () => {
    expect(auditHash(GENESIS_HASH, row)).toMatch(/^[0-9a-f]{64}$/);
    // Key order in details does not matter (canonical JSON sorts keys); every value does.
    expect(auditHash(GENESIS_HASH, { ...row, details: { to: "admin", from: "user" } })).toBe(
      auditHash(GENESIS_HASH, row),
    );
  });

  it.each([
    ["the previous hash", { prev: "1".repeat(64) }],
    ["the place", { seq: 2 }],
    ["the time", { at: new Date(NOW.getTime() + 1) }],
    ["the actor", { actorLabel: "ann" }],
    ["the action", { action: "role.changed" }],
    ["the subject", { subjectUserId: null }],
    ["the reason", { reason: "New support colleague." }],
    ["a detail", { details: { from: "user", to: "support" } }],
    ["the address", { ip: "203.0.113.7" }],
  ])("changes with %s", (_case, change) => {
    const { prev, ...fields } = change as { prev?: string } & Partial<typeof row>;
    expect(auditHash(prev ?? GENESIS_HASH, { ...row, ...fields })).not.toBe(auditHash(GENESIS_HASH, row));
  });
});

describe("checkStorable", () => {
  it("passes an entry the database stores as it is hashed", () => {
    const entry = { ...ENTRY, reason: "Ausfall: 東京 🎉", details: { n: 1.5, ok: true, list: ["a", null] } };
    expect(checkStorable(entry)).toBe(entry);
  });

  it.each([
    ["U+0000 in the reason", { reason: "a\u0000b" }, "the entry.reason"],
    ["a lone surrogate in a detail", { details: { name: "a\ud800" } }, "the entry.details.name"],
    ["U+0000 in a detail's key", { details: { "a\u0000": 1 } }, "the entry.details key"],
    ["a lone surrogate in a list", { details: { list: ["ok", "\udfff"] } }, "the entry.details.list[1]"],
    ["a number JSON cannot hold", { details: { n: Number.NaN } }, "the entry.details.n"],
    ["a value with no JSON form", { details: { f: () => 1 } }, "the entry.details.f"],
  ])("refuses %s, naming where", (_case, change, where) => {
    expect(() => checkStorable({ ...ENTRY, ...(change as Partial<AuditEntry>) })).toThrow(
      new RegExp(`^${where.replaceAll(/[.[\]]/g, "\\$&")} `),
    );
  });
});

/** Changes a stored row behind the trigger's back, as someone with the table owner's rights could. */
async function tamper(db: Db, statement: ReturnType<typeof sql>) {
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(statement);
  });
}

const append = (db: Db, entry: Partial<AuditEntry> = {}, at = NOW) =>
  db.transaction((tx) => appendAudit(tx, { ...ENTRY, ...entry }, at));

describe.each(TEST_DATABASES)("the audit log (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("chains each entry to the one before, from the genesis hash", async () => {
    const first = await append(ctx.database.db);
    const second = await append(ctx.database.db, { action: "service_key.create", details: { id: "k1" } });
    expect(first).toMatchObject({ seq: 1, prevHash: GENESIS_HASH, at: NOW, ...ENTRY });
    expect(second).toMatchObject({ seq: 2, prevHash: first.hash, action: "service_key.create" });
    expect(second.hash).toBe(auditHash(first.hash, second));
    expect(await verifyAuditChain(ctx.database.db)).toEqual({ ok: true, rows: 2, head: second.hash });
  });

  it("fails closed when the stored row would not match its hash, and writes nothing", async () => {
    // The uuid column stores an id in lower case; hashed as sent, the row would break the chain.
    const upper = { subjectUserId: ENTRY.subjectUserId?.toUpperCase() ?? null };
    await expect(append(ctx.database.db, upper)).rejects.toThrow(AuditChainMismatch);
    expect(await ctx.database.db.select().from(auditLog)).toEqual([]);
    // Nor does an entry the database would refuse reach it.
    await expect(append(ctx.database.db, { reason: "a\u0000b" })).rejects.toThrow(UnstorableAuditEntry);
    await append(ctx.database.db);
    expect(await verifyAuditChain(ctx.database.db)).toMatchObject({ ok: true, rows: 1 });
  });

  it("an empty log verifies, with the genesis hash as its head", async () => {
    expect(await verifyAuditChain(ctx.database.db)).toEqual({ ok: true, rows: 0, head: GENESIS_HASH });
  });

  it("is written with the action's transaction, or not at all", async () => {
    await expect(
      ctx.database.db.transaction(async (tx) => {
        await appendAudit(tx, ENTRY, NOW);
        throw new Error("the action failed");
      }),
    ).rejects.toThrow("the action failed");
    expect(await ctx.database.db.select().from(auditLog)).toEqual([]);
  });

  it.each([
    ["UPDATE", sql`update audit_log set reason = 'changed'`],
    ["DELETE", sql`delete from audit_log`],
    ["TRUNCATE", sql`truncate audit_log`],
  ])("the database refuses %s", async (_op, statement) => {
    await append(ctx.database.db);
    const error = await ctx.database.db.execute(statement).then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: Error },
    );
    // Drizzle wraps the database's error: the trigger's message is its cause.
    expect(error?.cause?.message).toMatch(
      /^audit_log is append-only: (UPDATE|DELETE|TRUNCATE) is not allowed$/,
    );
    expect(await ctx.database.db.select().from(auditLog)).toHaveLength(1);
  });

  it("verification walks pages and names the first changed row", async () => {
    for (let i = 0; i < 5; i++) await append(ctx.database.db, { details: { n: i } });
    await tamper(ctx.database.db, sql`update audit_log set reason = 'nothing to see' where seq in (3, 4)`);
    const check = await verifyAuditChain(ctx.database.db, 2);
    expect(check).toMatchObject({
      ok: false,
      rows: 2,
      seq: 3,
      problem: "its content does not match its hash",
    });
  });

  it("names a removed row, and a row whose hash was recomputed after a change", async () => {
    for (let i = 0; i < 4; i++) await append(ctx.database.db, { details: { n: i } });
    await tamper(ctx.database.db, sql`delete from audit_log where seq = 2`);
    expect(await verifyAuditChain(ctx.database.db)).toMatchObject({
      ok: false,
      seq: 3,
      problem: "row 2 is missing before it",
    });
  });

  it("a row changed together with its hash breaks the link to the next row", async () => {
    const rows = [];
    for (let i = 0; i < 3; i++) rows.push(await append(ctx.database.db, { details: { n: i } }));
    const second = rows[1] as NonNullable<(typeof rows)[number]>;
    const forged = { ...second, reason: "forged" };
    await tamper(
      ctx.database.db,
      sql`update audit_log set reason = 'forged', hash = ${auditHash(second.prevHash, forged)} where seq = 2`,
    );
    expect(await verifyAuditChain(ctx.database.db)).toMatchObject({
      ok: false,
      seq: 3,
      problem: "its prev_hash is not the hash of the row before (this row or that one was changed)",
    });
  });
});

describe.runIf(TEST_DATABASES.includes("postgres"))("concurrent writers on PostgreSQL", () => {
  it("two connections appending at once leave one chain", async () => {
    const a = await openTestDatabase("postgres");
    try {
      // Ten concurrent transactions on a pool of five connections, each appending and then
      // holding its transaction open a moment: without the lock, two would read the same last row.
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          a.db.transaction(async (tx) => {
            await appendAudit(tx, { ...ENTRY, details: { n: i } }, NOW);
            await tx.execute(sql`select pg_sleep(0.02)`);
          }),
        ),
      );
      expect(await verifyAuditChain(a.db)).toMatchObject({ ok: true, rows: 10 });
    } finally {
      await a.close();
    }
  });
});
