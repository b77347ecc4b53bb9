// Wall-clock time in Europe/Berlin, the business's time zone: the spec's "midnight CET" for
// renewal credits, and the calendar that "one month" of credit lifetime is counted in.
//
// Offsets come from the runtime's time-zone database through Intl.DateTimeFormat, so DST rules
// are never hard-coded here (no date library needed). Valid for any instant the runtime's tz data
// covers; Berlin's offsets since 1893 are whole hours, so milliseconds carry over unchanged.

const TIME_ZONE = "Europe/Berlin";
const DAY_MS = 86_400_000;

/** A Berlin wall-clock reading. `month` is 1-12. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

// One formatter, built once: constructing Intl formatters is the expensive part.
const formatter = new Intl.DateTimeFormat("en-US", {
  timeZone: TIME_ZONE,
  hourCycle: "h23",
  year: "numeric",
  month: "numeric",
  day: "numeric",
  hour: "numeric",
  minute: "numeric",
  second: "numeric",
});

function assertValid(instant: Date): void {
  if (Number.isNaN(instant.getTime())) throw new RangeError("Invalid Date");
}

/** What a clock on a Berlin wall shows at `instant`. */
export function toBerlinWallTime(instant: Date): WallTime {
  assertValid(instant);
  const fields: Record<string, number> = {};
  for (const part of formatter.formatToParts(instant)) {
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  }
  const field = (name: string): number => {
    const value = fields[name];
    if (value === undefined || Number.isNaN(value))
      throw new Error(`Intl gave no ${name} for ${instant.toISOString()}`);
    return value;
  };
  return {
    year: field("year"),
    month: field("month"),
    day: field("day"),
    // Some ICU versions still say "24" for midnight despite h23.
    hour: field("hour") % 24,
    minute: field("minute"),
    second: field("second"),
    millisecond: instant.getUTCMilliseconds(),
  };
}

/** Milliseconds by which Berlin is ahead of UTC at `instant` (3_600_000 in winter, 7_200_000 in summer). */
export function berlinOffsetMs(instant: Date): number {
  const w = toBerlinWallTime(instant);
  return wallAsUtcMs(w) - instant.getTime();
}

/**
 * The instant at which Berlin's wall clock shows `wall`. Out-of-range fields roll over the way
 * Date.UTC rolls them (day 32 is the 1st of the next month). Around DST changes this resolves
 * like Temporal's "compatible" disambiguation: a time that occurs twice (the October hour)
 * gives the earlier instant; a time that never occurs (the March hour) is pushed forward by the
 * length of the gap (02:30 becomes 03:30 CEST).
 */
export function fromBerlinWallTime(wall: WallTime): Date {
  const asUtc = wallAsUtcMs(wall);
  if (Number.isNaN(asUtc)) throw new RangeError("Invalid wall time");
  // Berlin changes offset at most twice a year, so the offsets a day either side are the only
  // two candidates.
  const offsetBefore = berlinOffsetMs(new Date(asUtc - DAY_MS));
  const offsetAfter = berlinOffsetMs(new Date(asUtc + DAY_MS));
  const candidates = [asUtc - offsetBefore, asUtc - offsetAfter]
    .filter((t) => berlinOffsetMs(new Date(t)) === asUtc - t)
    .sort((a, b) => a - b);
  const earliest = candidates[0];
  if (earliest !== undefined) return new Date(earliest);
  // In the spring-forward gap: reading the wall time with the pre-change offset lands after the
  // change, shifted forward by exactly the gap.
  return new Date(asUtc - offsetBefore);
}

/**
 * The next 00:00 in Berlin strictly after `instant` (an instant at exactly midnight gives the
 * following midnight). Renewal credits are granted then (spec section 9: "credits are added at
 * midnight CET after the renewal payment"). Berlin changes its clocks at 02:00/03:00, so midnight
 * always exists and occurs once.
 */
export function nextMidnightBerlin(instant: Date): Date {
  const today = toBerlinWallTime(instant);
  return fromBerlinWallTime({
    year: today.year,
    month: today.month,
    day: today.day + 1,
    hour: 0,
    minute: 0,
    second: 0,
    millisecond: 0,
  });
}

/** Days in a calendar month (month 1-12), leap years included. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function wallAsUtcMs(w: WallTime): number {
  // setUTCFullYear keeps years 0-99 literal (Date.UTC would map them to 1900-1999).
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, w.millisecond);
  return d.getTime();
}
