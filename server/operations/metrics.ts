// The business at a glance for admins (OPERATIONS.md, dashboard metrics): per Berlin day sign-ups,
// verified sign-ups, new paying customers and churned subscriptions; now the paying customers per
// tier, the MRR (net, per currency), open failed renewals and open disputes; per Berlin month the
// revenue (net, VAT, gross) and refunds; and the credits consumed per feature per day. Each figure
// is one grouped statement over an indexed range; they run together.
import { and, count, eq, gte, inArray, lt, type SQL, sql, sum } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Catalogue } from "../billing/ports/payment-provider.ts";
import { creditNotes, invoices, subscriptions, usageDaily, users } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import type { UsageRange } from "../usage/usage-range.ts";

/** The Berlin calendar day of a timestamp column, as text "YYYY-MM-DD". */
const berlinDay = (column: AnyPgColumn | SQL | SQL.Aliased) =>
  sql<string>`to_char(${column} at time zone 'Europe/Berlin', 'YYYY-MM-DD')`;
const berlinMonth = (column: AnyPgColumn | SQL | SQL.Aliased) =>
  sql<string>`to_char(${column} at time zone 'Europe/Berlin', 'YYYY-MM')`;
const within = (column: AnyPgColumn, range: UsageRange) =>
  and(gte(column, range.start), lt(column, range.end));

/** The first day of the month of `range.from`'s month, so the monthly figures cover whole months. */
function monthsStart(range: UsageRange): Date {
  const [year, month] = range.from.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(year, month - 1, 1) - 2 * 3_600_000); // before Berlin's midnight in any season
}

