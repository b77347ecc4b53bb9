// Deleting a team organisation (DELETE /v1/orgs/{id}, and an account's deletion for the teams it is
// the only member of), and an account leaving its other teams as it is deleted (ORGANISATIONS.md,
// "Account deletion"; the order of it all: decision 028).
import { and, eq, isNull } from "drizzle-orm";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { can } from "../../contract/org-roles.ts";
import { findCard, findSettings } from "../billing/auto-top-up/store.ts";
import { endLeases } from "../billing/credit-leases.ts";
import { lockUser, userGrants } from "../billing/ledger-store.ts";
import { BillingRefusal } from "../billing/refusal.ts";
import type { Billing } from "../billing/service.ts";
import { type UserBilling, userBilling } from "../billing/user-billing.ts";
import { organizationMembers, organizations, users } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import type { TierLookup } from "../domain/subscription.ts";
import { ApiError } from "../http/errors.ts";
import type { EndedPlan } from "../mail/deletion-text.ts";
import type { OrgMails } from "./org-mails.ts";
import { subscriptionDaysLeft } from "./org-rules.ts";
import {
  auditOrg,
  closeOrg,
  endMembership,
  forfeitCredits,
  lockMembership,
  memberCount,
  type OrgActor,
  ownerCount,
  type Removal,
  revokeOrgKeys,
  revokePendingInvitations,
} from "./orgs.ts";

export interface OrgDeletionDeps {
  db: Db;
  billing: Pick<Billing, "endSubscriptionNow" | "closeOpenCheckouts">;
  /** The deletion's mail to the billing e-mail, owners and billing members (org-mails.ts). */
  orgMails: Pick<OrgMails, "orgDeleted" | "sendQueued">;
  /** The plans' tiers, to tell a paid period from the free plan (userBilling). */
  tiers?: TierLookup | undefined;
}

/** What deleting an organisation writes off: its credits, and the days of its paid period left. */
export interface DeletionLoss {
  credits: number;
  subscription_days: number;
}

/** The paid plan `billing` shows at `now`, with the whole days of its paid period left; null: none. */
function endedPlanOf(billing: UserBilling, now: Date): EndedPlan | null {
  const subscription = billing.subscription;
  if (subscription == null || subscription.status === "free") return null;
  const end = subscription.expires_at;
  return { name: subscription.plan, daysLeft: end ? subscriptionDaysLeft(new Date(end), now) : 0 };
}

/**
 * What deleting the billing account `orgId` at `now` ends for good, as its mail says it: the paid
 * plan (ended at once, without a refund) and the credits written off. A team's deletion reads it
 * here; so does an account's, for its personal organisation, in its own transaction before the
 * plan ends.
 */
export async function whatDeletionEnds(
  db: Db | Tx,
  orgId: string,
  now: Date,
  tiers: TierLookup | undefined,
): Promise<{ plan: EndedPlan | null; credits: number }> {
  const billing = await userBilling(db, orgId, now, tiers);
  return { plan: endedPlanOf(billing, now), credits: billing.credit_balance };
}

/** What deleting `orgId` at `now` would write off (DELETE /v1/orgs/{id}'s 409 says it). */
export async function lossOnDeletion(
  db: Db | Tx,
  orgId: string,
  now: Date,
  tiers: TierLookup | undefined,
): Promise<DeletionLoss> {
  const { plan, credits } = await whatDeletionEnds(db, orgId, now, tiers);
  return { credits, subscription_days: plan?.daysLeft ?? 0 };
}

/** The 409 that asks before a deletion would write `loss` off. */
export const lossRefusal = (loss: DeletionLoss) =>
  new ApiError(409, ORG_DETAIL.forfeitConfirm, {}, { ...loss });

