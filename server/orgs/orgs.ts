// Organisations, their members and what a change to either does (ORGANISATIONS.md, "Calls"): the
// database side of /v1/orgs. Every change runs in one transaction under the organisation's row lock
// (the lock spends take too, billing/ledger-store.ts lockUser), re-reads the caller's role under
// it, and appends its audit entry last, with the organisation as its subject (decision 028).
import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { ORG_DETAIL, ORG_OWNED_MAX } from "../../contract/org-messages.ts";
import { can, invitationRolesBeyond, losesOwnKeys, type OrgRole } from "../../contract/org-roles.ts";
import type { KeyRef } from "../../contract/orgs.ts";
import { appendAudit } from "../audit/audit-log.ts";
import { endLeases } from "../billing/credit-leases.ts";
import { lockUser } from "../billing/ledger-store.ts";
import {
  apiKeys,
  creditAdjustments,
  creditGrants,
  memberCreditUsage,
  type OrganizationRow,
  organizationInvitations,
  organizationMembers,
  organizations,
  users,
} from "../db/schema/index.ts";
import type { DbOrTx, Tx } from "../db/types.ts";
import { berlinMonth } from "../domain/berlin-time.ts";
import { type CreditGrant, spendableGrants } from "../domain/ledger.ts";
import { ApiError } from "../http/errors.ts";
import { type ActingOrg, findMembership, orgNotFound } from "./membership.ts";

/** Who acts, as the audit log records them. */
export interface OrgActor {
  id: string;
  username: string;
  ip: string | null;
}

/** Appends the entry of an organisation's action (call last in its transaction). */
export function auditOrg(
  tx: Tx,
  actor: OrgActor,
  orgId: string,
  action: string,
  subjectUserId: string | null,
  details: Record<string, unknown>,
  now: Date,
) {
  return appendAudit(
    tx,
    {
      actorId: actor.id,
      actorLabel: actor.username,
      action,
      subjectUserId,
      subjectOrgId: orgId,
      reason: null,
      details,
      ip: actor.ip,
    },
    now,
  );
}

/**
 * Locks organisation `orgId` for the rest of the transaction and reads `userId`'s membership under
 * the lock: a 404 when it is gone (deleted) or they are not a member (any more).
 */
export async function lockMembership(tx: Tx, orgId: string, userId: string): Promise<ActingOrg> {
  await lockUser(tx, orgId);
  const membership = await findMembership(tx, orgId, userId);
  if (!membership) throw orgNotFound();
  return membership;
}

export interface MemberRow {
  userId: string;
  username: string;
  email: string;
  role: OrgRole;
  joinedAt: Date;
  monthlyCreditCap: number | null;
}

const MEMBER_COLUMNS = {
  userId: organizationMembers.userId,
  username: users.username,
  email: users.email,
  role: organizationMembers.role,
  joinedAt: organizationMembers.joinedAt,
  monthlyCreditCap: organizationMembers.monthlyCreditCap,
};

/** The members, owners first, then by when they joined. */
export async function listMembers(db: DbOrTx, orgId: string): Promise<MemberRow[]> {
  const rows = await db
    .select(MEMBER_COLUMNS)
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .where(eq(organizationMembers.orgId, orgId))
    .orderBy(
      sql`case ${organizationMembers.role} when 'owner' then 0 when 'manager' then 1 when 'billing' then 2 else 3 end`,
      asc(organizationMembers.joinedAt),
      asc(users.username),
    );
  return rows;
}

/** One member, or undefined (a user id that is not a uuid names nobody). */
export async function findMember(db: DbOrTx, orgId: string, userId: string): Promise<MemberRow | undefined> {
  const [row] = await db
    .select(MEMBER_COLUMNS)
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)));
  return row;
}

export async function ownerCount(db: DbOrTx, orgId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.role, "owner")));
  return row?.n ?? 0;
}

export async function memberCount(db: DbOrTx, orgId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(organizationMembers)
    .where(eq(organizationMembers.orgId, orgId));
  return row?.n ?? 0;
}

/** Milli-credits each member's keys spent in the organisation this Berlin month. */
export async function spentThisMonth(db: DbOrTx, orgId: string, now: Date): Promise<Map<string, number>> {
  const rows = await db
    .select({ userId: memberCreditUsage.userId, amount: memberCreditUsage.amount })
    .from(memberCreditUsage)
    .where(and(eq(memberCreditUsage.orgId, orgId), eq(memberCreditUsage.month, berlinMonth(now))));
  return new Map(rows.map((r) => [r.userId, r.amount]));
}

/** The organisations `userId` is a member of (not deleted): personal first, then by name. */
export async function orgsOf(db: DbOrTx, userId: string) {
  return db
    .select({
      id: organizations.id,
      name: organizations.name,
      personal: organizations.personal,
      role: organizationMembers.role,
    })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
    .where(and(eq(organizationMembers.userId, userId), isNull(organizations.deletedAt)))
    .orderBy(desc(organizations.personal), sql`lower(${organizations.name})`, asc(organizations.id));
}

