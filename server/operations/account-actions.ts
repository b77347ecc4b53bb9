// What staff do to an account besides its credits: disable and enable it, change its role, revoke
// one of its API keys, send it a verification or reset mail, and cancel its subscription. Each
// checks the actor's permission, changes the account under its row lock and appends its audit
// entry in the same transaction (OPERATIONS.md).

import { eq } from "drizzle-orm";
import { ADMIN_TEXT } from "../../contract/admin.ts";
import type { Accounts } from "../accounts/accounts.ts";
import { appendAudit } from "../audit/audit-log.ts";
import type { AutoTopUpEngine } from "../billing/auto-top-up/engine.ts";
import { endLeases } from "../billing/credit-leases.ts";
import type { Billing } from "../billing/service.ts";
import { apiKeys, organizationMembers, organizations, type Role, users } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { type Actor, audit, auditEntryOf, autoTopUpActor, lockCustomer, refuseOwnAccount } from "./actor.ts";
import { holds, type Permission } from "./permissions.ts";
import { OperatorRefusal } from "./refusal.ts";
import { refuseStaffRoleWithoutFactor } from "./staff-roles.ts";

export interface AccountActionDeps {
  db: Db;
  accounts: Pick<Accounts, "issueLinkMail">;
  billing: Pick<Billing, "cancelSubscription" | "endSubscriptionNow">;
  /** Disabling an account or holding its money turns its personal auto top-up off. */
  autoTopUp: Pick<AutoTopUpEngine, "turnOff">;
}

/** What an action answers: the audit entry it wrote. */
export interface ActionDone {
  auditId: string;
}

function require(actor: Actor, permission: Permission): void {
  if (!holds(actor.role, permission)) throw new OperatorRefusal(403, ADMIN_TEXT.adminOnly);
}

type AccountFlag = "disabled" | "disputeHold";

const FLAGS = {
  disabled: {
    column: "disabledAt",
    permission: "disableAccount",
    setAction: "account.disable",
    clearAction: "account.enable",
    alreadySet: ADMIN_TEXT.alreadyDisabled,
    notSet: ADMIN_TEXT.notDisabled,
  },
  disputeHold: {
    column: "disputeHoldAt",
    permission: "clearDisputeHold",
    // Placed by a lost dispute's webhook (billing/dispute-hold.ts), never by staff.
    setAction: "account.dispute_hold",
    clearAction: "dispute_hold.clear",
    alreadySet: ADMIN_TEXT.noDisputeHold,
    notSet: ADMIN_TEXT.noDisputeHold,
  },
} as const satisfies Record<
  AccountFlag,
  {
    column: "disabledAt" | "disputeHoldAt";
    permission: Permission;
    setAction: string;
    clearAction: string;
    alreadySet: string;
    notSet: string;
  }
>;

/**
 * Ends the leases a disabled account or a held one may no longer be charged through (decision 051):
 * its personal organisation's, whose id is its own, and for a disabled person, theirs as a member of
 * every other organisation, in the organisations' order.
 */
async function endLeasesOfAccount(tx: Tx, userId: string, asMember: boolean): Promise<void> {
  await endLeases(tx, { orgId: userId }, "organization_changed");
  if (!asMember) return;
  const memberships = await tx
    .select({ orgId: organizationMembers.orgId })
    .from(organizationMembers)
    .where(eq(organizationMembers.userId, userId))
    .orderBy(organizationMembers.orgId);
  for (const { orgId } of memberships) {
    if (orgId !== userId) await endLeases(tx, { orgId, memberId: userId }, "member_changed");
  }
}

