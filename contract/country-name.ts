// A country's English name, wherever the portal, the invoices and the local checkout show one. Apart
// from the list of codes (countries.ts), so a page that only names a country does not carry the list.

const NAMES = new Intl.DisplayNames(["en"], { type: "region" });

/** "Germany" for DE; the code itself when the runtime does not know it. */
export function countryName(code: string | null): string {
  if (!code) return "";
  try {
    return NAMES.of(code) ?? code;
  } catch {
    return code;
  }
}
