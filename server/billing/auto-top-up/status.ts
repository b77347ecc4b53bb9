// Auto top-up's state changes that the system makes (a decline, a limit, the card removed, the plan
// ended...): the settings row, the organisation's activity log, and the mail to owners and billing
// members, all in the caller's transaction, so a change is recorded and mailed exactly when it
// happens. The customer's own changes (PUT) are settings.ts's.
import { eq } from "drizzle-orm";
import { appendAudit } from "../../audit/audit-log.ts";
import { autoTopUpSettings } from "../../db/schema/index.ts";
import type { Tx } from "../../db/types.ts";
import { OFF_REASONS, type OffReason, PAUSE_REASONS, type PauseReason } from "../../domain/auto-top-up.ts";
import { autoTopUpStoppedMail } from "../../mail/auto-top-up-templates.ts";
import { queueBillingMail } from "../billing-mails.ts";
import { endLeases } from "../credit-leases.ts";
import { isOnDisputeHold } from "../dispute-hold.ts";
import type { AutoTopUpActor } from "./engine.ts";
import { findSettings, organisationName } from "./store.ts";

export const SYSTEM_ACTOR: AutoTopUpActor = { userId: null, label: "system", ip: null };

export type StatusChange =
  | { status: "active" }
  | {
      status: "paused";
      reason: PauseReason;
      /** A decline's sentence and code; the end of a `monthly_limit` or `daily_limit` pause. */
      detail?: string | null;
      declineCode?: string | null;
      pausedUntil?: Date | null;
    }
  | { status: "off"; reason: OffReason };

export interface StatusContext {
  actor: AutoTopUpActor;
  /** Why, in staff's words (the console), for the activity log. */
  note?: string | null;
  /**
   * What the mail is about, so that it goes out once however often the same fact is seen (an
   * attempt's id, when a daily or monthly limit pause began). Without it no mail is sent (resuming
   * mails nobody).
   */
  mailKey?: string;
  billingUrl: string;
}

const ACTION: Record<StatusChange["status"], string> = {
  active: "auto_top_up.resumed",
  paused: "auto_top_up.paused",
  off: "auto_top_up.turned_off",
};

/**
 * Moves the organisation's auto top-up to `change`, unless it is there already or was never set up.
 * Off also clears `enabled`: turning it on again needs new consent. True when something changed.
 */
export async function changeStatus(
  tx: Tx,
  orgId: string,
  change: StatusChange,
  context: StatusContext,
  now: Date,
): Promise<boolean> {
  const settings = await findSettings(tx, orgId);
  if (!settings) return false;
  const reason = change.status === "active" ? null : change.reason;
  if (settings.status === change.status && settings.reason === reason) return false;
  // Off stays off: only the customer turns it on again (with consent), never a later pause.
  if (settings.status === "off" && change.status !== "off") return false;
  const paused = change.status === "paused" ? change : null;
  // Active again (a pause over, the details fixed): the leases taken while it was not end, as a
  // save of the settings ends them; theirs would not ask for a top-up (decision 051).
  if (change.status === "active") await endLeases(tx, { orgId }, "organization_changed");
  await tx
    .update(autoTopUpSettings)
    .set({
      status: change.status,
      reason,
      reasonDetail: paused?.detail ?? null,
      declineCode: paused?.declineCode ?? null,
      pausedUntil: paused?.pausedUntil ?? null,
      ...(change.status === "off" ? { enabled: false } : {}),
      updatedAt: now,
    })
    .where(eq(autoTopUpSettings.orgId, orgId));
  await appendAudit(
    tx,
    {
      actorId: context.actor.userId,
      actorLabel: context.actor.label,
      action: ACTION[change.status],
      subjectUserId: null,
      subjectOrgId: orgId,
      reason: context.note ?? null,
      details: {
        from: settings.status,
        ...(reason ? { reason } : {}),
        ...(paused?.declineCode ? { decline_code: paused.declineCode } : {}),
      },
      ip: context.actor.ip,
    },
    now,
  );
  if (change.status !== "active" && context.mailKey) await mailStopped(tx, orgId, change, context, now);
  return true;
}

async function mailStopped(
  tx: Tx,
  orgId: string,
  change: Exclude<StatusChange, { status: "active" }>,
  context: StatusContext & { mailKey?: string },
  now: Date,
): Promise<void> {
  const info = change.status === "off" ? OFF_REASONS[change.reason] : PAUSE_REASONS[change.reason];
  const detail = change.status === "paused" ? (change.detail ?? null) : null;
  const organisation = await organisationName(tx, orgId);
  // Off for a dispute: on hold (a lost one, dispute-hold.ts) it stays off until support clears it.
  const onHold =
    change.status === "off" && change.reason === "dispute_hold" && (await isOnDisputeHold(tx, orgId));
  await queueBillingMail(
    tx,
    {
      userId: orgId,
      kind: `auto_top_up_${change.status}`,
      dedupeKey: `auto_top_up:${change.status}:${change.reason}:${context.mailKey}`,
      build: (user) =>
        autoTopUpStoppedMail(user, {
          organisation,
          status: info.status,
          sentence: info.sentence,
          detail,
          billingUrl: context.billingUrl,
          onHold,
        }),
    },
    now,
  );
}
