// The billing half of the User answer: credit_balance (live grants at `now`) and the subscription
// as it stands at `now` (what is due at the period end already applied, so a read never waits for
// the billing job).
import type { User } from "../../contract/account.ts";
import { tierForProductId } from "../../contract/catalogue.ts";
import type { DbOrTx } from "../db/types.ts";
import { balance, fromMillicredits } from "../domain/ledger.ts";
import { periodEnded, type TierLookup, toUserSubscription } from "../domain/subscription.ts";
import { userGrants } from "./ledger-store.ts";
import { loadState } from "./subscription-store.ts";

export async function userBilling(
  db: DbOrTx,
  userId: string,
  now: Date,
  tiers: TierLookup | undefined = tierForProductId,
): Promise<Pick<User, "credit_balance" | "subscription">> {
  const grants = await userGrants(db, userId);
  const state = periodEnded(await loadState(db, userId), now).state;
  return {
    credit_balance: fromMillicredits(balance(grants, now)),
    subscription: toUserSubscription(state, tiers),
  };
}
