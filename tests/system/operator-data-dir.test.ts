// Operator commands run in another shell without DATA_DIR (issue 31, item 19): while a server runs
// from the same folder with its own DATA_DIR, they use its data folder; once it is gone, they say
// that no database is there instead of creating an empty one and answering "No user named …".
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../fixtures/cli.ts";
import {
  freePort,
  type ServerProcess,
  startServer,
  stopServers,
  tempDataDir,
  uniqueName,
  verifiedAccount,
} from "../fixtures/server-process.ts";

describe("operator commands find the running server's data folder", () => {
  const dataDir = tempDataDir("operator-data-dir");
  // A folder of its own: servers the other test files start run from the repository.
  const folder = mkdtempSync(join(tmpdir(), "operator-cwd-"));
  let server: ServerProcess;
  const cli = (script: string, args: string[]) =>
    runCli(script, args, { LOG_LEVEL: "silent", HOME: folder }, 60_000, folder);

  beforeAll(async () => {
    const port = await freePort();
    server = await startServer({
      label: "elsewhere",
      databaseUrl: "",
      dataDir: dataDir.dir,
      cwd: folder,
      port,
      env: { PORTAL_URL: `http://localhost:${port}`, FREE_INITIAL_CREDITS: "200" },
    });
  }, 120_000);

  afterAll(async () => {
    await stopServers();
    dataDir.remove();
    rmSync(folder, { recursive: true, force: true });
  });

  it("uses the data folder of the server running from here, and says which", async () => {
    const verify = await cli("scripts/audit-verify.ts", []);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stderr).toContain(
      `Using the data folder of the server running on port ${server.port}: ${dataDir.dir}`,
    );
    const role = await cli("scripts/user-role.ts", ["nobody-here", "admin"]);
    expect(role.stderr).toContain('No user named "nobody-here".');
    expect(existsSync(join(folder, "data")), "no ./data beside the command").toBe(false);
  });

  it("billing:advance reaches the server running from here on its own port", async () => {
    const advance = await cli("scripts/billing-advance.ts", ["--days", "1"]);
    expect(advance.stderr).toBe("");
    expect(advance.stdout).toMatch(/^Billing clock now \S+ \(1 days ahead\)/);
  });

  it("usage:simulate charges through the server running from here and links to its PORTAL_URL", async () => {
    const ann = await verifiedAccount(server, uniqueName("here"));
    const run = await cli("scripts/usage-simulate.ts", ["--username", ann.username, "--days", "2"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`See http://localhost:${server.port}/profile/usage`);
  });

  it("once the server is gone, refuses and creates no database", async () => {
    await stopServers();
    const role = await cli("scripts/user-role.ts", ["nobody-here", "admin"]);
    expect(role.status).toBe(1);
    expect(role.stderr).toContain(`No database in ${join(folder, "data")} and no server running there.`);
    expect(existsSync(join(folder, "data", "db")), "no empty database").toBe(false);
  });
});
