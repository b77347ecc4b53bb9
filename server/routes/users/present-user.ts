// The User answer of the API (GET /v1/users/me and the billing calls that return the user). The one
// place that decides what a client sees about a user: account fields plus the real credit balance
// and subscription from billing.
import type { User } from "../../../contract/account.ts";
import {
  billingAt,
  type UserBilling,
  type UserWithBilling,
  userBilling,
} from "../../billing/user-billing.ts";
import type { UserRow } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import type { TierLookup } from "../../domain/subscription.ts";

function answer(
  user: Pick<UserRow, "id" | "username" | "email" | "role" | "emailVerified">,
  billing: UserBilling,
): User {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    role: user.role,
    email_verified: user.emailVerified,
    ...billing,
  };
}

export async function presentUser(db: DbOrTx, user: UserRow, now: Date, tiers?: TierLookup): Promise<User> {
  return answer(user, await userBilling(db, user.id, now, tiers));
}

/** The same answer from a user read together with their billing (findUserWithBilling). */
export function presentUserWithBilling(
  { user, grants, subscription }: UserWithBilling,
  now: Date,
  tiers?: TierLookup,
): User {
  return answer(user, billingAt(grants, subscription, now, tiers));
}
