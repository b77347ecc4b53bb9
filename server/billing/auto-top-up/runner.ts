// Charging an attempt, and the background sweep that settles what a crash, a lost answer or time
// left behind. The invoice id is stored before its payment is sent, and a payment is sent only with
// the idempotency key of its attempt (the provider answers a repeat with the first answer); after
// 23 hours (Stripe keeps keys for 24) an attempt is only ever read, never sent again.
import type { AutoTopUpAttemptRow } from "../../db/schema/index.ts";
import type { Tx } from "../../db/types.ts";
import { lockUser } from "../ledger-store.ts";
import type { AutoTopUpChargeAnswer } from "../ports/payment-provider.ts";
import { type ChargeDeps, chargeOf } from "./charges.ts";
import { type HistoryDeps, recordCancelledAttempt } from "./history.ts";
import { giveUpInTx, isStopped, refuseChangedTotalInTx, type Settlement, settleInTx } from "./settle.ts";
import { changeStatus, SYSTEM_ACTOR } from "./status.ts";
import {
  endedLimitPauses,
  expiredAuthentications,
  findAttempt,
  findOpenAttempt,
  hasEndedLimitPause,
  recordStrayInvoice,
  staleProcessingAttempts,
  storeInvoiceToPay,
  touchIfProcessing,
  unclosedCancelledAttempts,
  updateAttempt,
} from "./store.ts";

const HOUR_MS = 3_600_000;
/** Stripe keeps an idempotency key 24 hours: a payment is never sent again after 23. */
export const RESEND_WINDOW_MS = 23 * HOUR_MS;
/** A customer has 7 days to confirm a payment their bank asked about. */
export const AUTHENTICATION_WINDOW_MS = 7 * 24 * HOUR_MS;
/** A processing attempt untouched this long lost its charge (a crash, a timeout): the sweep settles it. */
export const STALE_AFTER_MS = 2 * 60_000;
/** A processing attempt the provider has not settled in this long gives up (paused and mailed). */
export const GIVE_UP_AFTER_MS = HOUR_MS;
const SWEEP_BATCH = 50;
/** How far back the sweep voids cancelled attempts' invoices again: past a month, none counts. */
const UNCLOSED_LOOKBACK_MS = 32 * 24 * HOUR_MS;

export const EXPIRED_AUTHENTICATION_DETAIL =
  "The payment was not confirmed within 7 days, so it was cancelled and nothing was charged. Resume auto top-up under Billing to try again.";

export interface Settled {
  /** A pack was granted now: the balance moved, so the trigger is asked again. */
  granted: boolean;
  /** A `monthly_limit` pause ended now (an invoice keeping room closed): the trigger is asked again. */
  resumed: boolean;
  orgId: string;
}

/** What settling (and voiding after it) did: a pack granted, a monthly_limit pause ended. */
export type Outcome = Pick<Settlement, "granted" | "resumedFor">;

/** Settles `attemptId` from `answer` in its own transaction, then voids what it declined. */
export async function settle(
  deps: ChargeDeps,
  attemptId: string,
  answer: AutoTopUpChargeAnswer,
): Promise<Outcome> {
  return afterCommit(
    deps,
    await deps.db.transaction((tx) => settleInTx(tx, deps, attemptId, answer, null, deps.clock.now())),
  );
}

async function afterCommit(deps: ChargeDeps, settled: Settlement): Promise<Outcome> {
  const voided = settled.toVoid
    ? await voidQuietly(deps, settled.toVoid.invoiceId, settled.toVoid.attemptId)
    : null;
  return { granted: settled.granted, resumedFor: settled.resumedFor ?? voided?.resumedFor };
}

/** Gives up on an attempt the provider never settled (see settle.ts giveUpInTx). */
export async function giveUp(deps: ChargeDeps, attemptId: string): Promise<void> {
  await afterCommit(
    deps,
    await deps.db.transaction((tx) => giveUpInTx(tx, deps, attemptId, deps.clock.now())),
  );
}

/**
 * Charges a processing attempt, or settles it by reading its invoice when its payment was sent
 * before (a restart, a second instance's sweep): the provider's answer decides, never a second
 * payment. Thrown errors (the provider unreachable) leave the attempt processing for the sweep.
 */