export async function findOrg(db: DbOrTx, orgId: string): Promise<OrganizationRow | undefined> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, orgId));
  return row;
}

/**
 * Whether `userId` owns ORG_OWNED_MAX live team organisations already, with their user row locked
 * for the rest of `tx`: one change of what they own at a time (a creation, a promotion, a
 * transfer to them), so the count stays true until the change commits.
 */
export async function ownsTheMost(tx: Tx, userId: string): Promise<boolean> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
  const [owned] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
    .where(
      and(
        eq(organizationMembers.userId, userId),
        eq(organizationMembers.role, "owner"),
        eq(organizations.personal, false),
        isNull(organizations.deletedAt),
      ),
    );
  return (owned?.n ?? 0) >= ORG_OWNED_MAX;
}

/** Creates a team organisation with `actor` as its owner; 409 when they own 20 already. */
export async function createOrg(tx: Tx, actor: OrgActor, name: string, now: Date): Promise<OrganizationRow> {
  if (await ownsTheMost(tx, actor.id)) throw new ApiError(409, ORG_DETAIL.ownerLimit);
  const [org] = await tx
    .insert(organizations)
    .values({ id: randomUUID(), name, personal: false, createdBy: actor.id, createdAt: now })
    .returning();
  if (!org) throw new Error("The organisation was not written");
  await tx
    .insert(organizationMembers)
    .values({ orgId: org.id, userId: actor.id, role: "owner", joinedAt: now });
  await auditOrg(tx, actor, org.id, "org.create", actor.id, { name }, now);
  return org;
}

const KEY_REF = { id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix };

/** Revokes the keys `userId` made in the organisation, shared keys kept; the keys revoked. */
export async function revokeMemberKeys(tx: Tx, orgId: string, userId: string, now: Date): Promise<KeyRef[]> {
  return tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(
      and(
        eq(apiKeys.userId, orgId),
        eq(apiKeys.createdBy, userId),
        eq(apiKeys.shared, false),
        isNull(apiKeys.revokedAt),
      ),
    )
    .returning(KEY_REF);
}

/** The shared keys `userId` made in the organisation that still work (a removal keeps them). */
export async function liveSharedKeys(db: DbOrTx, orgId: string, userId: string): Promise<KeyRef[]> {
  return db
    .select(KEY_REF)
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.userId, orgId),
        eq(apiKeys.createdBy, userId),
        eq(apiKeys.shared, true),
        isNull(apiKeys.revokedAt),
      ),
    )
    .orderBy(asc(apiKeys.createdAt));
}

/**
 * Revokes the pending invitations `invitedBy` sent in the organisation (all of them without it),
 * or only those for one of `roles`.
 */
export async function revokePendingInvitations(
  tx: Tx,
  orgId: string,
  now: Date,
  invitedBy?: string,
  roles?: readonly OrgRole[],
): Promise<number> {
  const revoked = await tx
    .update(organizationInvitations)
    .set({ revokedAt: now })
    .where(
      and(
        eq(organizationInvitations.orgId, orgId),
        invitedBy === undefined ? undefined : eq(organizationInvitations.invitedBy, invitedBy),
        roles === undefined ? undefined : inArray(organizationInvitations.role, [...roles]),
        isNull(organizationInvitations.acceptedAt),
        isNull(organizationInvitations.revokedAt),
        gt(organizationInvitations.expiresAt, now),
      ),
    )
    .returning({ id: organizationInvitations.id });
  return revoked.length;
}

/**
 * The pending invitations `userId` sent for a role their new one cannot give (a manager made a
 * developer: all of them; an owner made a manager: those for billing), revoked in `tx`. An
 * invitation grants its role when it is accepted, whenever that is: one sent under a role the
 * inviter no longer holds would hand it on, to anyone's second address.
 */
async function revokeInvitationsBeyondRole(
  tx: Tx,
  orgId: string,
  userId: string,
  role: OrgRole,
  now: Date,
): Promise<number> {
  const beyond = invitationRolesBeyond(role);
  return beyond.length === 0 ? 0 : revokePendingInvitations(tx, orgId, now, userId, beyond);
}

/**
 * What a member's change of role from `from` to `to` ends, in `tx` (the caller holds the
 * organisation's lock), as a removal ends it (decision 045): the keys they made when the new role
 * has none, the invitations they sent for a role it cannot give, and, when it has no billing, the
 * checkouts and card-setup pages they opened (`closeCheckouts`). Every change of role goes through
 * here: a member's PATCH and the former owner of a transfer.
 */