export function accountActions(deps: AccountActionDeps) {
  const { db } = deps;

  /**
   * Sets or clears one of the account's flags (a timestamp column read with the user on every
   * request or charge): disabled, and the dispute hold (which only a lost dispute sets).
   */
  async function setFlag(
    actor: Actor,
    customerId: string,
    flag: AccountFlag,
    on: boolean,
    reason: string,
    now: Date,
  ): Promise<ActionDone> {
    const spec = FLAGS[flag];
    require(actor, spec.permission);
    return db.transaction(async (tx) => {
      const customer = await lockCustomer(tx, customerId);
      refuseOwnAccount(actor, customer, ADMIN_TEXT.notOwnAccount);
      // Disabling is the person's (their sign-in); the dispute hold is on the money, which is their
      // personal organisation's (ORGANISATIONS.md), whose id is theirs.
      const onOrg = flag === "disputeHold";
      const [personal] = onOrg
        ? await tx
            .select({ disputeHoldAt: organizations.disputeHoldAt })
            .from(organizations)
            .where(eq(organizations.id, customerId))
            .for("no key update")
        : [];
      const since = onOrg ? (personal?.disputeHoldAt ?? null) : customer[spec.column];
      if (on === (since !== null)) throw new OperatorRefusal(409, on ? spec.alreadySet : spec.notSet);
      if (on) await endLeasesOfAccount(tx, customerId, !onOrg);
      if (onOrg) {
        await tx
          .update(organizations)
          .set({ disputeHoldAt: on ? now : null })
          .where(eq(organizations.id, customerId));
      } else {
        await tx
          .update(users)
          .set({ [spec.column]: on ? now : null, updatedAt: now })
          .where(eq(users.id, customerId));
      }
      const details = since ? { since: since.toISOString() } : {};
      const action = on ? spec.setAction : spec.clearAction;
      const row = await audit(tx, actor, { action, subjectUserId: customerId, reason, details }, now);
      if (on) {
        const off = onOrg ? "dispute_hold" : "organisation_disabled";
        await deps.autoTopUp.turnOff(tx, customerId, off, autoTopUpActor(actor), now);
      }
      return { auditId: row.id };
    });
  }

  return {
    /** Login answers 403, and no token or API key of the account is accepted until it is enabled. */
    disable: (actor: Actor, customerId: string, reason: string, now: Date) =>
      setFlag(actor, customerId, "disabled", true, reason, now),
    /** Everything valid before the account was disabled works again. */
    enable: (actor: Actor, customerId: string, reason: string, now: Date) =>
      setFlag(actor, customerId, "disabled", false, reason, now),

    /** Lets the account be charged again after a lost dispute (the customer has paid, or staff decided). */
    clearDisputeHold: (actor: Actor, customerId: string, reason: string, now: Date) =>
      setFlag(actor, customerId, "disputeHold", false, reason, now),

    /** Never on one's own account; the last admin keeps the role. */
    async changeRole(actor: Actor, customerId: string, role: Role, reason: string, now: Date) {
      require(actor, "changeRole");
      return db.transaction(async (tx): Promise<ActionDone> => {
        // Every admin row locked first, in one order: two admins demoting each other at once
        // cannot both succeed and leave no admin.
        const admins = await tx
          .select({ id: users.id })
          .from(users)
          .where(eq(users.role, "admin"))
          .orderBy(users.id)
          .for("update");
        const customer = await lockCustomer(tx, customerId);
        refuseOwnAccount(actor, customer, ADMIN_TEXT.notOwnAccount);
        if (customer.role === role) throw new OperatorRefusal(409, ADMIN_TEXT.sameRole);
        await refuseStaffRoleWithoutFactor(tx, customer.id, role);
        if (customer.role === "admin" && admins.length <= 1)
          throw new OperatorRefusal(409, ADMIN_TEXT.lastAdmin);
        await tx.update(users).set({ role, updatedAt: now }).where(eq(users.id, customerId));
        const details = { from: customer.role, to: role };
        const row = await audit(
          tx,
          actor,
          { action: "role.change", subjectUserId: customerId, reason, details },
          now,
        );
        return { auditId: row.id };
      });
    },

    /** The key stops working on every instance at once (keys are read from the database on each use). */
    async revokeKey(actor: Actor, keyId: string, reason: string, now: Date) {
      require(actor, "revokeApiKey");
      return db.transaction(async (tx): Promise<ActionDone & { customerId: string }> => {
        const [key] = await tx.select().from(apiKeys).where(eq(apiKeys.id, keyId)).for("update");
        if (!key) throw new OperatorRefusal(404, ADMIN_TEXT.keyNotFound);
        if (key.revokedAt) throw new OperatorRefusal(409, "The key is already revoked");
        await endLeases(tx, { apiKeyId: key.id }, "key_changed");
        await tx.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, keyId));
        const details = { key_id: key.id, prefix: key.prefix, name: key.name };
        const row = await audit(
          tx,
          actor,
          { action: "key.revoke", subjectUserId: key.userId, reason, details },
          now,
        );
        return { auditId: row.id, customerId: key.userId };
      });
    },

    /** Mails a fresh verification link (refused once verified) or a password-reset link. */
    async sendMail(
      actor: Actor,
      customerId: string,
      kind: "verification" | "password_reset",
      reason: string,
      now: Date,
    ) {
      require(actor, "sendCustomerMail");
      let send: () => void = () => {};
      const done = await db.transaction(async (tx): Promise<ActionDone> => {
        const customer = await lockCustomer(tx, customerId);
        if (kind === "verification" && customer.emailVerified) {
          throw new OperatorRefusal(409, ADMIN_TEXT.alreadyVerified);
        }
        const purpose = kind === "verification" ? "email_verification" : "password_reset";
        send = await deps.accounts.issueLinkMail(tx, customer, purpose);
        const details = { kind, to: customer.email };
        const row = await audit(
          tx,
          actor,
          { action: "mail.send", subjectUserId: customerId, reason, details },
          now,
        );
        return { auditId: row.id };
      });
      send();
      return done;
    },

    /** At the period's end (as the customer's own cancel) or now, without a refund. */
    async cancelSubscription(
      actor: Actor,
      customerId: string,
      at: "period_end" | "now",
      reason: string,
      now: Date,
    ): Promise<ActionDone> {
      require(actor, "cancelSubscription");
      // Checked apart from the cancel's own transaction (billing takes its locks in its own order).
      const { id } = await db.transaction(async (tx) => {
        const customer = await lockCustomer(tx, customerId);
        // As the organisation's cancel refuses a member (org-actions.ts): staff act on others.
        refuseOwnAccount(actor, customer, ADMIN_TEXT.notOwnAccount);
        return customer;
      });
      // Built, and refused if it cannot be stored, before the provider is asked to cancel.
      const entry = auditEntryOf(actor, {
        action: "subscription.cancel",
        subjectUserId: id,
        reason,
        details: { at },
      });
      let auditId = "";
      const writeAudit = async (tx: Tx) => {
        auditId = (await appendAudit(tx, entry, now)).id;
      };
      if (at === "now") await deps.billing.endSubscriptionNow(id, writeAudit);
      else await deps.billing.cancelSubscription(id, writeAudit);
      return { auditId };
    },
  };
}
