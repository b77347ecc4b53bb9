// The User answer of a billing call that acted on an organisation (update-subscription,
// cancel-subscription): the caller's account fields with that organisation's balance and plan, as
// GET /v1/users/me answers with the same X-Organization.
import type { User } from "../../../contract/account.ts";
import { userGrants } from "../../billing/ledger-store.ts";
import { loadState } from "../../billing/subscription-store.ts";
import type { UserRow } from "../../db/schema/index.ts";
import type { ApiDeps } from "../api-deps.ts";
import { presentUserWithBilling } from "../users/present-user.ts";

export async function presentUserForOrg(deps: ApiDeps, user: UserRow, orgId: string): Promise<User> {
  const [grants, subscription] = await Promise.all([userGrants(deps.db, orgId), loadState(deps.db, orgId)]);
  return presentUserWithBilling({ user, grants, subscription }, deps.clock.now(), deps.tiers);
}
