// What the console shows of one customer (OPERATIONS.md, the customer page): the account with its
// plan, credits and keys; every change of its credits; its payments with refunds, disputes and
// credit notes; and the audit entries about it. Staff never see secrets: no password or token
// hash, no key secret (the prefix only).
import { and, desc, eq, inArray, like, type SQL, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import { FREE_SUBSCRIPTION } from "../../contract/account.ts";
import type { AdminLedgerEntry, AdminPayment, Customer } from "../../contract/admin.ts";
import { isUserId } from "../accounts/users.ts";
import { listApiKeys } from "../api-access/api-keys.ts";
import { disputeHoldSince } from "../billing/dispute-hold.ts";
import { invoiceNumber } from "../billing/invoice-number.ts";
import { userInvoices } from "../billing/invoices.ts";
import { toLedgerEntry } from "../billing/reads.ts";
import { findBillingDetails } from "../billing/subscription-store.ts";
import { takenBackOfLostDisputes } from "../billing/taken-back.ts";
import { billingAt, findUserWithBilling } from "../billing/user-billing.ts";
import {
  creditAdjustments,
  creditGrants,
  creditNotes,
  invoices,
  providerInvoiceDocuments,
  usageDaily,
  users,
} from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { berlinDateOf } from "../domain/berlin-time.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import type { TierLookup } from "../domain/subscription.ts";

const iso = (d: Date | null) => d?.toISOString() ?? null;

export async function customerOverview(
  db: DbOrTx,
  id: string,
  now: Date,
  tiers: TierLookup,
): Promise<Customer | undefined> {
  if (!isUserId(id)) return undefined;
  const [[user], disputeHoldAt, found, keys, details] = await Promise.all([
    db.select().from(users).where(eq(users.id, id)),
    // The customer's money is their personal organisation's: its dispute hold is the account's.
    disputeHoldSince(db, id),
    findUserWithBilling(db, id),
    listApiKeys(db, id, now, { includeRevoked: true }),
    findBillingDetails(db, id),
  ]);
  if (!user || !found) return undefined;
  const billing = billingAt(found.grants, found.subscription, now, tiers);
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    role: user.role,
    email_verified: user.emailVerified,
    created_at: user.createdAt.toISOString(),
    last_login_at: iso(user.lastLoginAt),
    disabled_at: iso(user.disabledAt),
    dispute_hold_at: iso(disputeHoldAt),
    subscription: billing.subscription ?? FREE_SUBSCRIPTION,
    credit_balance: billing.credit_balance,
    credits: found.grants.map(toLedgerEntry),
    as_of: now.toISOString(),
    api_keys: keys.map(({ row, usedThisMonth }) => ({
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      created_at: row.createdAt.toISOString(),
      last_used_at: iso(row.lastUsedAt),
      expires_at: iso(row.expiresAt),
      revoked_at: iso(row.revokedAt),
      monthly_credit_limit: row.monthlyCreditLimit === null ? null : fromMillicredits(row.monthlyCreditLimit),
      credits_used_this_month: fromMillicredits(usedThisMonth),
    })),
    billing_details: details ? { name: details.name, country: details.country, vat_id: details.vatId } : null,
  };
}

export const LEDGER_PAGE_SIZE = 50;

/** Adjustments that give credits back; every other kind takes them. */
const GIVES_BACK = new Set(["dispute_won"]);

/**
 * Every grant, spend (summed per Berlin day and feature), adjustment, refund and operator change,
 * newest first, 50 a page. The cursor is the last line's position (time and key).
 */
