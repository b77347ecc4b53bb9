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
