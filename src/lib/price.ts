// Prices as the portal shows them: the spec rounds every price UP to whole currency units and
// prints it with the currency's symbol (section 2, /plans; section 9).

/** Symbols of the currencies the catalogue uses; anything else prints its ISO code. */
const SYMBOLS: Readonly<Record<string, string>> = { usd: "$", eur: "€" };

/** Minor units per major unit. Both catalogue currencies use cents. */
const MINOR_UNITS_PER_UNIT = 100;

// A fixed locale keeps the thousands separator identical in the prebuilt HTML and in an island
// rendered in any visitor's browser, so hydration never changes the text.
const WHOLE_UNITS = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** Whole currency units for an amount in minor units, rounded up: 7901 -> 80. */
export function wholeUnitsRoundedUp(unitAmount: number): number {
  if (!Number.isInteger(unitAmount) || unitAmount < 0) {
    throw new RangeError(`A price must be a whole, non-negative number of minor units, got ${unitAmount}`);
  }
  return Math.ceil(unitAmount / MINOR_UNITS_PER_UNIT);
}

/** A price for display: `formatPrice(7901, "eur")` -> "€80"; unknown currencies: "80 CHF". */
export function formatPrice(unitAmount: number, currency: string): string {
  const amount = WHOLE_UNITS.format(wholeUnitsRoundedUp(unitAmount));
  const symbol = SYMBOLS[currency.toLowerCase()];
  return symbol ? `${symbol}${amount}` : `${amount} ${currency.toUpperCase()}`;
}

/** The tax note that follows every price (spec section 2: "(excl. VAT)"). */
export const PRICE_TAX_NOTE = "(excl. VAT)";
