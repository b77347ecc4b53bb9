// What the console shows of organisations (ORGANISATIONS.md, "The operator console"): the search
// (a name prefix, an organisation id, a key prefix, an invoice number or a provider customer id),
// one organisation with its plan, credits, keys and billing details, its members, and a user's
// organisations for the customer page. Its ledger, payments, usage and audit trail are the
// customer views' (customer-views.ts), read with the organisation's id: it is the billing account.
import { and, count, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { FREE_SUBSCRIPTION } from "../../contract/account.ts";
import type { AdminOrg, AdminOrgMember, AdminOrgRow, CustomerOrg } from "../../contract/admin-orgs.ts";
import { canonicalUuid, isUserId } from "../accounts/users.ts";
import { listApiKeys } from "../api-access/api-keys.ts";
import { searchedApiKeyId } from "../api-access/key-format.ts";
import { userGrants } from "../billing/ledger-store.ts";
import { toLedgerEntry } from "../billing/reads.ts";
import { findBillingDetails, loadState } from "../billing/subscription-store.ts";
import { billingAt } from "../billing/user-billing.ts";
import {
  apiKeys,
  billingCustomers,
  invoices,
  memberCreditUsage,
  organizationMembers,
  organizations,
  users,
} from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { berlinMonth } from "../domain/berlin-time.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import type { TierLookup } from "../domain/subscription.ts";
import { billingOf } from "./customer-search.ts";

/** Organisations the search answers at most, newest first. */
export const ORG_SEARCH_LIMIT = 50;
const QUERY_MAX = 200;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The condition on organizations that `q` stands for; undefined for an empty query (every one). */
export function orgSearchCondition(q: string): SQL | undefined {
  const text = q.trim().slice(0, QUERY_MAX);
  if (text === "") return undefined;
  const id = canonicalUuid(text);
  if (isUserId(id)) return eq(organizations.id, id);
  const keyId = searchedApiKeyId(text);
  if (keyId !== undefined) {
    return sql`${organizations.id} in (select ${apiKeys.userId} from ${apiKeys} where ${apiKeys.id} like ${`${escapeLike(keyId)}%`})`;
  }
  if (/^INV-/i.test(text)) {
    return sql`${organizations.id} in (select ${invoices.userId} from ${invoices} where ${invoices.number} = ${text.toUpperCase()})`;
  }
  if (text.startsWith("cus_")) {
    return sql`${organizations.id} in (select ${billingCustomers.userId} from ${billingCustomers} where ${billingCustomers.customerId} = ${text})`;
  }
  return sql`lower(${organizations.name}) like ${`${escapeLike(text.toLowerCase())}%`}`;
}

/** The owners (id and username) and the number of members of each of `ids`. */
async function peopleOf(db: DbOrTx, ids: string[]) {
  const owners = new Map<string, { id: string; username: string }[]>();
  const counts = new Map<string, number>();
  if (ids.length === 0) return { owners, counts };
  const [ownerRows, countRows] = await Promise.all([
    db
      .select({ orgId: organizationMembers.orgId, id: users.id, username: users.username })
      .from(organizationMembers)
      .innerJoin(users, eq(users.id, organizationMembers.userId))
      .where(and(inArray(organizationMembers.orgId, ids), eq(organizationMembers.role, "owner")))
      .orderBy(users.username),
    db
      .select({ orgId: organizationMembers.orgId, n: count() })
      .from(organizationMembers)
      .where(inArray(organizationMembers.orgId, ids))
      .groupBy(organizationMembers.orgId),
  ]);
  for (const row of ownerRows) {
    const list = owners.get(row.orgId) ?? [];
    list.push({ id: row.id, username: row.username });
    owners.set(row.orgId, list);
  }
  for (const row of countRows) counts.set(row.orgId, Number(row.n));
  return { owners, counts };
}

export async function searchOrgs(
  db: DbOrTx,
  q: string,
  now: Date,
  tiers: TierLookup,
): Promise<{ data: AdminOrgRow[] }> {
  const rows = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      personal: organizations.personal,
      deletedAt: organizations.deletedAt,
    })
    .from(organizations)
    .where(orgSearchCondition(q))
    .orderBy(desc(organizations.createdAt), desc(organizations.id))
    .limit(ORG_SEARCH_LIMIT);
  const ids = rows.map((r) => r.id);
  const [billing, people] = await Promise.all([billingOf(db, ids), peopleOf(db, ids)]);
  return {
    data: rows.map((r) => {
      const found = billing.get(r.id);
      const at = found ? billingAt(found.grants, found.state, now, tiers) : undefined;
      return {
        id: r.id,
        name: r.name,
        personal: r.personal,
        owners: people.owners.get(r.id) ?? [],
        plan: at?.subscription?.plan ?? "FREE",
        credit_balance: at?.credit_balance ?? 0,
        member_count: people.counts.get(r.id) ?? 0,
        deleted: r.deletedAt !== null,
      };
    }),
  };
}

