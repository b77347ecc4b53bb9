// The User answer of the API (GET /v1/users/me and the billing calls that return the user). The one
// place that decides what a client sees about a user: account fields plus the real credit balance
// and subscription from billing.
import type { User } from "../../../contract/account.ts";
import { userBilling } from "../../billing/user-billing.ts";
import type { UserRow } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import type { TierLookup } from "../../domain/subscription.ts";

export async function presentUser(db: DbOrTx, user: UserRow, now: Date, tiers?: TierLookup): Promise<User> {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    role: user.role,
    email_verified: user.emailVerified,
    ...(await userBilling(db, user.id, now, tiers)),
  };
}
