// What staff do to an organisation (ORGANISATIONS.md, "The operator console"): grant or take back
// credits, cancel its subscription, disable and enable it, clear a dispute hold, and (an admin)
// make a member an owner. The same permission table, reasons and idempotency keys as for a
// customer (account-actions.ts, credit-changes.ts); each runs under the organisation's row lock
// (the lock its spends take), refuses staff who are members of it (org-permissions.ts), and
// writes its audit entry with subject_org_id in the same transaction.

import { and, eq } from "drizzle-orm";
import { ADMIN_TEXT } from "../../contract/admin.ts";
import { ADMIN_ORG_TEXT } from "../../contract/admin-org-rules.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { isUserId } from "../accounts/users.ts";
import { appendAudit } from "../audit/audit-log.ts";
import type { AutoTopUpEngine } from "../billing/auto-top-up/engine.ts";
import { endLeases } from "../billing/credit-leases.ts";
import type { Billing } from "../billing/service.ts";
import { type OrganizationRow, organizationMembers, organizations } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { ownsTheMost } from "../orgs/orgs.ts";
import { type Actor, audit, auditEntryOf, autoTopUpActor } from "./actor.ts";
import type { CreditSubject } from "./credit-changes.ts";
import {
  makeOwnerRefusal,
  orgFlagRefusal,
  type StaffOrgRefusal,
  staffOnOrgRefusal,
} from "./org-permissions.ts";
import { holds, type Permission } from "./permissions.ts";
import { OperatorRefusal } from "./refusal.ts";

const refuse = (refusal: StaffOrgRefusal | null) => {
  if (refusal) throw new OperatorRefusal(refusal.status, refusal.detail);
};

function require(actor: Actor, permission: Permission): void {
  if (!holds(actor.role, permission)) throw new OperatorRefusal(403, ADMIN_TEXT.adminOnly);
}

/** `userId`'s membership of `orgId` (locked with `forUpdate`), or undefined. */
async function membershipOf(tx: Db | Tx, orgId: string, userId: string, forUpdate = false) {
  const query = tx
    .select({ role: organizationMembers.role })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)));
  const [row] = forUpdate ? await query.for("update") : await query;
  return row;
}

/** Refuses (403) staff who are members of organisation `orgId`, whatever its state. */
export async function refuseOrgMember(db: Db | Tx, actor: Actor, orgId: string): Promise<void> {
  if (!isUserId(orgId)) return;
  const member = await membershipOf(db, orgId, actor.id);
  refuse(staffOnOrgRefusal({ personal: false, deleted: false }, member?.role));
}

/**
 * The organisation's row, locked until the transaction ends; 404 when there is none, 409 when it
 * was deleted, 403 when the staff member is one of its members.
 */
export async function lockOrganisation(tx: Tx, actor: Actor, orgId: string): Promise<OrganizationRow> {
  if (!isUserId(orgId)) throw new OperatorRefusal(404, ORG_DETAIL.notFound);
  const [org] = await tx.select().from(organizations).where(eq(organizations.id, orgId)).for("no key update");
  if (!org) throw new OperatorRefusal(404, ORG_DETAIL.notFound);
  const member = await membershipOf(tx, org.id, actor.id);
  refuse(staffOnOrgRefusal({ personal: org.personal, deleted: org.deletedAt !== null }, member?.role));
  return org;
}

/** The audit subject of an action on `org`: the organisation, and for a personal one its user too. */
const subjectOf = (org: OrganizationRow) => ({
  subjectUserId: org.personal ? org.id : null,
  subjectOrgId: org.id,
});

/** The organisation whose credits a grant or take-back changes (credit-changes.ts). */
export const orgCreditSubject = (actor: Actor, orgId: string): CreditSubject => ({
  async lock(tx) {
    const org = await lockOrganisation(tx, actor, orgId);
    return { id: org.id, ...subjectOf(org) };
  },
});

type OrgFlag = "disabled" | "disputeHold";

const FLAGS = {
  disabled: {
    column: "disabledAt",
    permission: "disableAccount",
    setAction: "org.disable",
    clearAction: "org.enable",
    alreadySet: ADMIN_ORG_TEXT.alreadyDisabled,
    notSet: ADMIN_ORG_TEXT.notDisabled,
  },
  disputeHold: {
    column: "disputeHoldAt",
    permission: "clearDisputeHold",
    // Placed by a lost dispute's webhook, never by staff.
    setAction: "org.dispute_hold",
    clearAction: "dispute_hold.clear",
    alreadySet: ADMIN_ORG_TEXT.noDisputeHold,
    notSet: ADMIN_ORG_TEXT.noDisputeHold,
  },
} as const satisfies Record<
  OrgFlag,
  {
    column: "disabledAt" | "disputeHoldAt";
    permission: Permission;
    setAction: string;
    clearAction: string;
    alreadySet: string;
    notSet: string;
  }
