// Dates as the profile shows them (spec section 2: "YYYY-MM-DD from expires_at").

/** The calendar date of an ISO date-time in UTC, e.g. "2026-12-22"; null when absent or unreadable. */
export function isoDay(value: string | null | undefined): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  return date.toISOString().slice(0, 10);
}

const DAY_AND_TIME = new Intl.DateTimeFormat("sv-SE", {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
});

/** An instant on the visitor's own clock, e.g. "2026-11-24 14:03"; null when absent or unreadable. */
export function dayAndTime(value: string | Date | null | undefined): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  return DAY_AND_TIME.format(date);
}

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
