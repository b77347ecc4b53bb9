// The subscription state machine's state in the database: the user's one live row of
// `subscriptions` (active or past_due), or none for FREE. Saving a FREE state ends the live row.
import { randomUUID } from "node:crypto";
import { and, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { VatIdStatus } from "../../contract/vat-id-verification.ts";
import { preparedPerHandle } from "../db/prepared.ts";
import { billingCustomers, subscriptions, vatIdChecks } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { FREE, type SubscriptionState } from "../domain/subscription.ts";
import { compactVatId } from "../domain/vat.ts";
import { billingEmailOf } from "./billing-contacts.ts";
import type { BillingDetailsOnFile, CustomerDetails, CustomerStore } from "./ports/payment-provider.ts";

/** The statuses of a live subscription row: a user has at most one. */
export const LIVE_STATUSES = ["active", "past_due"] as const;

// Read by the billing calls: prepared (see db/prepared.ts).
const liveSubscription = preparedPerHandle((db) =>
  db
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.userId, sql.placeholder("userId")),
        inArray(subscriptions.status, [...LIVE_STATUSES]),
      ),
    )
    .prepare("live_subscription_of_user"),
);

/** The subscriptions columns the state is made of. */
export const STATE_COLUMNS = {
  status: subscriptions.status,
  providerSubscriptionId: subscriptions.providerSubscriptionId,
  productId: subscriptions.productId,
  currentPeriodStart: subscriptions.currentPeriodStart,
  currentPeriodEnd: subscriptions.currentPeriodEnd,
  periodIsEstimate: subscriptions.periodIsEstimate,
  cancelAtPeriodEnd: subscriptions.cancelAtPeriodEnd,
  scheduledProductId: subscriptions.scheduledProductId,
};

/** The state a user's live subscription row (or its STATE_COLUMNS) stands for (none: FREE). */
export function stateFromRow(
  row: Pick<typeof subscriptions.$inferSelect, keyof typeof STATE_COLUMNS> | null | undefined,
): SubscriptionState {
  if (!row || row.status === "ended") return FREE;
  return {
    status: row.status,
    subscriptionId: row.providerSubscriptionId,
    productId: row.productId,
    currentPeriodStart: row.currentPeriodStart,
    currentPeriodEnd: row.currentPeriodEnd,
    periodIsEstimate: row.periodIsEstimate,
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    scheduledProductId: row.scheduledProductId,
  };
}

export async function loadState(db: DbOrTx, userId: string): Promise<SubscriptionState> {
  const [row] = await liveSubscription(db).execute({ userId });
  return stateFromRow(row);
}

/** Persists `after` (the caller holds the user's lock). */
export async function saveState(
  db: DbOrTx,
  userId: string,
  before: SubscriptionState,
  after: SubscriptionState,
  now: Date,
  customerId: string | null,
): Promise<void> {
  if (
    before.status !== "free" &&
    (after.status === "free" || after.subscriptionId !== before.subscriptionId)
  ) {
    await db
      .update(subscriptions)
      .set({ status: "ended", endedAt: now, updatedAt: now })
      .where(eq(subscriptions.providerSubscriptionId, before.subscriptionId));
  }
  if (after.status === "free") return;
  const fields = {
    productId: after.productId,
    status: after.status,
    currentPeriodStart: after.currentPeriodStart,
    currentPeriodEnd: after.currentPeriodEnd,
    periodIsEstimate: after.periodIsEstimate,
    cancelAtPeriodEnd: after.cancelAtPeriodEnd,
    scheduledProductId: after.scheduledProductId,
    endedAt: null,
    updatedAt: now,
  };
  await db
    .insert(subscriptions)
    .values({
      id: randomUUID(),
      userId,
      providerSubscriptionId: after.subscriptionId,
      customerId,
      createdAt: now,
      ...fields,
    })
    .onConflictDoUpdate({ target: subscriptions.providerSubscriptionId, set: fields });
}

/** The user an event belongs to when it carries no user id: by subscription, then by customer. */
export async function findUserByProviderIds(
  db: DbOrTx,
  ids: { subscriptionId: string | null; customerId: string | null },
): Promise<string | undefined> {
  if (ids.subscriptionId) {
    const [row] = await db
      .select({ userId: subscriptions.userId })
      .from(subscriptions)
      .where(eq(subscriptions.providerSubscriptionId, ids.subscriptionId));
    if (row) return row.userId;
  }
  if (ids.customerId) {
    const [row] = await db
      .select({ userId: billingCustomers.userId })
      .from(billingCustomers)
      .where(eq(billingCustomers.customerId, ids.customerId));
    if (row) return row.userId;
  }
  return undefined;
}

/** The organisation (or user) whose provider customer this is, if any. */
export async function findOrgOfCustomer(db: DbOrTx, customerId: string): Promise<string | null> {
  const [row] = await db
    .select({ userId: billingCustomers.userId })
    .from(billingCustomers)
    .where(eq(billingCustomers.customerId, customerId));
  return row?.userId ?? null;
}

export async function findCustomerId(db: DbOrTx, userId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ customerId: billingCustomers.customerId })
    .from(billingCustomers)
    .where(eq(billingCustomers.userId, userId));
  return row?.customerId;
}

