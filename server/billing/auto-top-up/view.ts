// What GET /v1/billing/auto-top-up (and the console) shows of an organisation's auto top-up: the
// settings (or none yet), the saved card, the state with its reason in words, this Berlin month's
// charges against the limit, and the latest attempts with their invoice numbers.

import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { AutoTopUp, AutoTopUpAttempt } from "../../../contract/auto-top-up.ts";
import {
  type AutoTopUpAttemptRow,
  type AutoTopUpSettingsRow,
  autoTopUpAttempts,
  invoices,
  providerInvoiceDocuments,
} from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import {
  CONSENT_TEXT_VERSION,
  declineSentence,
  OFF_REASONS,
  PAUSE_REASONS,
} from "../../domain/auto-top-up.ts";
import { chargedThisMonth, nextBerlinMonth, reservedThisMonth } from "../../domain/auto-top-up-limit.ts";
import { startOfBerlinMonth } from "../../domain/berlin-time.ts";
import { invoiceNumber } from "../invoice-number.ts";
import { autoTopUpKey } from "../ports/fulfilment-keys.ts";
import { findCard, findSettings, limitAttemptOf } from "./store.ts";

/** The latest attempts GET lists. */
export const ATTEMPTS_SHOWN = 10;

const hasKey = <T extends object>(table: T, key: string): key is Extract<keyof T, string> =>
  Object.hasOwn(table, key);

/**
 * The sentence Billing shows for why auto top-up is paused or off; a decline adds the decline's
 * own sentence (the one stored with it, else the one its code reads as). Null while active, and
 * when the customer turned it off themselves.
 */
export function reasonText(settings: Pick<AutoTopUpSettingsRow, "reason" | "reasonDetail" | "declineCode">) {
  const reason = settings.reason;
  if (reason === null) return null;
  if (reason === "declined") {
    const detail = settings.reasonDetail ?? declineSentence(settings.declineCode);
    return `${PAUSE_REASONS.declined.sentence} ${detail}`;
  }
  if (hasKey(PAUSE_REASONS, reason)) return PAUSE_REASONS[reason].sentence;
  if (hasKey(OFF_REASONS, reason)) return OFF_REASONS[reason].sentence;
  return null;
}

type AttemptWithInvoice = AutoTopUpAttemptRow & {
  invoiceNumber: string | null;
  /** Our numbered invoice's id (null before it is paid, and for Stripe's). */
  invoiceId: string | null;
  invoiceUrl: string | null;
};

/** The organisation's latest attempts, newest first, each with its invoice's number once there is one. */
async function latestAttempts(db: DbOrTx, orgId: string): Promise<AttemptWithInvoice[]> {
  const rows = await db
    .select({
      attempt: autoTopUpAttempts,
      ours: invoices.number,
      oursId: invoices.id,
      providers: providerInvoiceDocuments.number,
      providersUrl: providerInvoiceDocuments.hostedInvoiceUrl,
    })
    .from(autoTopUpAttempts)
    // The grant's fulfilment key is the invoice's: the local checkout's invoices are numbered by us.
    .leftJoin(
      invoices,
      eq(invoices.fulfilmentKey, sql`${autoTopUpKey("")}::text || ${autoTopUpAttempts.id}::text`),
    )
    // Stripe numbers its own invoices; their documents arrive with its invoice events.
    .leftJoin(
      providerInvoiceDocuments,
      eq(providerInvoiceDocuments.invoiceId, autoTopUpAttempts.providerInvoiceId),
    )
    .where(eq(autoTopUpAttempts.orgId, orgId))
    .orderBy(desc(autoTopUpAttempts.createdAt), desc(autoTopUpAttempts.id))
    .limit(ATTEMPTS_SHOWN);
  return rows.map((r) => ({
    ...r.attempt,
    invoiceNumber: invoiceNumber({ number: r.ours }, { number: r.providers }),
    // A row without a number is an unpaid one's (failed, cancelled): no invoice to open.
    invoiceId: r.ours ? r.oursId : null,
    invoiceUrl: r.providersUrl ?? null,
  }));
}

/** The attempts made in `now`'s Berlin month (what was charged, and what the limit keeps besides). */
async function attemptsThisMonth(db: DbOrTx, orgId: string, now: Date) {
  return db
    .select({
      createdAt: autoTopUpAttempts.createdAt,
      gross: autoTopUpAttempts.gross,
      status: autoTopUpAttempts.status,
      providerInvoiceId: autoTopUpAttempts.providerInvoiceId,
      invoiceClosedAt: autoTopUpAttempts.invoiceClosedAt,
    })
    .from(autoTopUpAttempts)
    .where(
      and(eq(autoTopUpAttempts.orgId, orgId), gte(autoTopUpAttempts.createdAt, startOfBerlinMonth(now))),
    );
}

function attemptAnswer(a: AttemptWithInvoice): AutoTopUpAttempt {
  return {
    id: a.id,
    at: a.createdAt.toISOString(),
    status: a.status,
    credits: a.credits,
    amount: { amount: a.gross, currency: a.currency },
    invoice_number: a.invoiceNumber,
    invoice_id: a.invoiceId,
    invoice_url: a.invoiceUrl,
    detail: a.detail,
    // The link is only for the payment the bank wants confirmed; once settled it leads nowhere.
    pay_url: a.status === "authentication_required" ? a.payUrl : null,
  };
}

/**
 * The organisation's auto top-up as GET answers it. `currency` is the packs' (what this month's
 * charges are counted in before any limit was saved).
 */
export async function autoTopUpView(
  db: DbOrTx,
  orgId: string,
  currency: string,
  now: Date,
): Promise<AutoTopUp> {
  const [settings, card, attempts, thisMonth] = await Promise.all([
    findSettings(db, orgId),
    findCard(db, orgId),
    latestAttempts(db, orgId),
    attemptsThisMonth(db, orgId, now),
  ]);
  const counted = thisMonth.map(limitAttemptOf);
  const monthCurrency = settings?.currency ?? currency;
  const last = attempts[0];
  return {
    enabled: settings?.enabled ?? false,
    threshold: settings?.threshold ?? null,
    product_id: settings?.productId ?? null,
    monthly_limit: settings ? { amount: settings.monthlyLimit, currency: settings.currency } : null,
    charged_this_month: { amount: chargedThisMonth(counted, now), currency: monthCurrency },
    reserved_this_month: { amount: reservedThisMonth(counted, now), currency: monthCurrency },
    limit_resets_at: nextBerlinMonth(now).toISOString(),
    card: card
      ? { brand: card.brand, last4: card.last4, exp_month: card.expMonth, exp_year: card.expYear }
      : null,
    status: settings?.status ?? "off",
    paused_reason: settings?.status === "active" ? null : (settings?.reason ?? null),
    reason_text: settings && settings.status !== "active" ? reasonText(settings) : null,
    paused_until: settings?.status === "paused" ? (settings.pausedUntil?.toISOString() ?? null) : null,
    consent_text_version: CONSENT_TEXT_VERSION,
    last_attempt: last
      ? {
          at: last.createdAt.toISOString(),
          status: last.status,
          credits: last.credits,
          invoice_number: last.invoiceNumber,
          detail: last.detail,
        }
      : null,
    attempts: attempts.map(attemptAnswer),
  };
}
