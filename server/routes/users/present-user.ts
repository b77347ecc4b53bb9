// The User answer of the API (GET /v1/users/me and the billing calls that return the user). The one
// place that decides what a client sees about a user. Billing extends it with the real balance and
// subscription; until then every user has 0 credits and the FREE plan.
import { FREE_SUBSCRIPTION, type User } from "../../../contract/account.ts";
import type { UserRow } from "../../db/schema/index.ts";
import type { Db } from "../../db/types.ts";

export async function presentUser(_db: Db, user: UserRow, _now: Date): Promise<User> {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    role: user.role,
    email_verified: user.emailVerified,
    credit_balance: 0,
    subscription: { ...FREE_SUBSCRIPTION },
  };
}