>;

export interface OrgActionDeps {
  db: Db;
  billing: Pick<Billing, "cancelSubscription" | "endSubscriptionNow">;
  /** Disabling an organisation turns its auto top-up off (AUTO-TOP-UP.md, "Off"). */
  autoTopUp: Pick<AutoTopUpEngine, "turnOff">;
}

export function orgActions(deps: OrgActionDeps) {
  const { db } = deps;

  async function setFlag(actor: Actor, orgId: string, flag: OrgFlag, on: boolean, reason: string, now: Date) {
    const spec = FLAGS[flag];
    require(actor, spec.permission);
    return db.transaction(async (tx) => {
      const org = await lockOrganisation(tx, actor, orgId);
      const since = org[spec.column];
      refuse(orgFlagRefusal(on, since !== null, spec));
      // Nothing is charged to a disabled organisation: no lease may go on deciding its charges.
      if (on) await endLeases(tx, { orgId: org.id }, "organization_changed");
      await tx
        .update(organizations)
        .set({ [spec.column]: on ? now : null })
        .where(eq(organizations.id, org.id));
      const details = since ? { since: since.toISOString() } : {};
      const action = on ? spec.setAction : spec.clearAction;
      const row = await audit(tx, actor, { action, ...subjectOf(org), reason, details }, now);
      if (on && flag === "disabled") {
        await deps.autoTopUp.turnOff(tx, org.id, "organisation_disabled", autoTopUpActor(actor), now);
      }
      return { auditId: row.id };
    });
  }

  return {
    /** Every key of the organisation is inactive and nothing is charged to it until it is enabled. */
    disable: (actor: Actor, orgId: string, reason: string, now: Date) =>
      setFlag(actor, orgId, "disabled", true, reason, now),
    enable: (actor: Actor, orgId: string, reason: string, now: Date) =>
      setFlag(actor, orgId, "disabled", false, reason, now),
    /** Lets the organisation be charged again after a lost dispute. */
    clearDisputeHold: (actor: Actor, orgId: string, reason: string, now: Date) =>
      setFlag(actor, orgId, "disputeHold", false, reason, now),

    /** At the period's end or now, without a refund, as for a customer. */
    async cancelSubscription(
      actor: Actor,
      orgId: string,
      at: "period_end" | "now",
      reason: string,
      now: Date,
    ) {
      require(actor, "cancelSubscription");
      // Checked apart from the cancel's own transaction (billing takes its locks in its own order).
      const org = await db.transaction((tx) => lockOrganisation(tx, actor, orgId));
      const entry = auditEntryOf(actor, {
        action: "subscription.cancel",
        ...subjectOf(org),
        reason,
        details: { at },
      });
      let auditId = "";
      const writeAudit = async (tx: Tx) => {
        auditId = (await appendAudit(tx, entry, now)).id;
      };
      if (at === "now") await deps.billing.endSubscriptionNow(org.id, writeAudit);
      else await deps.billing.cancelSubscription(org.id, writeAudit);
      return { auditId };
    },

    /**
     * Makes a member an owner (an admin; recovery after an identity check, when the owners are gone
     * or locked out). Never the staff member themselves.
     */
    async makeOwner(actor: Actor, orgId: string, userId: string, reason: string, now: Date) {
      require(actor, "changeRole");
      return db.transaction(async (tx) => {
        const org = await lockOrganisation(tx, actor, orgId);
        const target = isUserId(userId) ? await membershipOf(tx, org.id, userId, true) : undefined;
        refuse(
          makeOwnerRefusal(
            actor.id,
            { personal: org.personal, deleted: org.deletedAt !== null },
            userId,
            target,
          ),
        );
        // The 20 a person may own hold here too (the same organisation-then-user lock order).
        if (await ownsTheMost(tx, userId)) {
          throw new OperatorRefusal(409, ORG_DETAIL.memberOwnerLimit(ADMIN_ORG_TEXT.thisMember));
        }
        await tx
          .update(organizationMembers)
          .set({ role: "owner" })
          .where(and(eq(organizationMembers.orgId, org.id), eq(organizationMembers.userId, userId)));
        const row = await audit(
          tx,
          actor,
          {
            action: "member.role_change",
            subjectUserId: userId,
            subjectOrgId: org.id,
            reason,
            details: {
              org_id: org.id,
              user_id: userId,
              from: target?.role ?? null,
              to: "owner",
              by_staff: true,
            },
          },
          now,
        );
        return { auditId: row.id };
      });
    },
  };
}
