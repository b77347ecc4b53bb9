// `npm run audit:verify`: walks the audit log's hash chain in the server's database (through the
// running server's socket, or directly) and names the first row that does not hold; exit code 1
// when the chain is broken. It prints the chain's head hash: kept in the operator's own records, it
// also shows a change to the last rows made together with their hashes.
import { operatorCommand } from "./operator.ts";

if (import.meta.main) {
  process.exitCode = await operatorCommand(
    { command: "audit-verify", args: process.argv.slice(2) },
    process.env,
  );
}
