// The spec's route guard rule (section 6): a list of allowed roles, default user and admin; a
// missing user counts as an empty role, which no list allows.
import type { Role } from "../../contract/account.ts";

export const DEFAULT_ALLOWED_ROLES: readonly Role[] = ["user", "support", "admin"];

export function isRoleAllowed(
  role: string | undefined,
  allowed: readonly string[] = DEFAULT_ALLOWED_ROLES,
): boolean {
  return role !== undefined && role !== "" && allowed.includes(role);
}
