// A staff account never loses its last second factor (issue 30): a staff role is given only to an
// account with one (operations/staff-roles.ts), and removing the last would bring back what that
// rule prevents, a console opened by whoever has the password and enrols their own authenticator.
// The check locks the account's row, so two removals at once (two passkeys) and a role given at
// the same time are decided one after the other.
import { and, count, eq, isNotNull, ne } from "drizzle-orm";
import { passkeys, totpFactors, users } from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";

/** What is about to be removed: the authenticator app, or one passkey. */
export type FactorRemoval = { totp: true } | { passkeyId: string };

/** True when `userId` is staff and `removal` would leave the account without a second factor. */
export async function isStaffsLastFactor(tx: Tx, userId: string, removal: FactorRemoval): Promise<boolean> {
  const [account] = await tx
    .select({ role: users.role })
    .from(users)
    .where(eq(users.id, userId))
    .for("update");
  if (!account || account.role === "user") return false;
  const [app] =
    "totp" in removal
      ? []
      : await tx
          .select({ userId: totpFactors.userId })
          .from(totpFactors)
          .where(and(eq(totpFactors.userId, userId), isNotNull(totpFactors.confirmedAt)));
  if (app) return false;
  const [others] = await tx
    .select({ n: count() })
    .from(passkeys)
    .where(
      "passkeyId" in removal
        ? and(eq(passkeys.userId, userId), ne(passkeys.id, removal.passkeyId))
        : eq(passkeys.userId, userId),
    );
  return (others?.n ?? 0) === 0;
}
