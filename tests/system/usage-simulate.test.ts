// `npm run usage:simulate` against a running development server on the embedded PGlite (a bare
// machine): it reaches the server's operator socket for the account and a service key, charges
// through POST /v1/credits/consume with back-dated times, and leaves a month of history that
// GET /v1/usage shows; the run's service key is revoked after it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../fixtures/cli.ts";
import {
  type ServerProcess,
  startServer,
  stopServers,
  tempDataDir,
  uniqueName,
  verifiedAccount,
} from "../fixtures/server-process.ts";

describe("usage:simulate on a development server with the embedded database", () => {
  const dataDir = tempDataDir("simulate");
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({
      label: "development",
      databaseUrl: "",
      dataDir: dataDir.dir,
      env: { NODE_ENV: "development", FREE_INITIAL_CREDITS: "2000" },
    });
  }, 180_000);

  afterAll(async () => {
    await stopServers();
    dataDir.remove();
  });

  const cli = (script: string, args: string[]) =>
    runCli(script, args, { DATA_DIR: dataDir.dir, PORT: new URL(server.baseUrl).port, LOG_LEVEL: "silent" });

  it("charges a month of generations through consume, within the balance, and revokes its service key", async () => {
    const ann = await verifiedAccount(server, uniqueName("sim"));
    const run = await cli("scripts/usage-simulate.ts", ["--username", ann.username, "--days", "30"]);
    expect(run.status, run.stderr).toBe(0);
    const said = new RegExp(
      `^Charged (\\d+) generations in (\\d+) charges \\([\\d.]+ credits\\) to ${ann.username} over the last 30 days`,
    ).exec(run.stdout);
    expect(said, run.stdout).not.toBeNull();

    const usage = await fetch(`${server.baseUrl}/v1/usage?group_by=day`, {
      headers: { Authorization: `Bearer ${ann.accessToken}` },
    });
    const body = (await usage.json()) as {
      data: { date: string; credits: number }[];
      total: { credits: number; uses: number };
    };
    // The script counts what /profile/usage counts: generations (quantities), not API calls.
    expect(body.total.uses).toBe(Number(said?.[1]));
    expect(Number(said?.[2])).toBeLessThanOrEqual(body.total.uses);
    expect(body.data.length).toBeGreaterThan(20);
    expect(body.total.credits).toBeGreaterThan(500);
    expect(body.total.credits).toBeLessThanOrEqual(2000);
    const me = await fetch(`${server.baseUrl}/v1/users/me`, {
      headers: { Authorization: `Bearer ${ann.accessToken}` },
    });
    const { credit_balance } = (await me.json()) as { credit_balance: number };
    expect(credit_balance).toBeCloseTo(2000 - body.total.credits, 3);

    const keys = await cli("scripts/service-key.ts", ["list"]);
    expect(keys.stdout).toMatch(/usage-simulator .*REVOKED/);
  }, 180_000);

  it("refuses an unknown user and a bad --days", async () => {
    const nobody = await cli("scripts/usage-simulate.ts", ["--username", "nobody-here"]);
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain('No user named "nobody-here".');
    const bad = await cli("scripts/usage-simulate.ts", ["--username", "x", "--days", "0"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--days is a whole number from 1 to 366.");
  });
});
