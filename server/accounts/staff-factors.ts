// Staff and their second factors (issue 30). A staff role is given only to an account with a
// second factor (operations/staff-roles.ts), and a staff account never loses its last one: either
// gap would bring back a console opened by whoever has the password and enrols their own
// authenticator. The removal's check locks the account's row, as the role's grant does, so a
// removal and a grant (or two removals) at the same time are decided one after the other.
// What signing in, re-authenticating and adding a factor ask of an account follows from its role
// and its factors, read once (decision 046).
import { and, eq, exists, isNotNull, ne, sql } from "drizzle-orm";
import { passkeys, type Role, totpFactors, users } from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";

/** What an account's sign-in can ask for: its role, a confirmed authenticator app, a passkey. */
export interface SignInFactors {
  role: Role;
  app: boolean;
  passkey: boolean;
}

/** The account's role and second factors, in one query; an unknown account has none. */
export async function signInFactors(db: DbOrTx, userId: string): Promise<SignInFactors> {
  const app = db
    .select({ one: sql`1` })
    .from(totpFactors)
    .where(and(eq(totpFactors.userId, users.id), isNotNull(totpFactors.confirmedAt)));
  const passkey = db.select({ one: sql`1` }).from(passkeys).where(eq(passkeys.userId, users.id));
  const [row] = await db
    .select({
      role: users.role,
      app: sql<boolean>`${exists(app)}`,
      passkey: sql<boolean>`${exists(passkey)}`,
    })
    .from(users)
    .where(eq(users.id, userId));
  return row ? { role: row.role, app: row.app === true, passkey: row.passkey === true } : NO_FACTORS;
}

const NO_FACTORS: SignInFactors = { role: "user", app: false, passkey: false };

/**
 * Whether POST /v1/token asks for a second factor after the password (decision 046): a confirmed
 * authenticator app; for staff, a passkey too. A customer's passkey alone does not (decision 023:
 * the password alone signs them in).
 */
export function signInAsksFactor(factors: SignInFactors): boolean {
  return factors.app || (factors.role !== "user" && factors.passkey);
}

/**
 * What re-authenticating takes, never less than signing in (decisions 023, 046): the password and
 * a code when the app is on; the passkey when signing in asks for it alone (staff with a passkey
 * and no app); otherwise the password alone (or a passkey).
 */
export function reauthNeeds(factors: SignInFactors): "code" | "passkey" | "password" {
  if (factors.app) return "code";
  return signInAsksFactor(factors) ? "passkey" : "password";
}

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
