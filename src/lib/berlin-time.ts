// Instants on the business's clock (Berlin), as /profile and the token dialog show them. Its own
// module, apart from format-date.ts: that one is in every page's shell chunk (the top bar's islands
// use it), and these formatters, built when the module loads, would ride along on every page.

/** The business's time zone: credit expiries and the API's days are Berlin's. */
const BERLIN = "Europe/Berlin";
const BERLIN_DAY_AND_TIME = new Intl.DateTimeFormat("sv-SE", {
  timeZone: BERLIN,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
});
const BERLIN_ZONE_NAME = new Intl.DateTimeFormat("en-GB", { timeZone: BERLIN, timeZoneName: "short" });

/**
 * An instant on Berlin's clock with the zone's name at that instant, "2026-12-23 00:00 CET", as
 * /profile shows expiries: a time without its zone is read in whatever zone the reader is in.
 */
export function berlinDayAndTime(value: string | Date): string {
  const date = new Date(value);
  const zone = BERLIN_ZONE_NAME.formatToParts(date).find((p) => p.type === "timeZoneName")?.value ?? BERLIN;
  return `${BERLIN_DAY_AND_TIME.format(date)} ${zone}`;
}
