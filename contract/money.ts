// How an amount of money reads wherever it is shown: invoices, the billing pages, the console, the
// billing mails. On its own, not in invoice-document.ts: the console and the auto top-up form need
// only this, and that module brings the table of country names (2 KB gzip) with it.

/** One formatter per currency code as given: making one costs far more than using it, and lists ask often. */
const MONEY = new Map<string, Intl.NumberFormat>();

/** `formatMoney(9401, "eur")` -> "€94.01": exact cents with the currency's symbol (fixed locale). */
export function formatMoney(cents: number, currency: string): string {
  let format = MONEY.get(currency);
  if (!format) {
    // Intl reads the code in either case ("eur" and "EUR" are the euro).
    format = new Intl.NumberFormat("en-US", { style: "currency", currency });
    MONEY.set(currency, format);
  }
  return format.format(cents / 100);
}

/**
 * Whether `credits` is a whole number of thousandths of a credit (the ledger keeps millicredits:
 * server/domain/ledger.ts), the rule every amount, cap and limit a person types follows. The
 * tolerance absorbs binary fractions (0.1 × 1000 is 100.00000000000001), not a fourth decimal.
 */
export function inThousandths(credits: number): boolean {
  return Number.isFinite(credits) && Math.abs(Math.round(credits * 1000) - credits * 1000) < 1e-6;
}
