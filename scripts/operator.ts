// The operator commands' common path: check the arguments, then run the command inside the running
// server through its operator socket (DATA_DIR/operator.sock), or, with no server running there,
// against the database directly (the server's configuration and database client).
import { openDatabase } from "../server/db/client.ts";
import { ConfigError, loadConfig } from "../server/env.ts";
import { checkArguments, type OperatorRequest, runCommand } from "../server/operator/commands.ts";
import { operatorSocketPath, sendOperatorCommand } from "../server/operator/socket.ts";

/** Runs the command; returns the exit code and writes its messages through `out` and `err`. */
export async function operatorCommand(
  request: OperatorRequest,
  env: Record<string, string | undefined>,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  const invalid = checkArguments(request);
  if (invalid && !invalid.ok) {
    err(invalid.message);
    return invalid.code;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
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
