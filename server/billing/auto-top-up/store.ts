// Auto top-up's rows: the settings, the saved card and the attempts, read and written inside the
// caller's transaction (which holds the organisation's lock when it changes anything).
import { randomUUID } from "node:crypto";
import { and, desc, eq, gte, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import {
  type AutoTopUpAttemptRow,
  type AutoTopUpSettingsRow,
  autoTopUpAttempts,
  autoTopUpSettings,
  type SavedCardRow,
  savedCards,
} from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import type { AttemptStatus, LimitAttempt } from "../../domain/auto-top-up-limit.ts";
import { teamName } from "../billing-contacts.ts";

/** The attempts still waiting for money: processing, or the customer's authentication. */
export const OPEN_ATTEMPT_STATUSES = [
  "processing",
  "authentication_required",
] as const satisfies AttemptStatus[];

export async function findSettings(db: DbOrTx, orgId: string): Promise<AutoTopUpSettingsRow | undefined> {
  const [row] = await db.select().from(autoTopUpSettings).where(eq(autoTopUpSettings.orgId, orgId));
  return row;
}

export async function findCard(db: DbOrTx, orgId: string): Promise<SavedCardRow | undefined> {
  const [row] = await db.select().from(savedCards).where(eq(savedCards.orgId, orgId));
  return row;
}

export async function findAttempt(db: DbOrTx, attemptId: string): Promise<AutoTopUpAttemptRow | undefined> {
  const [row] = await db.select().from(autoTopUpAttempts).where(eq(autoTopUpAttempts.id, attemptId));
  return row;
}

export async function findOpenAttempt(db: DbOrTx, orgId: string): Promise<AutoTopUpAttemptRow | undefined> {
  const [row] = await db
    .select()
    .from(autoTopUpAttempts)
    .where(and(eq(autoTopUpAttempts.orgId, orgId), inArray(autoTopUpAttempts.status, OPEN_ATTEMPT_STATUSES)));
  return row;
}

/** The organisation's attempts made since `since` (the Berlin month's or day's start). */
export function attemptsSince(db: DbOrTx, orgId: string, since: Date): Promise<AutoTopUpAttemptRow[]> {
  return db
    .select()
    .from(autoTopUpAttempts)
    .where(and(eq(autoTopUpAttempts.orgId, orgId), gte(autoTopUpAttempts.createdAt, since)))
    .orderBy(desc(autoTopUpAttempts.createdAt));
}

/** An attempt as the monthly limit reads it (domain/auto-top-up.ts countsAgainstLimit). */
export const limitAttemptOf = (
  a: Pick<AutoTopUpAttemptRow, "createdAt" | "gross" | "status" | "providerInvoiceId" | "invoiceClosedAt">,
): LimitAttempt => ({
  madeAt: a.createdAt,
  amount: a.gross,
  status: a.status,
  invoiceLive: a.providerInvoiceId !== null && a.invoiceClosedAt === null,
});

export type NewAttempt = Pick<
  AutoTopUpAttemptRow,
  "orgId" | "provider" | "productId" | "credits" | "currency" | "net" | "gross" | "paymentMethodId"
>;

/**
 * Opens an attempt, unless the organisation has one open already (the unique index decides, not a
 * read: on any number of instances, one insert wins). Answers the new attempt's id, or null.
 */
export async function openAttempt(db: DbOrTx, attempt: NewAttempt, now: Date): Promise<string | null> {
  const id = randomUUID();
  const inserted = await db
    .insert(autoTopUpAttempts)
    .values({ ...attempt, id, status: "processing", createdAt: now, updatedAt: now })
    .onConflictDoNothing({
      target: autoTopUpAttempts.orgId,
      where: sql`${autoTopUpAttempts.status} in ('processing', 'authentication_required')`,
    })
    .returning({ id: autoTopUpAttempts.id });
  return inserted[0]?.id ?? null;
}

export async function updateAttempt(
  db: DbOrTx,
  attemptId: string,
  patch: Partial<Omit<AutoTopUpAttemptRow, "id" | "orgId" | "createdAt">>,
  now: Date,
): Promise<void> {
  await db
    .update(autoTopUpAttempts)
    .set({ ...patch, updatedAt: now })
    .where(eq(autoTopUpAttempts.id, attemptId));
}

/**
 * Stores the invoice about to be paid, only while the attempt is still processing (in the caller's
 * transaction, under the organisation's lock): a stop (turned off, the card replaced, the saver
 * leaving, the organisation disabled) that cancelled it while the invoice was being made wins, and
 * nothing is paid. The first sending time is kept (the 23-hour window counts from it). Answers
 * whether the invoice was stored so.
 */
export async function storeInvoiceToPay(
  db: DbOrTx,
  attemptId: string,
  invoiceId: string,
  now: Date,
): Promise<boolean> {
  const stored = await db
    .update(autoTopUpAttempts)
    .set({
      providerInvoiceId: invoiceId,
      sentAt: sql`coalesce(${autoTopUpAttempts.sentAt}, ${now.toISOString()}::timestamptz)`,
      updatedAt: now,
    })
    .where(and(eq(autoTopUpAttempts.id, attemptId), eq(autoTopUpAttempts.status, "processing")))
    .returning({ id: autoTopUpAttempts.id });
  return stored.length > 0;
}

/**
 * Names the invoice made for an attempt stopped meanwhile (when it names none yet): until the
 * invoice is seen void or paid the attempt keeps its room under the limit, and the sweep voids it again.
 */
export async function recordStrayInvoice(db: DbOrTx, attemptId: string, invoiceId: string, now: Date) {
  await db
    .update(autoTopUpAttempts)
    .set({ providerInvoiceId: invoiceId, updatedAt: now })
    .where(and(eq(autoTopUpAttempts.id, attemptId), isNull(autoTopUpAttempts.providerInvoiceId)));
}

/** Whether the attempt is still processing, touched now (the check right before a payment is sent). */
export async function touchIfProcessing(db: DbOrTx, attemptId: string, now: Date): Promise<boolean> {
  const touched = await db
    .update(autoTopUpAttempts)
    .set({ updatedAt: now })
    .where(and(eq(autoTopUpAttempts.id, attemptId), eq(autoTopUpAttempts.status, "processing")))
    .returning({ id: autoTopUpAttempts.id });
  return touched.length > 0;
}

/**
 * The provider has `invoiceId` void or paid: no payment can land on the attempt any more. Answers
 * whether it was closed now (not before).
 */
export async function markInvoiceClosed(
  db: DbOrTx,
  attemptId: string,
  invoiceId: string,
  now: Date,
): Promise<boolean> {
  const closed = await db
    .update(autoTopUpAttempts)
    .set({ invoiceClosedAt: now })
    .where(
      and(
        eq(autoTopUpAttempts.id, attemptId),
        eq(autoTopUpAttempts.providerInvoiceId, invoiceId),
        isNull(autoTopUpAttempts.invoiceClosedAt),
      ),
    )
    .returning({ id: autoTopUpAttempts.id });
  return closed.length > 0;
}

/**
 * Cancelled attempts made since `since` whose invoice is not yet seen void or paid, untouched since
 * `before` (their void in the background failed or was lost): the sweep voids them again.
 */
export function unclosedCancelledAttempts(
  db: DbOrTx,
  before: Date,
  since: Date,
  limit: number,
): Promise<AutoTopUpAttemptRow[]> {
  return db
    .select()
    .from(autoTopUpAttempts)
    .where(
      and(
        eq(autoTopUpAttempts.status, "cancelled"),
        isNotNull(autoTopUpAttempts.providerInvoiceId),
        isNull(autoTopUpAttempts.invoiceClosedAt),
        lt(autoTopUpAttempts.updatedAt, before),
        gte(autoTopUpAttempts.createdAt, since),
      ),
    )
    .orderBy(autoTopUpAttempts.updatedAt)
    .limit(limit);
}

/** Processing attempts not touched since `before`: a crash or a lost answer left them; the runner settles them. */
export function staleProcessingAttempts(
  db: DbOrTx,
  before: Date,
  limit: number,
): Promise<AutoTopUpAttemptRow[]> {
  return db
    .select()
    .from(autoTopUpAttempts)
    .where(and(eq(autoTopUpAttempts.status, "processing"), lt(autoTopUpAttempts.updatedAt, before)))
    .orderBy(autoTopUpAttempts.updatedAt)
    .limit(limit);
}

/** Attempts waiting for the customer's authentication since before `before` (7 days: then cancelled). */
export function expiredAuthentications(
  db: DbOrTx,
  before: Date,
  limit: number,
): Promise<AutoTopUpAttemptRow[]> {
  return db
    .select()
    .from(autoTopUpAttempts)
    .where(
      and(eq(autoTopUpAttempts.status, "authentication_required"), lt(autoTopUpAttempts.createdAt, before)),
    )
    .limit(limit);
}

/**
 * Organisations paused by their monthly or daily limit whose pause has ended (the month's or the
 * Berlin day's end). A daily_limit pause written before it had an end (2026-12-01) is listed too:
 * resumed, the trigger pauses it again with its end if that day's ten are still used up.
 */
export function endedLimitPauses(db: DbOrTx, now: Date, limit: number): Promise<{ orgId: string }[]> {
  return db
    .select({ orgId: autoTopUpSettings.orgId })
    .from(autoTopUpSettings)
    .where(limitPauseEnded(now))
    .limit(limit);
}

/**
 * Whether the organisation's auto top-up is still a limit pause that has ended, read under its
 * lock: the sweep lists them without one, and another pause written since (a member who left, a
 * decline) must not be ended by the clock.
 */
export async function hasEndedLimitPause(tx: DbOrTx, orgId: string, now: Date): Promise<boolean> {
  const [row] = await tx
    .select({ orgId: autoTopUpSettings.orgId })
    .from(autoTopUpSettings)
    .where(and(eq(autoTopUpSettings.orgId, orgId), limitPauseEnded(now)));
  return row !== undefined;
}

function limitPauseEnded(now: Date) {
  return and(
    eq(autoTopUpSettings.status, "paused"),
    or(
      and(
        inArray(autoTopUpSettings.reason, ["monthly_limit", "daily_limit"]),
        lt(autoTopUpSettings.pausedUntil, now),
      ),
      and(eq(autoTopUpSettings.reason, "daily_limit"), isNull(autoTopUpSettings.pausedUntil)),
    ),
  );
}

/** The organisation's name as mails say it ("your personal account" for a personal one). */
export async function organisationName(db: DbOrTx, orgId: string): Promise<string> {
  return (await teamName(db, orgId)) ?? "your personal account";
}
