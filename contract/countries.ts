import { COUNTRY_NAMES } from "./country-name.ts";

// The countries a buyer may give (ISO 3166-1 alpha-2), as the server's checks know them
// (server/domain/vat.ts BUYER_COUNTRIES, from i18n-iso-countries): the billing details form and the
// local checkout offer these, by the English names of country-name.ts, so the portal carries that
// table, not the library.

const OPTIONS: readonly { code: string; name: string }[] = Object.entries(COUNTRY_NAMES).map(
  ([code, name]) => ({ code, name }),
);

export const COUNTRY_CODES: readonly string[] = OPTIONS.map((o) => o.code);

/**
 * The countries a buyer may choose, by the name a reader looks for and in that order: the billing
 * details form (in the browser) and the local checkout (on the server) offer this one list, taken
 * from one table rather than from each runtime's region names, so a name never differs between them.
 */
export function countryOptions(): readonly { code: string; name: string }[] {
  return OPTIONS;
}
