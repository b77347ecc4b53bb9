import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { noteRunningServer, registryDir, runningServersIn, serverRunningHere } from "./running-servers.ts";

const dirs: string[] = [];
function scratch(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "registry-")), "servers");
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(join(dir, ".."), { recursive: true, force: true });
});

describe("the running servers' notes", () => {
  it("keeps one note per account, readable by that account alone", () => {
    expect(registryDir("/tmp")).toMatch(/^\/tmp\/genai-portal-\d+\/servers$/);
    const dir = scratch();
    const forget = noteRunningServer({ cwd: "/repo", dataDir: "/srv/data", port: 4321 }, dir);
    const [file] = readdirSync(dir);
    expect(file).toBe(`${process.pid}.json`);
    expect(statSync(join(dir, file as string)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(runningServersIn("/repo", dir)).toEqual([
      { cwd: "/repo", dataDir: "/srv/data", port: 4321, pid: process.pid },
    ]);
    forget();
    expect(runningServersIn("/repo", dir)).toEqual([]);
  });

  it("names only servers of the same working folder", () => {
    const dir = scratch();
    noteRunningServer({ cwd: "/repo", dataDir: "/srv/data", port: 4321 }, dir);
    expect(runningServersIn("/other-checkout", dir)).toEqual([]);
    expect(serverRunningHere("/other-checkout", dir)).toBeUndefined();
    expect(serverRunningHere("/repo", dir)?.port).toBe(4321);
  });

  it("names no single server when several run from one folder", () => {
    const dir = scratch();
    noteRunningServer({ cwd: "/repo", dataDir: "/srv/a", port: 4321 }, dir);
    // A second live process: this test's parent (the test runner's main process) stands in for it.
    writeFileSync(
      join(dir, `${process.ppid}.json`),
      JSON.stringify({ pid: process.ppid, cwd: "/repo", dataDir: "/srv/b", port: 4322 }),
    );
    expect(runningServersIn("/repo", dir)).toHaveLength(2);
    expect(serverRunningHere("/repo", dir)).toBeUndefined();
  });

  it("drops the notes of servers that are gone and notes that are damaged", () => {
    const dir = scratch();
    noteRunningServer({ cwd: "/repo", dataDir: "/srv/data", port: 4321 }, dir);
    // No process has a pid this high (Linux caps pids at 2^22).
    writeFileSync(
      join(dir, "999999999.json"),
      JSON.stringify({ pid: 999_999_999, cwd: "/repo", dataDir: "/x", port: 1 }),
    );
    writeFileSync(join(dir, "1.json"), "{ not json");
    writeFileSync(join(dir, "2.json"), JSON.stringify({ pid: process.pid, cwd: "/repo" }));
    expect(runningServersIn("/repo", dir).map((s) => s.dataDir)).toEqual(["/srv/data"]);
    expect(readdirSync(dir)).toEqual([`${process.pid}.json`]);
  });

  it("neither reads nor writes a folder others may write in", () => {
    const dir = scratch();
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    writeFileSync(
      join(dir, `${process.pid}.json`),
      JSON.stringify({ pid: process.pid, cwd: "/repo", dataDir: "/planted", port: 1 }),
    );
    expect(runningServersIn("/repo", dir)).toEqual([]);
    expect(() => noteRunningServer({ cwd: "/repo", dataDir: "/srv/data", port: 4321 }, dir)).toThrow(
      /is not this account's own folder/,
    );
  });

  it("neither follows a link in place of the folder nor trusts a parent others may write in", () => {
    const dir = scratch();
    // A folder of ours that a link named "servers" points to: its *.json must stay untouched.
    const victim = mkdtempSync(join(tmpdir(), "victim-"));
    writeFileSync(join(victim, "package.json"), "{}");
    symlinkSync(victim, dir);
    expect(runningServersIn("/repo", dir)).toEqual([]);
    expect(readdirSync(victim)).toEqual(["package.json"]);
    rmSync(dir);
    rmSync(victim, { recursive: true, force: true });
    // A real folder, but under a parent anyone may write in.
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(join(dir, ".."), 0o777);
    expect(runningServersIn("/repo", dir)).toEqual([]);
  });

  it("finds none where no server ever ran", () => {
    expect(runningServersIn("/repo", join(tmpdir(), "no-such-registry", "servers"))).toEqual([]);
  });
});
