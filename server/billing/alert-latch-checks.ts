// The alert latches (domain/alert-latches.ts) checked outside a charge: when the lease sweep or the
// lease's holder has ended a lease (decision 051, lease-sweep.ts's endLeaseCheckingLatches). A
// lease's charges move the balance and the member's month without the organisation's lock, so a
// fall they make is decided at the next check under the lock; when no charge under the lock comes,
// this one, as the lease ends, is it.
import { and, eq } from "drizzle-orm";
import { memberCreditUsage, organizationMembers, organizations } from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { capWarningStep, lowBalanceStep } from "../domain/alert-latches.ts";
import { unreserved } from "../domain/credit-leases.ts";
import { balance, type Millicredits } from "../domain/ledger.ts";
import { memberMonth, reservableGrants } from "./ledger-store.ts";
import type { MemberCapEvent } from "./spends.ts";

/** Whose latches to check: an organisation, and the member's month a lease counted in. */
export interface LatchScope {
  orgId: string;
  memberId: string | null;
  month: string;
}

/** The mails the check decided; the caller sends them after its transaction commits. */
export interface LatchMails {
  lowBalance?: { threshold: Millicredits; balance: Millicredits };
  capNearing?: MemberCapEvent;
}

/**
 * Checks both latches of `scope` and stores what changed. Locks the organisation (FOR NO KEY
 * UPDATE, as every charge under the lock does) before it reads, so it and a charge decide one
 * after the other. Run it after ending the leases, in the same transaction.
 */
export async function checkAlertLatches(tx: Tx, scope: LatchScope, now: Date): Promise<LatchMails> {
  const [org] = await tx
    .select({ threshold: organizations.lowBalanceThreshold, alerted: organizations.lowBalanceAlerted })
    .from(organizations)
    .where(eq(organizations.id, scope.orgId))
    .for("no key update");
  if (!org) return {};
  const mails: LatchMails = {};
  if (org.threshold !== null) {
    const grants = await reservableGrants(tx, scope.orgId);
    const whole = balance(grants, now);
    // No charge here: "before" and "after" are both now.
    const step = lowBalanceStep({
      threshold: org.threshold,
      alerted: org.alerted,
      unreservedBefore: balance(grants.map(unreserved), now),
      wholeAfter: whole,
    });
    if (step.latched !== org.alerted) {
      await tx
        .update(organizations)
        .set({ lowBalanceAlerted: step.latched })
        .where(eq(organizations.id, scope.orgId));
    }
    if (step.mail) mails.lowBalance = { threshold: org.threshold, balance: whole };
  }
  const capNearing = scope.memberId === null ? undefined : await checkCapWarning(tx, scope, scope.memberId);
  if (capNearing) mails.capNearing = capNearing;
  return mails;
}

async function checkCapWarning(
  tx: Tx,
  scope: LatchScope,
  memberId: string,
): Promise<MemberCapEvent | undefined> {
  const [row] = await tx
    .select({
      used: memberCreditUsage.amount,
      warned: memberCreditUsage.capWarned,
      cap: organizationMembers.monthlyCreditCap,
    })
    .from(memberCreditUsage)
    .innerJoin(
      organizationMembers,
      and(
        eq(organizationMembers.orgId, memberCreditUsage.orgId),
        eq(organizationMembers.userId, memberCreditUsage.userId),
      ),
    )
    .where(memberMonth(scope.orgId, memberId, scope.month));
  if (!row || row.cap === null) return undefined;
  // Null from a row the code before migration 0024 inserted: not warned.
  if (!capWarningStep(row.warned ?? false, row.used, row.cap).mail) return undefined;
  await tx
    .update(memberCreditUsage)
    .set({ capWarned: true })
    .where(memberMonth(scope.orgId, memberId, scope.month));
  return { orgId: scope.orgId, memberId, month: scope.month, cap: row.cap, used: row.used };
}