export async function businessMetrics(db: DbOrTx, range: UsageRange, catalogue: Pick<Catalogue, "findTier">) {
  const firstPaid = db
    .select({ userId: invoices.userId, first: sql<Date>`min(${invoices.issuedAt})`.as("first") })
    .from(invoices)
    .where(inArray(invoices.status, ["paid", "refunded", "disputed"]))
    .groupBy(invoices.userId)
    .as("first_paid");
  const monthFrom = monthsStart(range);
  const [signups, payers, churned, live, pastDue, disputes, revenue, refunds, credits] = await Promise.all([
    db
      .select({
        day: berlinDay(users.createdAt),
        signups: count(),
        verified: sql<number>`count(*) filter (where ${users.emailVerified})`,
      })
      .from(users)
      .where(within(users.createdAt, range))
      .groupBy(berlinDay(users.createdAt)),
    db
      .select({ day: berlinDay(firstPaid.first), payers: count() })
      .from(firstPaid)
      // A raw column of a subquery has no type for the driver: the bounds go as text with a cast.
      .where(
        sql`${firstPaid.first} >= ${range.start.toISOString()}::timestamptz and ${firstPaid.first} < ${range.end.toISOString()}::timestamptz`,
      )
      .groupBy(berlinDay(firstPaid.first)),
    db
      .select({ day: berlinDay(subscriptions.endedAt), churned: count() })
      .from(subscriptions)
      .where(and(eq(subscriptions.status, "ended"), within(subscriptions.endedAt, range)))
      .groupBy(berlinDay(subscriptions.endedAt)),
    db
      .select({ productId: subscriptions.productId, customers: count() })
      .from(subscriptions)
      .where(inArray(subscriptions.status, ["active", "past_due"]))
      .groupBy(subscriptions.productId),
    db.select({ n: count() }).from(subscriptions).where(eq(subscriptions.status, "past_due")),
    db.select({ n: count() }).from(invoices).where(eq(invoices.status, "disputed")),
    db
      .select({
        month: berlinMonth(invoices.issuedAt),
        currency: invoices.currency,
        net: sum(invoices.net),
        vat: sum(invoices.tax),
        gross: sum(invoices.total),
      })
      .from(invoices)
      .where(
        and(
          inArray(invoices.status, ["paid", "refunded", "disputed"]),
          gte(invoices.issuedAt, monthFrom),
          lt(invoices.issuedAt, range.end),
        ),
      )
      .groupBy(berlinMonth(invoices.issuedAt), invoices.currency),
    db
      .select({
        month: berlinMonth(creditNotes.issuedAt),
        currency: creditNotes.currency,
        gross: sum(creditNotes.total),
      })
      .from(creditNotes)
      .where(and(gte(creditNotes.issuedAt, monthFrom), lt(creditNotes.issuedAt, range.end)))
      .groupBy(berlinMonth(creditNotes.issuedAt), creditNotes.currency),
    db
      .select({
        day: sql<string>`${usageDaily.day}::text`,
        feature: usageDaily.feature,
        credits: sum(usageDaily.credits),
      })
      .from(usageDaily)
      .where(and(gte(usageDaily.day, range.from), sql`${usageDaily.day} <= ${range.to}`))
      .groupBy(usageDaily.day, usageDaily.feature),
  ]);

  const days = new Map<
    string,
    { date: string; signups: number; verified_signups: number; new_paying_customers: number; churned: number }
  >();
  const dayOf = (date: string) => {
    let row = days.get(date);
    if (!row) {
      row = { date, signups: 0, verified_signups: 0, new_paying_customers: 0, churned: 0 };
      days.set(date, row);
    }
    return row;
  };
  for (const d of eachDay(range.from, range.to)) dayOf(d);
  for (const r of signups)
    Object.assign(dayOf(r.day), { signups: Number(r.signups), verified_signups: Number(r.verified) });
  for (const r of payers) dayOf(r.day).new_paying_customers = Number(r.payers);
  for (const r of churned) dayOf(r.day).churned = Number(r.churned);

  const tiers = live.map((r) => ({
    tier: catalogue.findTier(r.productId)?.tier,
    customers: Number(r.customers),
  }));
  const mrr = new Map<string, number>();
  for (const { tier, customers } of tiers) {
    if (tier) mrr.set(tier.currency, (mrr.get(tier.currency) ?? 0) + tier.unitAmount * customers);
  }
  const perTier = new Map<string, number>();
  for (const { tier, customers } of tiers) {
    const name = tier?.name ?? "Unknown product";
    perTier.set(name, (perTier.get(name) ?? 0) + customers);
  }
  const refundsOf = new Map(refunds.map((r) => [`${r.month}|${r.currency}`, Number(r.gross ?? 0)]));
  return {
    from: range.from,
    to: range.to,
    days: [...days.values()].sort((a, b) => a.date.localeCompare(b.date)),
    now: {
      paying_customers: [...perTier.entries()]
        .map(([tier, customers]) => ({ tier, customers }))
        .sort((a, b) => a.tier.localeCompare(b.tier)),
      mrr: [...mrr.entries()].map(([currency, net]) => ({ currency, net })),
      open_failed_renewals: Number(pastDue[0]?.n ?? 0),
      open_disputes: Number(disputes[0]?.n ?? 0),
    },
    months: [...new Set([...revenue.map((r) => `${r.month}|${r.currency}`), ...refundsOf.keys()])]
      .sort()
      .map((key) => {
        const [month, currency] = key.split("|") as [string, string];
        const r = revenue.find((x) => x.month === month && x.currency === currency);
        return {
          month,
          currency,
          net: Number(r?.net ?? 0),
          vat: Number(r?.vat ?? 0),
          gross: Number(r?.gross ?? 0),
          refunds: refundsOf.get(key) ?? 0,
        };
      }),
    credits_per_feature: credits
      .map((r) => ({
        date: r.day,
        feature: r.feature === "" ? null : r.feature,
        credits: fromMillicredits(Number(r.credits ?? 0)),
      }))
      .sort((a, b) => a.date.localeCompare(b.date) || (a.feature ?? "").localeCompare(b.feature ?? "")),
  };
}

/** Every day from `from` to `to`, both included ("YYYY-MM-DD"). */
function eachDay(from: string, to: string): string[] {
  const out: string[] = [];
  for (
    let d = new Date(`${from}T12:00:00Z`);
    d.toISOString().slice(0, 10) <= to;
    d.setUTCDate(d.getUTCDate() + 1)
  ) {
    out.push(d.toISOString().slice(0, 10));
  }
  return out;
}
