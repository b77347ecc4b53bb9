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