/**
 * Deletes team organisation `orgId` as `actor` (an owner of it), in one transaction with the
 * subscription's end at the provider (at once, no refund): open checkouts expire, the credits are
 * written off (`forfeit`), invitations and every key are revoked, the memberships end and the row
 * is marked deleted. The provider goes first: if it fails, nothing here changed. The billing e-mail,
 * owners and billing members it had are mailed what ended (queued in the same transaction, sent
 * after it commits).
 *
 * With `agreed` (what the owner was shown would be lost), a deletion that would now write off more
 * credits or more paid days (a top-up, a renewal or a purchase landed meanwhile) is refused with
 * the new figures, before the provider is called and under the organisation's lock, so nothing
 * lands between the check and the write-off.
 */
export async function deleteOrganisation(
  deps: OrgDeletionDeps,
  orgId: string,
  actor: OrgActor,
  now: Date,
  agreed?: DeletionLoss,
): Promise<void> {
  const check = async (tx: Tx) => {
    const me = await lockMembership(tx, orgId, actor.id);
    if (me.personal) throw new ApiError(409, ORG_DETAIL.personalHasNoMembers);
    if (!can(me.role, "delete")) throw new ApiError(403, ORG_DETAIL.notAllowed);
    if (agreed) {
      const loss = await lossOnDeletion(tx, orgId, now, deps.tiers);
      if (loss.credits > agreed.credits || loss.subscription_days > agreed.subscription_days) {
        throw lossRefusal(loss);
      }
    }
    // What the deletion is about to end, read before anything ends it (the plan's end turns auto
    // top-up off in the same transaction, before `work`): for its mail.
    const [billing, autoTopUp, card, [deleter]] = await Promise.all([
      userBilling(tx, orgId, now, deps.tiers),
      findSettings(tx, orgId),
      findCard(tx, orgId),
      tx.select({ username: users.username, email: users.email }).from(users).where(eq(users.id, actor.id)),
    ]);
    const ending = {
      deletedBy: deleter ?? { username: actor.username, email: "" },
      plan: endedPlanOf(billing, now),
      autoTopUpWasOn: autoTopUp !== undefined && autoTopUp.status !== "off",
      card: card ? { last4: card.last4 } : null,
    };
    return { ...me, ending };
  };
  // Everything after the checks; `me` is what they found, in the same transaction.
  const work = async (tx: Tx, me: Awaited<ReturnType<typeof check>>) => {
    // First under the lock the checks took: the forfeit below takes every credit, those open leases
    // hold too (decision 051), and no lease charges a deleted organisation.
    await endLeases(tx, { orgId }, "organization_changed");
    await deps.billing.closeOpenCheckouts(tx, orgId);
    const forfeited = await forfeitCredits(tx, orgId, await userGrants(tx, orgId), now);
    const invitations = await revokePendingInvitations(tx, orgId, now);
    const keys = await revokeOrgKeys(tx, orgId, now);
    // Queued while the memberships stand: its recipients are the owners and billing members as the
    // organisation is deleted (and its billing e-mail), the owner deleting it among them.
    await deps.orgMails.orgDeleted(
      tx,
      {
        orgId,
        orgName: me.name ?? ORG_DETAIL.personalName,
        ...me.ending,
        credits: fromMillicredits(forfeited),
        keysRevoked: keys.length,
        invitationsRevoked: invitations,
      },
      now,
    );
    const members = await closeOrg(tx, orgId, now);
    await auditOrg(
      tx,
      actor,
      orgId,
      "org.delete",
      null,
      {
        name: me.name,
        credits_forfeited: fromMillicredits(forfeited),
        keys_revoked: keys.map((k) => k.id),
        invitations_revoked: invitations,
        members,
      },
      now,
    );
  };
  try {
    // The checks run first in the transaction, before the provider ends the subscription: nothing
    // may refuse after that call, which no rollback here undoes.
    let checked: Awaited<ReturnType<typeof check>> | undefined;
    await deps.billing.endSubscriptionNow(
      orgId,
      async (tx) => {
        if (!checked) throw new Error("deleteOrganisation: the checks did not run first");
        await work(tx, checked);
      },
      async (tx) => {
        checked = await check(tx);
      },
    );
  } catch (error) {
    if (!(error instanceof BillingRefusal && error.code === "no_paid_plan")) throw error;
    await deps.db.transaction(async (tx) => work(tx, await check(tx)));
  }
  // Committed: its mail goes out (the subscription's command sends what it queued too; a mail is
  // claimed under its row's lock, so it goes once).
  deps.orgMails.sendQueued();
}

