// Who may be given a staff role: only an account that already has a second factor (a confirmed
// authenticator app or a passkey; accounts/staff-factors.ts keeps it there). The console refuses
// staff without two factors, but a role given to a password-only account would let whoever has
// that password enrol their own authenticator and open the console as that member: the factor
// must be the owner's before the role is.
import { ADMIN_TEXT } from "../../contract/admin-rules.ts";
import { hasSecondFactor } from "../accounts/staff-factors.ts";
import type { Role } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { isStaff } from "./permissions.ts";
import { OperatorRefusal } from "./refusal.ts";

/** 409 when `role` is a staff role and the account has no second factor; any role may be taken away. */
export async function refuseStaffRoleWithoutFactor(db: DbOrTx, userId: string, role: Role): Promise<void> {
  if (!isStaff(role)) return;
  if (!(await hasSecondFactor(db, userId))) throw new OperatorRefusal(409, ADMIN_TEXT.staffNeedsSecondFactor);
}
