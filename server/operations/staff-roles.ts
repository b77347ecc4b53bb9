// Who may be given a staff role: only an account that already has a second factor (a confirmed
// authenticator app or a passkey). The console refuses staff without two factors, but a role given
// to a password-only account would let whoever has that password enrol their own authenticator
// and open the console as that member: the factor must be the owner's before the role is.
import { and, eq, isNotNull } from "drizzle-orm";
import { ADMIN_TEXT } from "../../contract/admin-rules.ts";
import { passkeys, type Role, totpFactors } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { isStaff } from "./permissions.ts";
import { OperatorRefusal } from "./refusal.ts";

/** Whether the account has a second factor now: a confirmed TOTP authenticator or a passkey. */
export async function hasSecondFactor(db: DbOrTx, userId: string): Promise<boolean> {
  const [app] = await db
    .select({ userId: totpFactors.userId })
    .from(totpFactors)
    .where(and(eq(totpFactors.userId, userId), isNotNull(totpFactors.confirmedAt)));
  if (app) return true;
  const [passkey] = await db
    .select({ id: passkeys.id })
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .limit(1);
  return passkey !== undefined;
}

/** 409 when `role` is a staff role and the account has no second factor; any role may be taken away. */
export async function refuseStaffRoleWithoutFactor(db: DbOrTx, userId: string, role: Role): Promise<void> {
  if (!isStaff(role)) return;
  if (!(await hasSecondFactor(db, userId))) throw new OperatorRefusal(409, ADMIN_TEXT.staffNeedsSecondFactor);
}