export async function chargeAttempt(deps: ChargeDeps, attemptId: string): Promise<Settled | null> {
  const attempt = await findAttempt(deps.db, attemptId);
  if (attempt?.status !== "processing") return null;
  const now = deps.clock.now();
  const { provider } = deps;
  const sentLongAgo = attempt.sentAt !== null && now.getTime() - attempt.sentAt.getTime() >= RESEND_WINDOW_MS;
  let answer: AutoTopUpChargeAnswer;
  if (attempt.providerInvoiceId && attempt.sentAt) {
    answer = await provider.readAutoTopUpInvoice(deps.db, attempt.providerInvoiceId);
    // Read "open": the payment never reached the provider, or is still on its way. Within the
    // window the same key repeats it safely, unless a stop cancelled the attempt since it was read
    // (the stop voids the invoice itself); after the window, an operator must look.
    if (answer.status === "open" && !sentLongAgo) {
      if (!(await stillProcessing(deps, attempt, now)))
        return { granted: false, resumed: false, orgId: attempt.orgId };
      answer = await pay(deps, attempt, attempt.providerInvoiceId);
    } else if (answer.status === "open") {
      await giveUp(deps, attemptId);
      return null;
    }
  } else {
    // Made (or, with the same idempotency keys, found) before every payment: its total is what
    // paying would charge, and only the total agreed to is paid.
    const invoice = await provider.createAutoTopUpInvoice(deps.db, await chargeOf(deps, attempt));
    if (invoice.total !== attempt.gross) {
      const refused = await afterCommit(
        deps,
        await deps.db.transaction((tx) => refuseChangedTotalInTx(tx, deps, attemptId, invoice, now)),
      );
      return { granted: false, resumed: refused.resumedFor !== undefined, orgId: attempt.orgId };
    }
    // A stop (turned off, a new card, the saver leaving, staff disabling the organisation) may have
    // cancelled the attempt while its invoice was being made: then the invoice is never paid.
    const stored = await deps.db.transaction(async (tx) => {
      await lockUser(tx, attempt.orgId);
      if (await storeInvoiceToPay(tx, attemptId, invoice.invoiceId, now)) return "processing";
      const current = await findAttempt(tx, attemptId);
      if (!current || !isStopped(current.status)) return current?.status ?? null;
      await recordStrayInvoice(tx, attemptId, invoice.invoiceId, now);
      return current.status;
    });
    if (stored !== "processing") {
      const voided =
        stored !== null && isStopped(stored) ? await voidQuietly(deps, invoice.invoiceId, attemptId) : null;
      return { granted: false, resumed: voided?.resumedFor !== undefined, orgId: attempt.orgId };
    }
    answer = await pay(deps, attempt, invoice.invoiceId);
  }
  const settled = await settle(deps, attemptId, answer);
  return { granted: settled.granted, resumed: settled.resumedFor !== undefined, orgId: attempt.orgId };
}

/** The check under the organisation's lock right before a payment is sent: still processing? */
function stillProcessing(deps: ChargeDeps, attempt: AutoTopUpAttemptRow, now: Date): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, attempt.orgId);
    return touchIfProcessing(tx, attempt.id, now);
  });
}

async function pay(deps: ChargeDeps, attempt: AutoTopUpAttemptRow, invoiceId: string) {
  return deps.provider.payAutoTopUpInvoice(deps.db, await chargeOf(deps, attempt), invoiceId);
}

/**
 * Cancels the organisation's open attempt in `tx` (turned off or on again, the card removed, the
 * organisation deleted). Answers the invoice to void once `tx` has committed, if any.
 */
export async function cancelOpenAttemptInTx(
  tx: Tx,
  deps: HistoryDeps,
  orgId: string,
  detail: string,
  now: Date,
) {
  const open = await findOpenAttempt(tx, orgId);
  if (!open) return null;
  await updateAttempt(tx, open.id, { status: "cancelled", detail, settledAt: now }, now);
  await recordCancelledAttempt(tx, deps, open, detail, now);
  return open.providerInvoiceId ? { invoiceId: open.providerInvoiceId, attemptId: open.id } : null;
}

/**
 * The sweep (the billing job runs it): settles processing attempts a crash or a timeout left,
 * cancels payments awaiting authentication for 7 days, voids again what cancelled attempts left
 * open, and resumes `monthly_limit` pauses whose month has ended (or that such an invoice, closed
 * now, no longer justifies) and `daily_limit` pauses whose Berlin day has. Answers the
 * organisations resumed, to ask the trigger again.
 */