export async function customerLedger(
  db: DbOrTx,
  id: string,
  cursor: string | undefined,
  pageSize = LEDGER_PAGE_SIZE,
): Promise<{ data: AdminLedgerEntry[]; next_cursor: string | null }> {
  if (!isUserId(id)) return { data: [], next_cursor: null };
  const after = cursor ? decodeLedgerCursor(cursor) : undefined;
  const line = (at: SQL, kind: SQL, credits: SQL, description: SQL, count: SQL, key: SQL) => ({
    at: sql<Date | string>`${at}`.as("at"),
    kind: sql<string>`${kind}`.as("kind"),
    credits: sql<string | number>`${credits}`.as("credits"),
    description: sql<string>`${description}`.as("description"),
    count: sql<string | number>`${count}`.as("count"),
    key: sql<string>`${key}`.as("key"),
  });
  const grants = db
    .select(
      line(
        sql`${creditGrants.grantedAt}`,
        sql`'grant'`,
        sql`${creditGrants.amount}`,
        // As grantDescription() words it: the source, and the note the customer read, if any.
        sql`coalesce(${creditGrants.source} || ': ' || ${creditGrants.note}, ${creditGrants.source})`,
        sql`1::bigint`,
        sql`${creditGrants.id}::text`,
      ),
    )
    .from(creditGrants)
    .where(eq(creditGrants.userId, id));
  // A day's spends are dated at the end of that Berlin day, so they sort after its grants.
  const spends = db
    .select(
      line(
        sql`(${usageDaily.day}::timestamp + interval '1 day') at time zone 'Europe/Berlin' - interval '1 millisecond'`,
        sql`'spend'`,
        sql`sum(${usageDaily.credits})`,
        sql`${usageDaily.feature}`,
        sql`sum(${usageDaily.uses})::bigint`,
        sql`${usageDaily.day}::text || '/' || ${usageDaily.feature}`,
      ),
    )
    .from(usageDaily)
    .where(eq(usageDaily.userId, id))
    .groupBy(usageDaily.day, usageDaily.feature);
  const adjustments = db
    .select(
      line(
        sql`${creditAdjustments.createdAt}`,
        sql`${creditAdjustments.kind}`,
        sql`${creditAdjustments.amount}`,
        sql`${creditAdjustments.reference}`,
        sql`1::bigint`,
        sql`${creditAdjustments.id}::text`,
      ),
    )
    .from(creditAdjustments)
    .where(eq(creditAdjustments.userId, id));
  const lines = unionAll(grants, spends, adjustments).as("lines");
  const rows = await db
    .select()
    .from(lines)
    .where(after ? sql`(${lines.at}, ${lines.key}) < (${after.at}::timestamptz, ${after.key})` : undefined)
    .orderBy(desc(lines.at), desc(lines.key))
    .limit(pageSize + 1);
  const page = rows.slice(0, pageSize);
  const payments = await paymentsOfAdjustments(
    db,
    page.filter((r) => OF_A_PAYMENT.has(r.kind)).map((r) => r.key),
  );
  const data = page.map((r): AdminLedgerEntry => {
    const kind = r.kind as AdminLedgerEntry["kind"];
    const milli = Number(r.credits);
    const signed = kind === "grant" || GIVES_BACK.has(kind) ? milli : -milli;
    return {
      at: instantOf(r.at).toISOString(),
      kind,
      credits: fromMillicredits(signed),
      description: lineDescription(kind, r.description, payments.get(r.key)),
      count: Number(r.count),
    };
  });
  const last = page.at(-1);
  return {
    data,
    next_cursor:
      rows.length > pageSize && last
        ? Buffer.from(`${instantOf(last.at).toISOString()}|${last.key}`).toString("base64url")
        : null,
  };
}

/** Lines read per query for the whole ledger (spends are summed per day and feature already). */
const WHOLE_LEDGER_PAGE_SIZE = 1000;

/**
 * The whole of customerLedger, every page, newest first: what the account's own export holds
 * (ACCOUNT-SECURITY.md, "Your data"). Its lines name no staff member and no reason staff gave (those
 * are the audit log's): what the customer was told of a change, and the payment it concerns.
 */
export async function wholeLedger(db: DbOrTx, id: string): Promise<AdminLedgerEntry[]> {
  const entries: AdminLedgerEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await customerLedger(db, id, cursor, WHOLE_LEDGER_PAGE_SIZE);
    entries.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return entries;
}

/** A timestamp read through a raw selection: a Date or the driver's text, depending on the driver. */
const instantOf = (value: Date | string) => (value instanceof Date ? value : new Date(value));

function decodeLedgerCursor(cursor: string): { at: string; key: string } | undefined {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const split = text.indexOf("|");
  const at = text.slice(0, split);
  if (split < 0 || Number.isNaN(new Date(at).getTime())) return undefined;
  return { at, key: text.slice(split + 1) };
}

/** Adjustments a refund or a dispute of a payment made: their lines name that payment. */
const OF_A_PAYMENT = new Set(["refund", "dispute_freeze", "dispute_won", "dispute_lost"]);

/**
 * The payment an adjustment's line names, as the payments list shows it: the invoice of the
 * adjusted grant (the same fulfilment key), and for a refund the credit note it issued (the same
 * reference). The stored reference is the provider's fact (charge or dispute id, cumulative amount
 * in minor units), which tells an operator nothing.
 */
interface PaymentOfLine {
  /** As the customer's invoice shows it (billing/invoice-number.ts). */
  invoiceNumber: string | null;
  /** Null when the grant has no invoice on record. */
  invoice: { description: string; issuedAt: Date } | null;
  grantedAt: Date;
  creditNote: string | null;
}

/** The payments of the page's adjustments (by their ids), in one read. */
async function paymentsOfAdjustments(db: DbOrTx, ids: string[]): Promise<Map<string, PaymentOfLine>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({
      id: creditAdjustments.id,
      grantedAt: creditGrants.grantedAt,
      number: invoices.number,
      documentNumber: providerInvoiceDocuments.number,
      description: invoices.description,
      issuedAt: invoices.issuedAt,
      creditNote: creditNotes.number,
    })
    .from(creditAdjustments)
    .innerJoin(creditGrants, eq(creditGrants.id, creditAdjustments.grantId))
    .leftJoin(invoices, eq(invoices.fulfilmentKey, creditGrants.fulfilmentKey))
    .leftJoin(providerInvoiceDocuments, eq(providerInvoiceDocuments.invoiceId, invoices.providerInvoiceId))
    .leftJoin(creditNotes, eq(creditNotes.reference, creditAdjustments.reference))
    .where(inArray(creditAdjustments.id, ids));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        invoiceNumber: invoiceNumber(r, { number: r.documentNumber }),
        invoice:
          r.description !== null && r.issuedAt ? { description: r.description, issuedAt: r.issuedAt } : null,
        grantedAt: r.grantedAt,
        creditNote: r.creditNote,
      },
    ]),
  );
}