/**
 * In the account deletion's transaction, before anything outside the database is changed (the
 * provider's cancellation): locks every team organisation the account is still a member of and
 * refuses (409) while it is the last owner of one with other members. The locks hold to the end of
 * the transaction, so leaveEveryTeam finds the same, and nothing after the provider's call refuses.
 */
export async function lockTeamsToLeave(tx: Tx, userId: string): Promise<{ id: string; role: string }[]> {
  const teams = await tx
    .select({ id: organizations.id, name: organizations.name })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
    .where(
      and(
        eq(organizationMembers.userId, userId),
        eq(organizations.personal, false),
        isNull(organizations.deletedAt),
      ),
    )
    .orderBy(organizations.id);
  const locked: { id: string; role: string }[] = [];
  for (const { id, name } of teams) {
    await lockUser(tx, id);
    const [membership] = await tx
      .select({ role: organizationMembers.role })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.orgId, id), eq(organizationMembers.userId, userId)));
    if (!membership) continue;
    // Checked before, and again under the lock: an owner who stepped down since must not leave a
    // team without one.
    // The answer names the team, as the check before names every one (TransferFirst).
    if (membership.role === "owner" && (await ownerCount(tx, id)) <= 1 && (await memberCount(tx, id)) > 1) {
      throw new ApiError(409, ORG_DETAIL.transferFirst, {}, { organizations: [{ id, name }] });
    }
    locked.push({ id, role: membership.role });
  }
  return locked;
}

/**
 * In the account deletion's transaction: the account leaves every team organisation it is still a
 * member of, as DELETE .../members/{user_id} does (its keys there revoked, its invitations too).
 * The caller has refused the deletion while the account is the last owner of a team with others,
 * and deleted the teams it was the only member of.
 */
export async function leaveEveryTeam(tx: Tx, actor: OrgActor, now: Date): Promise<Map<string, Removal>> {
  const left = new Map<string, { role: string; removal: Removal }>();
  for (const { id, role } of await lockTeamsToLeave(tx, actor.id)) {
    left.set(id, { role, removal: await endMembership(tx, id, actor.id, now) });
  }
  // The entries last, once every organisation's lock is held: the chain's lock waits on nothing.
  for (const [id, { role, removal }] of left) {
    await auditOrg(
      tx,
      actor,
      id,
      "member.leave",
      actor.id,
      {
        role,
        revoked_keys: removal.revokedKeys.map((k) => k.id),
        shared_keys: removal.sharedKeys.map((k) => k.id),
        revoked_invitations: removal.revokedInvitations,
        account_deleted: true,
      },
      now,
    );
  }
  return new Map([...left].map(([id, { removal }]) => [id, removal]));
}

/**
 * After the account deletion committed: each team's owners learn which keys the account's leaving
 * revoked there (none: no mail).
 */
export async function mailOwnersOfLeftTeams(
  db: Db,
  mails: OrgMails,
  member: string,
  left: ReadonlyMap<string, Removal>,
): Promise<void> {
  for (const [orgId, removal] of left) {
    if (removal.revokedKeys.length === 0) continue;
    const owners = await db
      .select({ email: users.email, username: users.username, orgName: organizations.name })
      .from(organizationMembers)
      .innerJoin(users, eq(users.id, organizationMembers.userId))
      .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
      .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.role, "owner")));
    for (const owner of owners) {
      mails.memberGone({
        to: owner.email,
        owner: owner.username,
        orgName: owner.orgName ?? ORG_DETAIL.personalName,
        member,
        keys: removal.revokedKeys,
      });
    }
  }
}
