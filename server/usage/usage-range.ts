// The range and grouping a usage query asks for, resolved against the Berlin calendar: the days
// it names, the instants they span (Berlin's midnights, so a 23- or 25-hour day around a clock
// change is one day), and the dimensions to group by. Plain functions: the route turns a refusal
// into a 422 on the query field it names.
import { Temporal } from "temporal-polyfill";
import {
  USAGE_DEFAULT_DAYS,
  USAGE_DIMENSIONS,
  USAGE_MAX_DAYS,
  USAGE_RULES,
  type UsageDimension,
} from "../../contract/usage.ts";
import { BERLIN, inBerlin } from "../domain/berlin-time.ts";

export interface UsageRange {
  /** First and last Berlin day, YYYY-MM-DD, both included. */
  from: string;
  to: string;
  /** 00:00 in Berlin on `from`, and on the day after `to`: charges at or after start, before end. */
  start: Date;
  end: Date;
}

export type Refusal = { field: "from" | "to" | "group_by"; message: string };

const midnight = (day: Temporal.PlainDate) => new Date(day.toZonedDateTime(BERLIN).epochMilliseconds);

/**
 * The days `from`..`to` (both optional, already checked as YYYY-MM-DD dates): by default the
 * last USAGE_DEFAULT_DAYS Berlin days up to today, or that many days up to `to` or from `from`.
 */
export function usageRange(
  query: { from?: string | undefined; to?: string | undefined },
  now: Date,
): UsageRange | Refusal {
  const span = { days: USAGE_DEFAULT_DAYS - 1 };
  const today = inBerlin(now).toPlainDate();
  let from: Temporal.PlainDate;
  let to: Temporal.PlainDate;
  if (query.from !== undefined && query.to !== undefined) {
    from = Temporal.PlainDate.from(query.from);
    to = Temporal.PlainDate.from(query.to);
  } else if (query.from !== undefined) {
    from = Temporal.PlainDate.from(query.from);
    to = from.add(span);
  } else {
    to = query.to === undefined ? today : Temporal.PlainDate.from(query.to);
    from = to.subtract(span);
  }
  if (Temporal.PlainDate.compare(from, to) > 0) return { field: "from", message: USAGE_RULES.order };
  if (from.until(to).days + 1 > USAGE_MAX_DAYS) return { field: "to", message: USAGE_RULES.tooLong };
  return {
    from: from.toString(),
    to: to.toString(),
    start: midnight(from),
    end: midnight(to.add({ days: 1 })),
  };
}

const isDimension = (name: string): name is UsageDimension =>
  (USAGE_DIMENSIONS as readonly string[]).includes(name);

/** The dimensions to group by, in the contract's order (day first); by default the day. */
export function usageDimensions(groupBy: readonly string[] | undefined): UsageDimension[] | Refusal {
  if (groupBy === undefined) return ["day"];
  if (groupBy.length === 0 || !groupBy.every(isDimension)) {
    return { field: "group_by", message: USAGE_RULES.groupBy };
  }
  return USAGE_DIMENSIONS.filter((dimension) => groupBy.includes(dimension));
}

export const isRefusal = (value: object): value is Refusal => "field" in value && "message" in value;
