// What the rest of the server asks of auto top-up (AUTO-TOP-UP.md): the seams where a balance
// change may queue a top-up, where something turns it off, and where the provider's events arrive.
// Implemented in this folder; routes, consume, the webhook handler and the organisation commands
// call it through this interface only.
import type { Tx } from "../../db/types.ts";
import type { BalanceCause, OffReason } from "../../domain/auto-top-up.ts";
import type { AutoTopUpEvent } from "../ports/events.ts";

/** Who changed something: a member (with the request's address), staff, or the system itself. */
export interface AutoTopUpActor {
  userId: string | null;
  label: string;
  ip: string | null;
}

export interface AutoTopUpEngine {
  /**
   * After a balance change: in the background, under the organisation's lock, queues one top-up
   * when the trigger rule says so (domain/auto-top-up.ts shouldQueue) and charges it. Never awaited
   * by the spend that caused it.
   */
  nudge(orgId: string, cause: BalanceCause): void;
  /**
   * Turns auto top-up off for `reason` in `tx` (the card removed, the plan ended, the organisation
   * disabled or on dispute hold): cancels the open attempt, records it in the activity log, and
   * mails owners and billing members once. Nothing when it is off already.
   */
  turnOff(tx: Tx, orgId: string, reason: OffReason, actor: AutoTopUpActor | null, now: Date): Promise<void>;
  /**
   * After the billing details changed (so the VAT, and one pack's gross, may have): pauses with
   * `limit_below_pack` when one pack now costs more than the monthly limit, and resumes such a
   * pause when it no longer does.
   */
  billingDetailsChanged(tx: Tx, orgId: string, now: Date): Promise<void>;
  /** The member who saved the card left the organisation: paused until a member saves a card. */
  memberLeft(tx: Tx, orgId: string, userId: string, now: Date): Promise<void>;
  /**
   * Cancels the organisation's open attempt, if any (turned off or on again, card removed,
   * organisation deleted): its invoice is voided after the commit, and its payment link then says
   * the payment is no longer needed.
   */
  cancelOpenAttempt(tx: Tx, orgId: string, detail: string, now: Date): Promise<void>;
  /**
   * The organisation or account is being deleted: its saved card is forgotten in `tx` and detached
   * at the provider after (a failure there is logged; the card is unusable to us either way).
   */
  forgetCard(tx: Tx, orgId: string): Promise<void>;
  /** A provider event about a saved card or an auto top-up invoice, in the webhook's transaction. */
  handleEvent(tx: Tx, event: AutoTopUpEvent, now: Date): Promise<void>;
  /**
   * Charges what is queued, settles what a crash left half-done (read from the provider, never
   * charged again), cancels payments awaiting authentication for 7 days and resumes `monthly_limit`
   * pauses in a new month. Answers how many attempts it moved. The billing job runs it.
   */
  runDue(): Promise<number>;
}