export async function endWhatTheRoleLost(
  tx: Tx,
  closeCheckouts: (tx: Tx, orgId: string, openedBy: string) => Promise<void>,
  change: { orgId: string; userId: string; from: OrgRole; to: OrgRole; now: Date },
): Promise<{ revokedKeys: KeyRef[]; revokedInvitations: number }> {
  const { orgId, userId, from, to, now } = change;
  // What their keys may do changes with the role (decision 045): no lease decides by the old one.
  if (from !== to) await endLeases(tx, { orgId, memberId: userId }, "member_changed");
  const revokedKeys = losesOwnKeys(from, to) ? await revokeMemberKeys(tx, orgId, userId, now) : [];
  const revokedInvitations = await revokeInvitationsBeyondRole(tx, orgId, userId, to, now);
  if (can(from, "billing") && !can(to, "billing")) await closeCheckouts(tx, orgId, userId);
  return { revokedKeys, revokedInvitations };
}

export interface Removal {
  revokedKeys: KeyRef[];
  sharedKeys: KeyRef[];
  revokedInvitations: number;
}

/**
 * Ends `userId`'s membership in `tx` (the caller holds the organisation's lock and has checked the
 * change table): the keys they made are revoked (shared keys stay, listed), and the invitations
 * they sent. Their access ends with the row: every call reads membership from the database.
 */
export async function endMembership(tx: Tx, orgId: string, userId: string, now: Date): Promise<Removal> {
  // Their leases first: none goes on charging for someone who is no longer a member.
  await endLeases(tx, { orgId, memberId: userId }, "member_changed");
  await tx
    .delete(organizationMembers)
    .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)));
  const revokedKeys = await revokeMemberKeys(tx, orgId, userId, now);
  const sharedKeys = await liveSharedKeys(tx, orgId, userId);
  const revokedInvitations = await revokePendingInvitations(tx, orgId, now, userId);
  return { revokedKeys, sharedKeys, revokedInvitations };
}

/**
 * Writes off every live credit of the organisation (the deletion's `forfeit`): one adjustment per
 * grant, as a take-back records them, so the ledger shows where the balance went. Milli-credits.
 */
export async function forfeitCredits(tx: Tx, orgId: string, grants: readonly CreditGrant[], now: Date) {
  let total = 0;
  for (const grant of spendableGrants(grants, now)) {
    await tx
      .update(creditGrants)
      .set({ remaining: sql`${creditGrants.remaining} - ${grant.remaining}` })
      .where(eq(creditGrants.id, grant.id));
    await tx.insert(creditAdjustments).values({
      id: randomUUID(),
      userId: orgId,
      grantId: grant.id,
      kind: "forfeit",
      amount: grant.remaining,
      reference: `forfeit:${orgId}:${grant.id}`,
      createdAt: now,
    });
    total += grant.remaining;
  }
  return total;
}

/** Every live key of the organisation, revoked (the deletion). */
export async function revokeOrgKeys(tx: Tx, orgId: string, now: Date): Promise<KeyRef[]> {
  return tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.userId, orgId), isNull(apiKeys.revokedAt)))
    .returning(KEY_REF);
}

/** Ends every membership of the organisation and marks it deleted (its row stays, § 147 AO). */
export async function closeOrg(tx: Tx, orgId: string, now: Date): Promise<string[]> {
  const ended = await tx
    .delete(organizationMembers)
    .where(eq(organizationMembers.orgId, orgId))
    .returning({ userId: organizationMembers.userId });
  await tx.update(organizations).set({ deletedAt: now }).where(eq(organizations.id, orgId));
  return ended.map((m) => m.userId);
}

/** Team organisations where `userId` is the only owner and others are members (account deletion's 409). */
export async function lastOwnerOfTeams(db: DbOrTx, userId: string) {
  const mine = await db
    .select({ id: organizations.id, name: organizations.name })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
    .where(
      and(
        eq(organizationMembers.userId, userId),
        eq(organizationMembers.role, "owner"),
        eq(organizations.personal, false),
        isNull(organizations.deletedAt),
      ),
    )
    .orderBy(asc(organizations.name));
  if (mine.length === 0) return [];
  const counts = await db
    .select({
      orgId: organizationMembers.orgId,
      owners: sql<number>`count(*) filter (where ${organizationMembers.role} = 'owner')::int`,
      members: sql<number>`count(*)::int`,
    })
    .from(organizationMembers)
    .where(
      inArray(
        organizationMembers.orgId,
        mine.map((o) => o.id),
      ),
    )
    .groupBy(organizationMembers.orgId);
  const byOrg = new Map(counts.map((c) => [c.orgId, c]));
  return mine.filter((o) => {
    const c = byOrg.get(o.id);
    return c !== undefined && c.owners <= 1 && c.members > 1;
  });
}

/** Team organisations whose only member is `userId` (deleted with the account). */
export async function soleMemberTeams(db: DbOrTx, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: organizations.id })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
    .where(
      and(
        eq(organizationMembers.userId, userId),
        eq(organizations.personal, false),
        isNull(organizations.deletedAt),
        sql`(select count(*) from ${organizationMembers} m where m.org_id = ${organizations.id}) = 1`,
      ),
    );
  return rows.map((r) => r.id);
}
