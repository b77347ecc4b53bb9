// Staff and their second factors (issue 30). A staff role is given only to an account with a
// second factor (operations/staff-roles.ts), and a staff account never loses its last one: either
// gap would bring back a console opened by whoever has the password and enrols their own
// authenticator. The removal's check locks the account's row, as the role's grant does, so a
// removal and a grant (or two removals) at the same time are decided one after the other.
import { and, eq, isNotNull, ne } from "drizzle-orm";
import { passkeys, totpFactors, users } from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";

/** What is about to be removed: the authenticator app, or one passkey. */
export type FactorRemoval = { totp: true } | { passkeyId: string };

/**
 * Whether the account has a second factor (a confirmed authenticator app or a passkey), not
 * counting the one `removal` is about to remove.
 */
export async function hasSecondFactor(db: DbOrTx, userId: string, removal?: FactorRemoval): Promise<boolean> {
  if (!removal || !("totp" in removal)) {
    const [app] = await db
      .select({ userId: totpFactors.userId })
      .from(totpFactors)
      .where(and(eq(totpFactors.userId, userId), isNotNull(totpFactors.confirmedAt)));
    if (app) return true;
  }
  const [passkey] = await db
    .select({ id: passkeys.id })
    .from(passkeys)
    .where(
      removal && "passkeyId" in removal
        ? and(eq(passkeys.userId, userId), ne(passkeys.id, removal.passkeyId))
        : eq(passkeys.userId, userId),
    )
    .limit(1);
  return passkey !== undefined;
}

/** True when `userId` is staff and `removal` would leave the account without a second factor. */
export async function isStaffsLastFactor(tx: Tx, userId: string, removal: FactorRemoval): Promise<boolean> {
  const [account] = await tx
    .select({ role: users.role })
    .from(users)
    .where(eq(users.id, userId))
    .for("update");
  if (!account || account.role === "user") return false;
  return !(await hasSecondFactor(tx, userId, removal));
}
