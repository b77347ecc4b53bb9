// The operator commands reach a running server through its socket, so they need no downtime even
// on the embedded PGlite (which one process at a time can open); without a server they open the
// database themselves (scripts/user-role.test.ts).
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TEXT } from "../contract/admin-rules.ts";
import { findUserByUsername, insertUser } from "../server/accounts/users.ts";
import { authenticateServiceKey } from "../server/api-access/service-keys.ts";
import { ManualClock } from "../server/clock.ts";
import { openPglite } from "../server/db/client.ts";
import { auditLog } from "../server/db/schema/index.ts";
import { createLogger } from "../server/logger.ts";
import { listenOperatorSocket, operatorSocketPath } from "../server/operator/socket.ts";
import { withConfirmedAuthenticator } from "../tests/fixtures/second-factor.ts";
import { operatorCommand } from "./operator.ts";

describe("operator commands while the server runs", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "operator-"));
  let database: Awaited<ReturnType<typeof openPglite>>;
  let socket: Awaited<ReturnType<typeof listenOperatorSocket>>;
  const logs: string[] = [];

  beforeAll(async () => {
    // The "server": holds the database (an in-memory PGlite here) and listens on DATA_DIR's socket.
    database = await openPglite(undefined);
    await database.migrate();
    await insertUser(database.db, {
      username: "Ann",
      email: "ann@example.com",
      passwordHash: "h",
      now: new Date(),
    });
    const logger = createLogger({ level: "info" }, { write: (line: string) => void logs.push(line) });
    socket = await listenOperatorSocket(operatorSocketPath(dataDir), database.db, new ManualClock(), logger);
  });

  afterAll(async () => {
    socket.close();
    await database.close();
  });

  async function run(command: "user-role" | "service-key" | "audit-verify" | "audit-prune", args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await operatorCommand(
      { command, args },
      { DATA_DIR: dataDir, LOG_LEVEL: "silent" },
      (l) => out.push(l),
      (l) => err.push(l),
    );
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  it("listens on a socket only the server's account may use", () => {
    expect(statSync(operatorSocketPath(dataDir)).mode & 0o777).toBe(0o600);
  });

  it("user:role changes the role in the server's database, once the account has a second factor", async () => {
    expect(await run("user-role", ["ann", "admin"])).toEqual({
      code: 1,
      out: "",
      err: `ann: ${ADMIN_TEXT.staffNeedsSecondFactor}.`,
    });
    expect((await findUserByUsername(database.db, "ann"))?.role).toBe("user");
    await withConfirmedAuthenticator(database.db, "ann");
    expect(await run("user-role", ["ann", "admin"])).toEqual({
      code: 0,
      out: "Ann now has the role admin.",
      err: "",
    });
    expect((await findUserByUsername(database.db, "ann"))?.role).toBe("admin");
    expect(await run("user-role", ["nobody", "admin"])).toMatchObject({
      code: 1,
      err: 'No user named "nobody".',
    });
  });

  it("service-key creates a key printed once, lists and revokes it; the log names the command, never the key", async () => {
    const created = await run("service-key", [
      "create",
      "generation-api",
      "--scopes",
      "introspect,credits:consume",
    ]);
    expect(created.code).toBe(0);
    const key = created.out.match(/gsk_[0-9A-Za-z]{61}/)?.[0] as string;
    expect(key).toBeDefined();
    const row = await authenticateServiceKey(database.db, key);
    expect(row?.scopes).toEqual(["introspect", "credits:consume"]);
    const listed = await run("service-key", ["list"]);
    expect(listed.out).toContain(`${row?.id}  gsk_${row?.id}…  generation-api  [introspect,credits:consume]`);
    expect(listed.out).not.toContain(key);
    expect((await run("service-key", ["revoke", row?.id as string])).out).toMatch(/is revoked since/);
    expect(await authenticateServiceKey(database.db, key)).toBeUndefined();
    expect((await run("service-key", ["list"])).out).toContain("REVOKED");
    expect(await run("service-key", ["revoke", "nosuchkey"])).toMatchObject({ code: 1 });
    expect(logs.join("\n")).toContain('"command":"service-key"');
    expect(logs.join("\n")).not.toContain(key.slice(16, 59));
  });

  it("writes each change to the audit log, without secrets, and audit:verify checks the chain", async () => {
    const auditRows = () => database.db.select().from(auditLog).orderBy(asc(auditLog.seq));
    const before = (await auditRows()).length;
    await run("user-role", ["ann", "user"]);
    await run("user-role", ["ann", "user"]); // no change, no entry
    const created = await run("service-key", ["create", "audited", "--scopes", "introspect"]);
    const key = created.out.match(/gsk_[0-9A-Za-z]{61}/)?.[0] as string;
    const id = (await authenticateServiceKey(database.db, key))?.id as string;
    await run("service-key", ["revoke", id]);
    const ann = await findUserByUsername(database.db, "ann");
    const added = (await auditRows()).slice(before);
    expect(added.map((r) => [r.action, r.actorId, r.actorLabel, r.subjectUserId, r.details])).toEqual([
      ["role.change", null, "command line", ann?.id, { from: "admin", to: "user" }],
      [
        "service_key.create",
        null,
        "command line",
        null,
        { id, name: "audited", prefix: `gsk_${id}`, scopes: ["introspect"] },
      ],
      ["service_key.revoke", null, "command line", null, { id, name: "audited" }],
    ]);
    expect(JSON.stringify(added)).not.toContain(key.slice(16, 59));

    const verified = await run("audit-verify", []);
    expect(verified.code).toBe(0);
    expect(verified.out).toMatch(
      /^The audit log holds: \d+ rows, each chained to the one before\.\nHead: [0-9a-f]{64}$/,
    );

    const changed = added[1]?.seq as number;
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update audit_log set details = '{"id":"someone-else"}' where seq = ${changed}`);
    });
    const broken = await run("audit-verify", []);
    expect(broken.code).toBe(1);
    expect(broken.err).toBe(
      `The audit log is broken at row ${changed} (id ${added[1]?.id}): its content does not match its hash. The ${changed - 1} rows before it hold.`,
    );
    expect(await run("audit-verify", ["--fix"])).toMatchObject({
      code: 2,
      err: "Usage: npm run audit:verify",
    });
  });

  it.each([
    [[], /Usage: npm run service-key/],
    [["create"], /Give the key a name/],
    [["create", "x"], /Give --scopes/],
    [["create", "x", "--scopes", "introspect,admin"], /Unknown scope admin/],
    [["create", "x", "--color"], /Unknown option --color/],
    [["revoke"], /Usage/],
    [["list", "extra"], /Usage/],
    [["delete", "x"], /Usage/],
  ])("refuses service-key %j with a clear message (exit 2)", async (args, message) => {
    const result = await run("service-key", args);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(message);
  });

  it("audit:prune removes nothing within its retention, and says so", async () => {
    expect(await run("audit-prune", [])).toEqual({
      code: 0,
      out: "Nothing to prune: the oldest entry is within its retention.",
      err: "",
    });
    expect((await run("audit-prune", ["--all"])).code).toBe(2);
  });
});
