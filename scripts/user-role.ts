// `npm run user:role -- <username> <role>`: grants or takes away a role (user | admin). Uses the
// server's configuration and database client, so it changes the same database the server uses.
// With the embedded PGlite, stop the server first (PGlite allows one process at a time).
import { setUserRole } from "../server/accounts/users.ts";
import { systemClock } from "../server/clock.ts";
import { openDatabase } from "../server/db/client.ts";
import { userRole } from "../server/db/schema/index.ts";
import { ConfigError, loadConfig } from "../server/env.ts";

const ROLES = userRole.enumValues;
const USAGE = `Usage: npm run user:role -- <username> <${ROLES.join("|")}>`;

/** Runs the command; returns the exit code and writes its messages through `out` and `err`. */
export async function userRoleCommand(
  args: string[],
  env: Record<string, string | undefined>,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  const [username, role, ...extra] = args;
  if (!username || !role || extra.length > 0) {
    err(USAGE);
    return 2;
  }
  if (!(ROLES as readonly string[]).includes(role)) {
    err(`Unknown role "${role}". Roles: ${ROLES.join(", ")}.`);
    err(USAGE);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    err(error instanceof ConfigError ? error.message : String(error));
    return 1;
  }
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, poolSize: 1 });
  } catch (error) {
    err(error instanceof Error ? error.message : String(error));
    return 1;
  }
  try {
    await database.migrate();
    const user = await setUserRole(database.db, username, role as (typeof ROLES)[number], systemClock.now());
    if (!user) {
      err(`No user named "${username}".`);
      return 1;
    }
    out(`${user.username} now has the role ${user.role}.`);
    return 0;
  } finally {
    await database.close();
  }
}

if (import.meta.main) {
  process.exitCode = await userRoleCommand(process.argv.slice(2), process.env);
}
