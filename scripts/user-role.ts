// `npm run user:role -- <username> <role>`: grants or takes away a role (user | admin), in the same
// database the server uses, whether or not the server is running (scripts/operator.ts).
import { operatorCommand } from "./operator.ts";

export function userRoleCommand(
  args: string[],
  env: Record<string, string | undefined>,
  out?: (line: string) => void,
  err?: (line: string) => void,
): Promise<number> {
  return operatorCommand({ command: "user-role", args }, env, out, err);
}

if (import.meta.main) {
  process.exitCode = await userRoleCommand(process.argv.slice(2), process.env);
}