export async function sweep(deps: ChargeDeps): Promise<{ moved: number; resumed: string[] }> {
  const now = deps.clock.now();
  let moved = 0;
  const resumed = new Set<string>();
  for (const attempt of await staleProcessingAttempts(
    deps.db,
    new Date(now.getTime() - STALE_AFTER_MS),
    SWEEP_BATCH,
  )) {
    try {
      const settled = await chargeAttempt(deps, attempt.id);
      if (settled) moved += 1;
      if (settled?.resumed) resumed.add(settled.orgId);
    } catch (error) {
      deps.logger.warn({ err: error, attemptId: attempt.id }, "Auto top-up attempt could not be settled yet");
      // To the back of the queue: a few that always fail must not hold up the others.
      await updateAttempt(deps.db, attempt.id, {}, now);
      if (now.getTime() - attempt.createdAt.getTime() >= GIVE_UP_AFTER_MS) {
        await giveUp(deps, attempt.id);
        moved += 1;
      }
    }
  }
  const expired = await expiredAuthentications(
    deps.db,
    new Date(now.getTime() - AUTHENTICATION_WINDOW_MS),
    SWEEP_BATCH,
  );
  for (const attempt of expired) {
    const toVoid = await deps.db.transaction(async (tx) => {
      await lockUser(tx, attempt.orgId);
      const current = await findAttempt(tx, attempt.id);
      if (current?.status !== "authentication_required") return null;
      await updateAttempt(
        tx,
        attempt.id,
        { status: "cancelled", detail: EXPIRED_AUTHENTICATION_DETAIL, settledAt: now },
        now,
      );
      await recordCancelledAttempt(tx, deps, current, EXPIRED_AUTHENTICATION_DETAIL, now);
      await changeStatus(
        tx,
        attempt.orgId,
        { status: "paused", reason: "declined", detail: EXPIRED_AUTHENTICATION_DETAIL },
        {
          actor: SYSTEM_ACTOR,
          mailKey: `${attempt.id}:expired`,
          billingUrl: `${deps.portalUrl}/profile/billing`,
        },
        now,
      );
      return current.providerInvoiceId;
    });
    const voided = toVoid ? await voidQuietly(deps, toVoid, attempt.id) : null;
    if (voided?.resumedFor) resumed.add(voided.resumedFor);
    moved += 1;
  }
  // Cancelled attempts whose invoice is not yet seen void (the void after the cancel failed, or
  // was lost with a crash): voided again, and read, until it is; they keep their room until then.
  for (const attempt of await unclosedCancelledAttempts(
    deps.db,
    new Date(now.getTime() - STALE_AFTER_MS),
    new Date(now.getTime() - UNCLOSED_LOOKBACK_MS),
    SWEEP_BATCH,
  )) {
    // To the back of the queue first: an invoice that cannot be voided must not hold up the others.
    await updateAttempt(deps.db, attempt.id, {}, now);
    if (!attempt.providerInvoiceId) continue;
    const voided = await voidQuietly(deps, attempt.providerInvoiceId, attempt.id);
    if (voided.granted) moved += 1;
    if (voided.resumedFor) resumed.add(voided.resumedFor);
  }
  for (const { orgId } of await endedLimitPauses(deps.db, now, SWEEP_BATCH)) {
    const changed = await deps.db.transaction(async (tx) => {
      await lockUser(tx, orgId);
      // Listed without the lock: a pause that replaced this one since (a member left, a decline) stays.
      if (!(await hasEndedLimitPause(tx, orgId, now))) return false;
      return changeStatus(tx, orgId, { status: "active" }, { actor: SYSTEM_ACTOR, billingUrl: "" }, now);
    });
    if (changed) resumed.add(orgId);
  }
  return { moved: moved + resumed.size, resumed: [...resumed] };
}

/**
 * Voids an unpaid invoice, then reads it: void (or paid after all: money taken is credits given) is
 * settled, which closes the attempt's invoice; a cancelled attempt stops keeping its room under the
 * limit only then (and a `monthly_limit` pause it caused ends when the limit has room again). A
 * failure is logged (the link then fails at payment, which is harmless; the sweep voids a cancelled
 * attempt's invoice again). Answers whether a pack was granted now, and whom a pause ended for.
 */
export async function voidQuietly(deps: ChargeDeps, invoiceId: string, attemptId: string): Promise<Outcome> {
  try {
    await deps.provider.voidAutoTopUpInvoice(deps.db, invoiceId, attemptId);
    const now = await deps.provider.readAutoTopUpInvoice(deps.db, invoiceId);
    if (now.status !== "paid" && now.status !== "void") return { granted: false };
    const settled = await deps.db.transaction((tx) =>
      settleInTx(tx, deps, attemptId, now, null, deps.clock.now()),
    );
    return { granted: settled.granted, resumedFor: settled.resumedFor };
  } catch (error) {
    deps.logger.warn({ err: error, invoiceId, attemptId }, "Auto top-up invoice could not be voided");
    return { granted: false };
  }
}