/**
 * What an operator knows a payment by: its invoice number; without one (a provider's invoice
 * whose document has not arrived, a payment with no invoice document), what the payments list
 * shows beside it, its description and Berlin day; with no invoice on record, the grant's day.
 */
function paymentName(p: PaymentOfLine): string {
  if (p.invoiceNumber) return p.invoiceNumber;
  if (p.invoice) return `${p.invoice.description} of ${berlinDateOf(p.invoice.issuedAt)}`;
  return `no invoice: credits granted ${berlinDateOf(p.grantedAt)}`;
}

/** A ledger line's words: spends name their feature, adjustments what caused them and the payment. */
function lineDescription(
  kind: AdminLedgerEntry["kind"],
  description: string,
  payment: PaymentOfLine | undefined,
): string {
  const of = (words: string, more = "") => (payment ? `${words} (${paymentName(payment)}${more})` : words);
  switch (kind) {
    case "spend":
      return description === "" ? "Manual charge" : description;
    case "refund":
      return of("Payment refunded", payment?.creditNote ? `; credit note ${payment.creditNote}` : "");
    case "dispute_freeze":
      return of("Held while the payment is disputed");
    case "dispute_won":
      return of("Dispute won: held credits released");
    case "dispute_lost":
      return of("Dispute lost: held and unspent credits dropped");
    case "operator_take_back":
      return "Taken back by staff";
    case "forfeit":
      return "Written off: the organisation was deleted";
    default:
      return description;
  }
}

/** Where a payment's dispute stands: held while open, then won or lost. */
export type DisputeState = "open" | "won" | "lost";

/**
 * The dispute state of each of the organisation's payments that was disputed, by invoice id (the
 * payments list's `dispute`; the account's export gives it beside each invoice). A payment disputed
 * again after a won dispute reads by its latest outcome: lost over won over open.
 */
export async function paymentDisputes(db: DbOrTx, id: string): Promise<Map<string, DisputeState>> {
  const rows = await db
    .select({ invoiceId: invoices.id, kind: creditAdjustments.kind })
    .from(creditAdjustments)
    .innerJoin(creditGrants, eq(creditGrants.id, creditAdjustments.grantId))
    .innerJoin(invoices, eq(invoices.fulfilmentKey, creditGrants.fulfilmentKey))
    .where(and(eq(creditAdjustments.userId, id), like(creditAdjustments.kind, "dispute%")));
  const kinds = new Map<string, Set<string>>();
  for (const r of rows) kinds.set(r.invoiceId, (kinds.get(r.invoiceId) ?? new Set()).add(r.kind));
  const states = new Map<string, DisputeState>();
  for (const [invoiceId, of] of kinds) {
    if (of.has("dispute_lost")) states.set(invoiceId, "lost");
    else if (of.has("dispute_won")) states.set(invoiceId, "won");
    else if (of.has("dispute_freeze")) states.set(invoiceId, "open");
  }
  return states;
}

/** The customer's payments, newest first, with their refunds, disputes and credit notes. */
export async function customerPayments(db: DbOrTx, id: string): Promise<AdminPayment[]> {
  if (!isUserId(id)) return [];
  const [rows, notes, disputes] = await Promise.all([
    userInvoices(db, id),
    db.select().from(creditNotes).where(eq(creditNotes.userId, id)).orderBy(creditNotes.issuedAt),
    paymentDisputes(db, id),
  ]);
  // A lost dispute stores the whole total as refunded: what the bank took is the part our refunds
  // did not give back, as the customer's invoice says (billing/taken-back.ts).
  const takenBack = await takenBackOfLostDisputes(db, rows);
  return rows.map((r) => {
    const own = notes.filter((n) => n.invoiceId === r.id);
    const bank = takenBack.get(r.id);
    return {
      id: r.id,
      issued_at: r.issuedAt.toISOString(),
      description: r.description,
      invoice_number: invoiceNumber(r, r.document),
      status: r.status,
      currency: r.currency,
      net: r.net,
      tax: r.tax,
      total: r.total,
      refunded: r.refunded,
      ...(bank === undefined ? {} : { taken_back: bank }),
      dispute: disputes.get(r.id) ?? null,
      credit_notes: own.map((n) => ({
        id: n.id,
        number: n.number,
        issued_at: n.issuedAt.toISOString(),
        total: n.total,
        currency: n.currency,
      })),
    };
  });
}