export async function saveCustomerId(db: DbOrTx, userId: string, customerId: string): Promise<string> {
  await db.insert(billingCustomers).values({ userId, customerId }).onConflictDoNothing();
  return (await findCustomerId(db, userId)) ?? customerId;
}

/** The billing details on file: what the last checkout collected (Stripe keeps them on its customer). */
export async function findBillingDetails(
  db: DbOrTx,
  userId: string,
): Promise<BillingDetailsOnFile | undefined> {
  const [row] = await db
    .select({
      customerId: billingCustomers.customerId,
      name: billingCustomers.name,
      country: billingCustomers.country,
      vatId: billingCustomers.vatId,
      email: billingCustomers.email,
      address: billingCustomers.address,
      updatedAt: billingCustomers.detailsUpdatedAt,
    })
    .from(billingCustomers)
    .where(eq(billingCustomers.userId, userId));
  if (!row?.country) return undefined;
  const { customerId, ...details } = row;
  return { ...details, vatIdStatus: await vatIdStatusOf(db, customerId, row.vatId) };
}

/** The state of a customer's VAT ID: its own check's, else pending; null without a VAT ID. */
async function vatIdStatusOf(db: DbOrTx, customerId: string, vatId: string | null) {
  if (vatId === null) return null;
  const [check] = await db
    .select({ status: vatIdChecks.status })
    .from(vatIdChecks)
    .where(and(eq(vatIdChecks.customerId, customerId), eq(vatIdChecks.vatId, compactVatId(vatId))));
  return check?.status ?? "pending";
}

/**
 * Stores the provider's check of a customer's VAT ID, unless a newer fact about that ID is stored
 * (events arrive in any order; one of the same second is taken, as the later to arrive). Our own
 * read of the provider's answer (`asRead`: saving the details) never replaces a check of its own
 * second: Stripe's event of that second may be VIES' answer, which came after the read. Answers
 * whether it was stored.
 */
export async function saveVatIdCheck(
  db: DbOrTx,
  check: { customerId: string; vatId: string; status: VatIdStatus; created: Date },
  asRead = false,
): Promise<boolean> {
  const stored = await db
    .insert(vatIdChecks)
    .values({
      customerId: check.customerId,
      vatId: compactVatId(check.vatId),
      status: check.status,
      checkedAt: check.created,
    })
    .onConflictDoUpdate({
      target: [vatIdChecks.customerId, vatIdChecks.vatId],
      set: { status: check.status, checkedAt: check.created },
      setWhere: (asRead ? lt : lte)(vatIdChecks.checkedAt, check.created),
    })
    .returning({ status: vatIdChecks.status });
  return stored.length > 0;
}

/**
 * Saves the details a payment was made with, unless a later payment's are already there (events
 * arrive in any order).
 */
export async function saveBillingDetails(
  db: DbOrTx,
  userId: string,
  details: { name: string | null; country: string; vatId: string | null },
  at: Date,
): Promise<void> {
  await db
    .update(billingCustomers)
    .set({
      name: details.name,
      country: details.country,
      vatId: details.vatId,
      // A postal address given for another country no longer describes the buyer.
      address: sql`case when ${billingCustomers.address}->>'country' = ${details.country} then ${billingCustomers.address} else null end`,
      detailsUpdatedAt: at,
    })
    .where(
      and(
        eq(billingCustomers.userId, userId),
        or(isNull(billingCustomers.detailsUpdatedAt), lte(billingCustomers.detailsUpdatedAt, at)),
      ),
    );
}

/**
 * The organisation's billing details as given (PUT /v1/billing/details), next to its customer id,
 * with the VAT ID's state as the provider answered it.
 */
export async function saveGivenBillingDetails(
  db: DbOrTx,
  orgId: string,
  details: CustomerDetails,
  vatIdStatus: VatIdStatus | null,
  at: Date,
): Promise<void> {
  const [saved] = await db
    .update(billingCustomers)
    .set({
      name: details.name,
      country: details.address.country,
      vatId: details.vatId,
      email: details.email,
      address: details.address,
      detailsUpdatedAt: at,
    })
    .where(eq(billingCustomers.userId, orgId))
    .returning({ customerId: billingCustomers.customerId });
  // The provider's answer as of now (Stripe dates its events in whole seconds).
  if (saved && details.vatId && vatIdStatus) {
    const second = new Date(Math.floor(at.getTime() / 1000) * 1000);
    await saveVatIdCheck(
      db,
      { customerId: saved.customerId, vatId: details.vatId, status: vatIdStatus, created: second },
      true,
    );
  }
}

/** When the user's command or an applied provider snapshot last changed this subscription. */
export async function lastChangedAt(db: DbOrTx, subscriptionId: string): Promise<Date | null> {
  const [row] = await db
    .select({ changedAt: subscriptions.changedAt })
    .from(subscriptions)
    .where(eq(subscriptions.providerSubscriptionId, subscriptionId));
  return row?.changedAt ?? null;
}

export async function markChanged(db: DbOrTx, subscriptionId: string, at: Date): Promise<void> {
  await db
    .update(subscriptions)
    .set({ changedAt: at })
    .where(eq(subscriptions.providerSubscriptionId, subscriptionId));
}

/** The store a payment provider is given for customer ids and billing details (billing's port). */
export const customerStore: CustomerStore = {
  findCustomerId,
  saveCustomerId,
  findBillingDetails,
  findBillingEmail: billingEmailOf,
};
