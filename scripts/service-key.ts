// `npm run service-key -- create <name> --scopes introspect,credits:consume | list | revoke <id>`:
// the generation service's keys, made by an operator. A new key is printed once and stored hashed.
// Works whether or not the server is running (scripts/operator.ts).
import { operatorCommand } from "./operator.ts";

if (import.meta.main) {
  process.exitCode = await operatorCommand(
    { command: "service-key", args: process.argv.slice(2) },
    process.env,
  );
}
