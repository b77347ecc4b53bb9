// The operator commands' common path: check the arguments, then run the command inside the running
// server through its operator socket (DATA_DIR/operator.sock), or, with no server running there,
// against the database directly (the server's configuration and database client). Without
// DATA_DIR, the data folder is the one server running from this working folder (it notes where
// its data are: server/operator/running-servers.ts), else ./data. A command never creates an
// embedded database: where none is, it says so instead of answering "No user named …".
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../server/db/client.ts";
import { ConfigError, loadConfig } from "../server/env.ts";
import { checkArguments, type OperatorRequest, runCommand } from "../server/operator/commands.ts";
import { type RunningServer, runningServersIn } from "../server/operator/running-servers.ts";
import { operatorSocketPath, sendOperatorCommand } from "../server/operator/socket.ts";

type Env = Record<string, string | undefined>;

/**
 * The environment a command runs with: DATA_DIR as given; without it, the data folder of the one
 * server running from `cwd`. Several such servers: an error naming their folders.
 */
export function withServerDataDir(
  env: Env,
  servers: readonly RunningServer[],
): { env: Env; note?: string } | { error: string } {
  if (env.DATA_DIR || servers.length === 0) return { env };
  const [only] = servers;
  if (servers.length === 1 && only)
    return {
      env: { ...env, DATA_DIR: only.dataDir },
      note: `Using the data folder of the server running on port ${only.port}: ${only.dataDir}`,
    };
  const list = servers.map((s) => `  DATA_DIR=${s.dataDir}   (port ${s.port})`).join("\n");
  return { error: `Several servers run from this folder; say which with DATA_DIR:\n${list}` };
}

/** Why the command cannot run against the embedded database in `dataDir`, if it cannot. */
export function missingDatabase(dataDir: string): string | undefined {
  if (existsSync(join(dataDir, "db", "PG_VERSION"))) return undefined;
  return (
    `No database in ${dataDir} and no server running there. Start the server (npm start), or set ` +
    "DATA_DIR (and DATABASE_URL) as the server has them: it logs its data folder at start-up."
  );
}

/** Runs the command; returns the exit code and writes its messages through `out` and `err`. */
export async function operatorCommand(
  request: OperatorRequest,
  env: Env,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  const invalid = checkArguments(request);
  if (invalid && !invalid.ok) {
    err(invalid.message);
    return invalid.code;
  }
  const chosen = withServerDataDir(env, runningServersIn(process.cwd()));
  if ("error" in chosen) {
    err(chosen.error);
    return 1;
  }
  if (chosen.note) err(chosen.note);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(chosen.env);
  } catch (error) {
    err(error instanceof ConfigError ? error.message : String(error));
    return 1;
  }
  try {
    const viaServer = await sendOperatorCommand(operatorSocketPath(config.dataDir), request);
    const result = viaServer ?? (await runDirectly(config, request));
    if (!result.ok) {
      err(result.message);
      return result.code;
    }
    for (const line of result.lines) out(line);
    return 0;
  } catch (error) {
    err(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

async function runDirectly(config: ReturnType<typeof loadConfig>, request: OperatorRequest) {
  const missing = config.DATABASE_URL ? undefined : missingDatabase(config.dataDir);
  if (missing) return { ok: false as const, message: missing, code: 1 };
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.dataDir,
    poolSize: 1,
  });
  try {
    await database.migrate();
    return await runCommand(database.db, request, new Date());
  } finally {
    await database.close();
  }
}
