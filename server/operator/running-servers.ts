// Where operator commands find the running server when DATA_DIR is not given (issue 31, item 19).
// A server started with its own DATA_DIR (say `DATA_DIR=/srv/portal npm start`) keeps its database
// and operator socket there; a command run in another shell without that variable used to look in
// ./data, answer "No user named …" and leave an empty database behind. So each server notes
// where its data folder is, in a folder only this account can read, and a command without DATA_DIR
// uses the one server running from the same working folder.
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { isAlive } from "../process-alive.ts";

export interface RunningServer {
  pid: number;
  /** The server's working folder: a command belongs to the checkout it is run in. */
  cwd: string;
  /** The server's DATA_DIR, absolute. */
  dataDir: string;
  port: number;
  /** PORTAL_URL: where a command sends a person to look (pages on 127.0.0.1 redirect there). */
  portalUrl?: string;
}

/** One folder per OS account, readable by it alone (the note names a database's folder). */
export function registryDir(base = tmpdir()): string {
  return join(base, `genai-portal-${userInfo().uid}`, "servers");
}

/**
 * Whether `dir` is this account's own and no one else may write in it. The temp folder is shared:
 * another local account could create the folder first and plant a note that sends our commands to
 * a data folder of its choosing. Such a folder is neither read nor written.
 */
export function isOwnFolder(dir: string): boolean {
  // The folder and the one above it (genai-portal-<uid>): whoever owns the parent could swap the
  // folder for a link. Neither may be a link (lstat), and no one else may write in either.
  return [dir, dirname(dir)].every((folder) => {
    try {
      const info = lstatSync(folder);
      return info.isDirectory() && info.uid === userInfo().uid && (info.mode & 0o077) === 0;
    } catch {
      return false;
    }
  });
}

/** Notes this process as a running server; the answer removes the note (call it on shutdown). */
export function noteRunningServer(server: Omit<RunningServer, "pid">, dir = registryDir()): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!isOwnFolder(dir)) throw new Error(`${dir} is not this account's own folder: no note written`);
  const file = join(dir, `${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ ...server, pid: process.pid }), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

function parse(text: string): RunningServer | undefined {
  try {
    const value = JSON.parse(text) as Partial<RunningServer>;
    if (
      typeof value.pid === "number" &&
      typeof value.cwd === "string" &&
      typeof value.dataDir === "string" &&
      typeof value.port === "number"
    )
      return value as RunningServer;
  } catch {
    // a note half-written or damaged: not a server to talk to
  }
  return undefined;
}

/** The servers running from `cwd`; notes of servers that are gone are removed on the way. */
export function runningServersIn(cwd: string, dir = registryDir()): RunningServer[] {
  if (!isOwnFolder(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
  const found: RunningServer[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const server = parse(text);
    if (!server || !isAlive(server.pid)) {
      rmSync(file, { force: true });
      continue;
    }
    if (server.cwd === cwd) found.push(server);
  }
  return found.sort((a, b) => a.pid - b.pid);
}

/** The one server running from `cwd`, or undefined when there is none or several. */
export function serverRunningHere(cwd: string, dir = registryDir()): RunningServer | undefined {
  const [only, ...others] = runningServersIn(cwd, dir);
  return others.length === 0 ? only : undefined;
}
