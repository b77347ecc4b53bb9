// /profile/usage's view of the usage answers: the range presets on Berlin's calendar, and the
// charges per day and feature pivoted into the series a stacked chart and its table show.
import { featureName } from "../../contract/credit-costs.ts";
import type { UsageRow } from "../../contract/usage.ts";
import { memberGroupLabel } from "../../contract/usage-members.ts";

export const USAGE_PRESETS = ["days7", "days30", "days90", "thisMonth"] as const;
export type UsagePreset = (typeof USAGE_PRESETS)[number];

const PRESET_DAYS: Readonly<Record<Exclude<UsagePreset, "thisMonth">, number>> = {
  days7: 7,
  days30: 30,
  days90: 90,
};

const BERLIN_DATE = new Intl.DateTimeFormat("sv-SE", {
  timeZone: "Europe/Berlin",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

/** Today on Berlin's calendar, YYYY-MM-DD (the API counts days in Berlin). */
export function berlinToday(now: Date): string {
  return BERLIN_DATE.format(now);
}

/** `day` (YYYY-MM-DD) moved by `n` calendar days. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** The days a preset covers, both ends included, ending on `today` (a Berlin day, YYYY-MM-DD). */
export function presetRangeEnding(preset: UsagePreset, today: string): { from: string; to: string } {
  if (preset === "thisMonth") return { from: `${today.slice(0, 8)}01`, to: today };
  return { from: addDays(today, 1 - PRESET_DAYS[preset]), to: today };
}

/** The days a preset covers, ending today in Berlin on the clock that reads `now`. */
export const presetRange = (preset: UsagePreset, now: Date): { from: string; to: string } =>
  presetRangeEnding(preset, berlinToday(now));

/** How many days `to` is after `from` (both YYYY-MM-DD; negative when before). */
export function daysBetween(from: string, to: string): number {
  const utc = (day: string) => {
    const [y, m, d] = day.split("-").map(Number) as [number, number, number];
    return Date.UTC(y, m - 1, d);
  };
  return Math.round((utc(to) - utc(from)) / 86_400_000);
}

/** Every day from `from` to `to`, both included. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

// Eight features and the manual charges: hues far apart, readable on white and on dark grey.
const PALETTE = [
  "#2563eb",
  "#f59e0b",
  "#10b981",
  "#ef4444",
  "#8b5cf6",
  "#06b6d4",
  "#ec4899",
  "#84cc16",
  "#64748b",
] as const;

/** The colour of the chart's `i`-th series, and of its legend entry. */
export const colourOf = (i: number): string => PALETTE[i % PALETTE.length] ?? "#64748b";

/** A feature id as people read it; the admin's manual charges have none. */
export function featureLabel(feature: string | null | undefined, manual: string): string {
  return feature ? featureName(feature) : manual;
}

export interface FeatureSeries {
  /** The series' id: a feature id (null: manual charges), or a memberSeriesKey. */
  feature: string | null;
  /** Credits per day, in `days`' order (0 on a day without charges). */
  credits: number[];
  total: number;
  uses: number;
}

export interface DailyUsage {
  days: string[];
  /** One series per feature, the most used first. */
  series: FeatureSeries[];
}

const exact = (credits: number) => Math.round(credits * 1000) / 1000;

/**
 * The rows of `group_by=day,feature` as one series per feature over every day of the range (or, with
 * `seriesOf` = memberSeriesKey, the rows of `group_by=day,member` as one series per member).
 */
export function dailyUsage(
  rows: readonly UsageRow[],
  from: string,
  to: string,
  seriesOf: (row: UsageRow) => string | null = (row) => row.feature ?? null,
): DailyUsage {
  const days = daysOf(from, to);
  const index = new Map(days.map((day, i) => [day, i]));
  const byFeature = new Map<string | null, FeatureSeries>();
  for (const row of rows) {
    const feature = seriesOf(row);
    let series = byFeature.get(feature);
    if (!series) {
      series = { feature, credits: days.map(() => 0), total: 0, uses: 0 };
      byFeature.set(feature, series);
    }
    const i = row.date === undefined ? undefined : index.get(row.date);
    if (i !== undefined) series.credits[i] = exact((series.credits[i] ?? 0) + row.credits);
    series.total = exact(series.total + row.credits);
    series.uses += row.uses;
  }
  const series = [...byFeature.values()].sort((a, b) => b.total - a.total);
  return { days, series };
}

/** What the usage page stacks its chart by: features, or (a team organisation) its members. */
export type UsageStack = "feature" | "member";

/**
 * A `group_by=member` row's series id: one per member who made keys, one for the shared keys and
 * one for the charges without a key (a key whose maker is gone: "member:").
 */
export function memberSeriesKey(row: UsageRow): string {
  const group = row.member_group ?? "without_key";
  return group === "member" ? `member:${row.member_id ?? ""}` : group;
}

/** The names of the member series of `rows`: usernames, "Shared keys", "Without a key". */
export function memberSeriesNames(rows: readonly UsageRow[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const row of rows) {
    names.set(memberSeriesKey(row), memberGroupLabel(row.member_group ?? "without_key", row.member_username));
  }
  return names;
}
