// PGlite is one process's private database: a second process opening the same folder (a CLI
// command while the server runs) would corrupt it. A lock file next to the folder makes the
// second opener fail with a clear message instead.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { isAlive } from "../process-alive.ts";

export class DatabaseLockedError extends Error {}

/** Takes the lock at `lockPath` for this process; returns the function that releases it. */
export function lockPgliteDir(lockPath: string, dataDir: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
      if (Number.isInteger(holder) && isAlive(holder)) {
        throw new DatabaseLockedError(
          `The database in ${dataDir} is in use by process ${holder} (probably the running server). ` +
            "Stop it first: PGlite allows one process at a time.",
        );
      }
      // A stale lock from a process that died without cleaning up.
      rmSync(lockPath, { force: true });
    }
  }
  throw new DatabaseLockedError(`Could not lock the database in ${dataDir}`);
}
