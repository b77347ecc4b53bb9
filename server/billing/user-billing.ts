// The billing half of the User answer: credit_balance (live grants at `now`) and the subscription
// as it stands at `now` (what is due at the period end already applied, so a read never waits for
// the billing job).
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { User } from "../../contract/account.ts";
import { tierForProductId } from "../../contract/catalogue.ts";
import { isUserId } from "../accounts/users.ts";
import { preparedPerHandle } from "../db/prepared.ts";
import {
  creditGrants,
  organizationMembers,
  organizations,
  subscriptions,
  type UserRow,
  users,
} from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { balance, type CreditGrant, fromMillicredits } from "../domain/ledger.ts";
import {
  periodEnded,
  type SubscriptionState,
  type TierLookup,
  toUserSubscription,
} from "../domain/subscription.ts";
import { GRANT_COLUMNS, NEWEST_GRANT_FIRST, toCreditGrant, userGrants } from "./ledger-store.ts";
import { LIVE_STATUSES, loadState, STATE_COLUMNS, stateFromRow } from "./subscription-store.ts";

export type UserBilling = Pick<User, "credit_balance" | "subscription">;

/** The billing half of the answer from what is stored: the grants and the live subscription. */
export function billingAt(
  grants: readonly CreditGrant[],
  stored: SubscriptionState,
  now: Date,
  tiers: TierLookup | undefined = tierForProductId,
): UserBilling {
  return {
    credit_balance: fromMillicredits(balance([...grants], now)),
    subscription: toUserSubscription(periodEnded(stored, now).state, tiers),
  };
}

export async function userBilling(
  db: DbOrTx,
  userId: string,
  now: Date,
  tiers: TierLookup | undefined = tierForProductId,
): Promise<UserBilling> {
  // Two independent reads: sent together, they cost one round trip to the database instead of two.
  const [grants, stored] = await Promise.all([userGrants(db, userId), loadState(db, userId)]);
  return billingAt(grants, stored, now, tiers);
}

/** What the User answer and the token check need of the users row (not the password hash). */
const ACCOUNT_COLUMNS = {
  id: users.id,
  username: users.username,
  email: users.email,
  role: users.role,
  emailVerified: users.emailVerified,
  tokenVersion: users.tokenVersion,
  disabledAt: users.disabledAt,
};
export type AccountFields = Pick<UserRow, keyof typeof ACCOUNT_COLUMNS>;

/** A user with what their billing is made of, read together. */
export interface UserWithBilling {
  user: AccountFields;
  grants: CreditGrant[];
  subscription: SubscriptionState;
  /** Whether the personal organisation is on a dispute hold (read by findUserWithBilling only). */
  disputeHold?: boolean;
}

// The user, each of their grants (newest first) and their live subscription, one row per grant, only
// the columns the answer needs: GET /v1/users/me in one statement instead of three (it is the API's
// most frequent call).
const userWithBillingQuery = preparedPerHandle((db) =>
  db
    .select({ ...USER_WITH_BILLING_COLUMNS, heldAt: organizations.disputeHoldAt })
    .from(users)
    // The personal organisation (id = the user's id): its dispute hold comes in the same statement.
    .leftJoin(organizations, eq(organizations.id, users.id))
    .leftJoin(creditGrants, eq(creditGrants.userId, users.id))
    .leftJoin(subscriptions, liveSubscriptionOf(users.id))
    .where(eq(users.id, sql.placeholder("id")))
    .orderBy(...NEWEST_GRANT_FIRST)
    .prepare("user_with_billing"),
);

/** The columns a query selects to read a user with their billing in one statement (see below). */
export const USER_WITH_BILLING_COLUMNS = {
  user: ACCOUNT_COLUMNS,
  grant: GRANT_COLUMNS,
  subscription: STATE_COLUMNS,
};

/** The live subscription's join condition, for queries that read a user with their billing. */
export const liveSubscriptionOf = (userId: AnyPgColumn) =>
  and(eq(subscriptions.userId, userId), inArray(subscriptions.status, [...LIVE_STATUSES]));

type UserWithBillingRow = {
  user: AccountFields;
  grant: Parameters<typeof toCreditGrant>[0] | null;
  subscription: Parameters<typeof stateFromRow>[0];
  heldAt?: Date | null;
};

/** The rows of such a query (one per grant) as the user with their billing; undefined for none. */
export function collectUserWithBilling(rows: readonly UserWithBillingRow[]): UserWithBilling | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const grants = new Map<string, CreditGrant>();
  for (const { grant } of rows)
    if (grant && !grants.has(grant.id)) grants.set(grant.id, toCreditGrant(grant));
  return {
    user: first.user,
    grants: [...grants.values()],
    subscription: stateFromRow(first.subscription),
    ...(first.heldAt !== undefined && { disputeHold: first.heldAt !== null }),
  };
}

/** The same as findUserById, userGrants and loadState together, in one round trip. */
export async function findUserWithBilling(db: DbOrTx, userId: string): Promise<UserWithBilling | undefined> {
  if (!isUserId(userId)) return undefined;
  return collectUserWithBilling(await userWithBillingQuery(db).execute({ id: userId }));
}

// A member's organisation with its billing: GET /v1/users/me with X-Organization in one prepared
// statement (the membership, the organisation, its grants and its live subscription), as the
// personal answer is one statement too: the header costs one round trip, not three.
const membershipWithBillingQuery = preparedPerHandle((db) =>
  db
    .select({
      org: { id: organizations.id, name: organizations.name, personal: organizations.personal },
      heldAt: organizations.disputeHoldAt,
      role: organizationMembers.role,
      grant: GRANT_COLUMNS,
      subscription: STATE_COLUMNS,
    })
    .from(organizationMembers)
    .innerJoin(
      organizations,
      and(eq(organizations.id, organizationMembers.orgId), isNull(organizations.deletedAt)),
    )
    .leftJoin(creditGrants, eq(creditGrants.userId, organizationMembers.orgId))
    .leftJoin(subscriptions, liveSubscriptionOf(organizationMembers.orgId))
    .where(
      and(
        eq(organizationMembers.orgId, sql.placeholder("orgId")),
        eq(organizationMembers.userId, sql.placeholder("userId")),
      ),
    )
    .orderBy(...NEWEST_GRANT_FIRST)
    .prepare("membership_with_billing"),
);

/** `userId`'s membership of `orgId` (not deleted) with the organisation's billing at `now`; undefined for a non-member. */
export async function findMembershipWithBilling(
  db: DbOrTx,
  orgId: string,
  userId: string,
  now: Date,
  tiers: TierLookup | undefined = tierForProductId,
) {
  if (!isUserId(orgId)) return undefined;
  const rows = await membershipWithBillingQuery(db).execute({ orgId, userId });
  const first = rows[0];
  if (!first) return undefined;
  const grants = new Map<string, CreditGrant>();
  for (const { grant } of rows)
    if (grant && !grants.has(grant.id)) grants.set(grant.id, toCreditGrant(grant));
  return {
    org: { ...first.org, role: first.role },
    disputeHold: first.heldAt !== null,
    billing: billingAt([...grants.values()], stateFromRow(first.subscription), now, tiers),
  };
}
