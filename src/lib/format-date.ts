// Dates and times as the portal shows them. A date ("YYYY-MM-DD from expires_at", spec section 2)
// is the business's calendar day in Europe/Berlin, the day the mails, invoices and usage history
// give for the same instant: a plan renewing at 23:30 UTC renews on the next day in Berlin, and
// the profile must not say the day before the mail. A time of day is the visitor's own clock, and
// the pages that show one say so; so is the day of an event shown beside such times (a key's or a
// passkey's creation, beside its last use), localDay.

// Built on first use: this module is in every page's shell chunk (the top bar's islands use it).
let berlinDay: Intl.DateTimeFormat | undefined;

/** The Berlin calendar date of an ISO date-time, e.g. "2026-12-22"; null when absent or unreadable. */
export function isoDay(value: string | null | undefined): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  berlinDay ??= new Intl.DateTimeFormat("sv-SE", {
    timeZone: "Europe/Berlin",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  return berlinDay.format(date);
}

/** The visitor's own calendar day of an instant, e.g. "2026-11-24"; null when absent or unreadable. */
export function localDay(value: string | null | undefined): string | null {
  return dayAndTime(value)?.slice(0, 10) ?? null;
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

/**
 * A day typed as the console writes days ("2026-11-24") as the instant its reader's day starts, so
 * that a filter by day agrees with the times the rows show on the same clock; anything else
 * (an instant, a day that does not exist, text) as it was typed, for the API to judge.
 */
export function localDayStart(text: string): string {
  const day = text.trim();
  if (!/^\d{4}-\d\d-\d\d$/.test(day)) return text;
  const start = new Date(`${day}T00:00`);
  return Number.isNaN(start.getTime()) || localDay(start.toISOString()) !== day ? text : start.toISOString();
}
