// `npm run audit:prune`: removes the audit log's expired prefix (security events after 13 months,
// operator actions after 10 years; only whole prefixes, so the rest stays one chain) and records
// that it did, in the log itself. Through the running server's socket, or directly.
import { operatorCommand } from "./operator.ts";

if (import.meta.main) {
  process.exitCode = await operatorCommand(
    { command: "audit-prune", args: process.argv.slice(2) },
    process.env,
  );
}