/** The organisation row (deleted ones too), or undefined. */
export async function findOrganisation(db: DbOrTx, id: string) {
  if (!isUserId(id)) return undefined;
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id));
  return row;
}

export async function orgOverview(
  db: DbOrTx,
  id: string,
  now: Date,
  tiers: TierLookup,
): Promise<AdminOrg | undefined> {
  const org = await findOrganisation(db, id);
  if (!org) return undefined;
  const [grants, state, keys, details, people] = await Promise.all([
    userGrants(db, org.id),
    loadState(db, org.id),
    listApiKeys(db, org.id, now, { includeRevoked: true }),
    findBillingDetails(db, org.id),
    peopleOf(db, [org.id]),
  ]);
  const billing = billingAt(grants, state, now, tiers);
  return {
    id: org.id,
    name: org.name,
    personal: org.personal,
    created_at: org.createdAt.toISOString(),
    deleted_at: iso(org.deletedAt),
    disabled_at: iso(org.disabledAt),
    dispute_hold_at: iso(org.disputeHoldAt),
    owners: people.owners.get(org.id) ?? [],
    member_count: people.counts.get(org.id) ?? 0,
    subscription: billing.subscription ?? FREE_SUBSCRIPTION,
    credit_balance: billing.credit_balance,
    credits: grants.map(toLedgerEntry),
    api_keys: keys.map(({ row, usedThisMonth }) => ({
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      created_at: row.createdAt.toISOString(),
      last_used_at: iso(row.lastUsedAt),
      expires_at: iso(row.expiresAt),
      revoked_at: iso(row.revokedAt),
      monthly_credit_limit: row.monthlyCreditLimit === null ? null : fromMillicredits(row.monthlyCreditLimit),
      credits_used_this_month: fromMillicredits(usedThisMonth),
      created_by: row.createdBy,
      shared: row.shared,
    })),
    billing_details: details ? { name: details.name, country: details.country, vat_id: details.vatId } : null,
  };
}

/** Every member with the address, role, cap and this Berlin month's spend; owners first, then by name. */
export async function orgMembers(db: DbOrTx, orgId: string, now: Date): Promise<AdminOrgMember[]> {
  const rows = await db
    .select({
      userId: organizationMembers.userId,
      username: users.username,
      email: users.email,
      role: organizationMembers.role,
      joinedAt: organizationMembers.joinedAt,
      cap: organizationMembers.monthlyCreditCap,
      spent: memberCreditUsage.amount,
    })
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .leftJoin(
      memberCreditUsage,
      and(
        eq(memberCreditUsage.orgId, organizationMembers.orgId),
        eq(memberCreditUsage.userId, organizationMembers.userId),
        eq(memberCreditUsage.month, berlinMonth(now)),
      ),
    )
    .where(eq(organizationMembers.orgId, orgId))
    .orderBy(sql`${organizationMembers.role} <> 'owner'`, users.username);
  return rows.map((r) => ({
    user_id: r.userId,
    username: r.username,
    email: r.email,
    role: r.role,
    joined_at: r.joinedAt.toISOString(),
    monthly_credit_cap: r.cap === null ? null : fromMillicredits(r.cap),
    spent_this_month: fromMillicredits(r.spent ?? 0),
  }));
}

/** The organisations `userId` is a member of, with the role: the personal one first, then by name. */
export async function customerOrgs(db: DbOrTx, userId: string): Promise<CustomerOrg[]> {
  if (!isUserId(userId)) return [];
  const rows = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      personal: organizations.personal,
      role: organizationMembers.role,
      deletedAt: organizations.deletedAt,
    })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(desc(organizations.personal), organizations.name);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    personal: r.personal,
    role: r.role,
    deleted: r.deletedAt !== null,
  }));
}
