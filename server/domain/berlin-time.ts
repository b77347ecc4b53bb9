// Time in Europe/Berlin, the business's time zone: the spec's "midnight CET" for renewal credits,
// and the calendar that "one month" of credit lifetime is counted in. Temporal (temporal-polyfill)
// does the zone arithmetic from the IANA data; decision 010 says why Temporal and not TZDate.
import { Temporal } from "temporal-polyfill";

export const BERLIN = "Europe/Berlin";

/** `instant` on Berlin's calendar and wall clock. Temporal throws a RangeError for an invalid Date. */
export function inBerlin(instant: Date): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(BERLIN);
}

const toDate = (zoned: Temporal.ZonedDateTime) => new Date(zoned.epochMilliseconds);

/** `instant`'s Berlin calendar day, "YYYY-MM-DD". */
export const berlinDateOf = (instant: Date): string => inBerlin(instant).toPlainDate().toString();

/**
 * `instant` on Berlin's wall clock to the minute with the zone's name then, "2026-11-25 22:14 CET"
 * (summer: CEST): as mails give a time, on the business's clock like the pages' dates, and
 * never without its zone.
 */
export function berlinDateTime(instant: Date): string {
  const zoned = inBerlin(instant);
  const clock = zoned.toPlainTime().toString({ smallestUnit: "minute" });
  return `${zoned.toPlainDate().toString()} ${clock} ${zoned.offsetNanoseconds === 2 * HOUR_NS ? "CEST" : "CET"}`;
}

const HOUR_NS = 3_600_000_000_000;

/**
 * The next 00:00 in Berlin strictly after `instant` (an instant at exactly midnight gives the
 * following midnight). Renewal credits are granted then (spec section 9: "credits are added at
 * midnight CET after the renewal payment"). Berlin changes its clocks at 02:00/03:00, so midnight
 * always exists and occurs once.
 */
export function nextMidnightBerlin(instant: Date): Date {
  return toDate(inBerlin(instant).toPlainDate().add({ days: 1 }).toZonedDateTime(BERLIN));
}

/**
 * `n` calendar months after `instant` on the Berlin calendar: the same wall-clock time, and the same
 * day of the month clamped to the target month's last day (Jan 31 + 1 month = Feb 28). A wall time
 * that occurs twice (October's repeated hour) gives the earlier instant; one that never occurs (the
 * March gap) moves forward by the gap: Temporal's "compatible" disambiguation.
 */
export function addBerlinMonths(instant: Date, n: number): Date {
  // Temporal's default overflow, "constrain", is the clamp to the month's last day.
  return toDate(inBerlin(instant).add({ months: n }));
}

/** 00:00 in Berlin `days` calendar days before `instant`'s Berlin day (0: that day's own midnight). */
export function berlinMidnightDaysAgo(instant: Date, days: number): Date {
  return toDate(inBerlin(instant).toPlainDate().subtract({ days }).toZonedDateTime(BERLIN));
}

/** 00:00 in Berlin on the first day of `instant`'s Berlin calendar month (monthly key limits count from it). */
export function startOfBerlinMonth(instant: Date): Date {
  return toDate(inBerlin(instant).toPlainDate().with({ day: 1 }).toZonedDateTime(BERLIN));
}

/** A calendar span on Berlin's clock: its first instant, the next span's first instant, and its name. */
interface Span {
  from: number;
  until: number;
  name: string;
}

/**
 * The name of the span an instant falls in, remembering the last span worked out: every charge and
 * introspection asks, and consecutive ones fall in the same day and month, so the zone arithmetic
 * runs once per span instead of once per call.
 */
function rememberingLastSpan(
  spanOf: (day: Temporal.PlainDate) => { first: Temporal.PlainDate; next: Temporal.PlainDate },
) {
  let last: Span | undefined;
  return (instant: Date): string => {
    const at = instant.getTime();
    if (last !== undefined && at >= last.from && at < last.until) return last.name;
    const { first, next } = spanOf(inBerlin(instant).toPlainDate());
    last = {
      from: first.toZonedDateTime(BERLIN).epochMilliseconds,
      until: next.toZonedDateTime(BERLIN).epochMilliseconds,
      name: first.toString(),
    };
    return last.name;
  };
}

/** The Berlin calendar month of `instant` as its first day, "2026-11-01" (API key usage is kept per month). */
export const berlinMonth = rememberingLastSpan((day) => {
  const first = day.with({ day: 1 });
  return { first, next: first.add({ months: 1 }) };
});

/** The Berlin calendar day of `instant`, "2026-11-24" (usage history is kept per day). */
export const berlinDay = rememberingLastSpan((day) => ({ first: day, next: day.add({ days: 1 }) }));
