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
 * server/domain/ledger.ts), the rule every amount, cap and limit a person types follows. It accepts
 * what `toMillicredits` accepts, minus a number so small it rounds to no thousandth at all (1e-13 is
 * a thirteenth decimal, not 0). The tolerance is toMillicredits' own: binary fractions (0.1 × 1000
 * is 100.00000000000001), never a fourth decimal.
 */
export function inThousandths(credits: number): boolean {
  const scaled = credits * 1000;
  const milli = Math.round(scaled);
  // The tolerance grows with the amount, as in toMillicredits, and is none at all at 0: a number
  // that rounds to no thousandth is refused, and NaN and ±Infinity fail the comparison.
  // Stryker disable next-line EqualityOperator: `<` differs only when the error equals the tolerance
  // exactly, which no three-decimal amount's representation error does (as in toMillicredits).
  return Math.abs(scaled - milli) <= 1e-9 * Math.abs(milli) && Number.isSafeInteger(milli);
}
