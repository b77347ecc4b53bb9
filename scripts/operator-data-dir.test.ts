// Operator commands without DATA_DIR, or with the wrong one (issue 31, item 19): they use the data
// folder of the one server running from here, and never create an empty embedded database.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { missingDatabase, operatorCommand, withServerDataDir } from "./operator.ts";

const server = (dataDir: string, port: number) => ({ pid: 1, cwd: "/repo", dataDir, port });

describe("withServerDataDir", () => {
  it("keeps a DATA_DIR that was given, whatever runs", () => {
    expect(withServerDataDir({ DATA_DIR: "/mine" }, [server("/srv/a", 4321)])).toEqual({
      env: { DATA_DIR: "/mine" },
    });
  });

  it("uses the one running server's folder, and says so", () => {
    expect(withServerDataDir({ LOG_LEVEL: "silent" }, [server("/srv/a", 4321)])).toEqual({
      env: { LOG_LEVEL: "silent", DATA_DIR: "/srv/a" },
      note: "Using the data folder of the server running on port 4321: /srv/a",
    });
  });

  it("falls back to the default (./data) when no server runs", () => {
    expect(withServerDataDir({}, [])).toEqual({ env: {} });
  });

  it("asks which when several servers run from here", () => {
    const chosen = withServerDataDir({}, [server("/srv/a", 4321), server("/srv/b", 4322)]);
    expect(chosen).toEqual({
      error:
        "Several servers run from this folder; say which with DATA_DIR:\n" +
        "  DATA_DIR=/srv/a   (port 4321)\n" +
        "  DATA_DIR=/srv/b   (port 4322)",
    });
  });
});

describe("a command where no database is", () => {
  const empty = mkdtempSync(join(tmpdir(), "no-db-"));
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it("names the folder it looked in", () => {
    expect(missingDatabase(empty)).toBe(
      `No database in ${empty} and no server running there. Start the server (npm start), or set ` +
        "DATA_DIR (and DATABASE_URL) as the server has them: it logs its data folder at start-up.",
    );
  });

  it("refuses instead of answering from a new empty database, and creates nothing", async () => {
    const err: string[] = [];
    const code = await operatorCommand(
      { command: "user-role", args: ["ann", "admin"] },
      { DATA_DIR: empty, LOG_LEVEL: "silent" },
      () => {},
      (line) => err.push(line),
    );
    expect(code).toBe(1);
    expect(err).toEqual([missingDatabase(empty)]);
    expect(readdirSync(empty)).toEqual([]);
    expect(existsSync(join(empty, "db"))).toBe(false);
  });
});
