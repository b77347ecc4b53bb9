// The running server's operator socket: a Unix socket in DATA_DIR (mode 0600, so only the account
// that runs the server can use it) through which `npm run user:role` and `npm run service-key`
// reach the server's own database handle. With the embedded PGlite that is the only way in while
// the server runs (PGlite's files open in one process at a time); no downtime is needed.
import { chmodSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { join } from "node:path";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/types.ts";
import { type CommandResult, OPERATOR_COMMANDS, type OperatorRequest, runCommand } from "./commands.ts";

export function operatorSocketPath(dataDir: string): string {
  return join(dataDir, "operator.sock");
}

const MAX_BODY = 64 * 1024;

export function listenOperatorSocket(path: string, db: Db, clock: Clock, logger: Logger): Promise<Server> {
  const server = createServer((req, res) => {
    const answer = (status: number, body: CommandResult) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || req.url !== "/command")
      return answer(404, { ok: false, message: "Not found", code: 1 });
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
      if (text.length > MAX_BODY) req.destroy();
    });
    req.on("end", () => {
      let parsed: OperatorRequest;
      try {
        parsed = JSON.parse(text) as OperatorRequest;
        if (!(OPERATOR_COMMANDS as readonly string[]).includes(parsed.command) || !Array.isArray(parsed.args))
          throw new Error();
        if (!parsed.args.every((a) => typeof a === "string")) throw new Error();
      } catch {
        return answer(400, { ok: false, message: "Not an operator command", code: 2 });
      }
      runCommand(db, parsed, clock.now())
        .then((result) => {
          // Which command ran, never its output (a new service key is in it).
          logger.info({ command: parsed.command, verb: parsed.args[0], ok: result.ok }, "Operator command");
          answer(200, result);
        })
        .catch((error: unknown) => {
          logger.error({ err: error, command: parsed.command }, "Operator command failed");
          answer(500, { ok: false, message: "The command failed; see the server's log.", code: 1 });
        });
    });
  });
  // A socket file left behind by a server that was killed would make listen() fail.
  rmSync(path, { force: true });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      chmodSync(path, 0o600);
      resolve(server);
    });
  });
}

/**
 * Sends a command to the server listening on `path`; undefined when no server listens there (no
 * socket file, or one left behind by a server that is gone).
 */
export function sendOperatorCommand(
  path: string,
  command: OperatorRequest,
): Promise<CommandResult | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: path, path: "/command", method: "POST", headers: { "Content-Type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          try {
            resolve(JSON.parse(text) as CommandResult);
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(undefined);
      else reject(error);
    });
    req.end(JSON.stringify(command));
  });
}
