// Whether a process still runs, for the files that name one (the PGlite lock, operator notes).

/** True while `pid` runs; EPERM means it exists but belongs to another account. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
