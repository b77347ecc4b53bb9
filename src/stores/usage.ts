// /profile/usage: the chosen period and what the usage API says about it (charges per day and
// feature, or per day and member, for the chart and its table; per API key and per member for the
// totals). The calls act on the chosen organisation (the API client sends X-Organization).
import { atom } from "nanostores";
import type { UsageRow } from "../../contract/usage.ts";
import { apiRequest, saveDownload } from "../lib/api-client.ts";
import {
  addDays,
  berlinToday,
  daysBetween,
  presetRange,
  presetRangeEnding,
  type UsagePreset,
  type UsageStack,
} from "../lib/usage-view.ts";

export interface UsageState {
  status: "loading" | "ready" | "failed";
  preset: UsagePreset;
  /** What the chart stacks: features, or (a team organisation) members. */
  stack: UsageStack;
  from: string;
  to: string;
  /** group_by=day,feature (or day,member when `stack` is member) */
  daily: readonly UsageRow[];
  /** group_by=api_key */
  byKey: readonly UsageRow[];
  /** group_by=member */
  byMember: readonly UsageRow[];
  /** group_by=feature, read when the chart stacks members (otherwise its series give these totals) */
  byFeature: readonly UsageRow[];
  total: { uses: number; credits: number };
  /**
   * How many days the server's today in Berlin is ahead of the browser's (negative: behind), once an
   * answer for the API's default period has said it; the presets end on the server's today. The
   * browser's clock may be off, and billing:advance moves the server's. Kept as a difference, so a
   * page left open past midnight moves on with the day.
   */
  serverDayOffset: number | null;
}

/** The period the API answers when none is given (its last 30 days), and the page's first. */
const DEFAULT_PRESET: UsagePreset = "days30";

// Shown while the first answer is on its way (the browser's guess at the days).
const initial = presetRange(DEFAULT_PRESET, new Date());
export const $usage = atom<UsageState>({
  status: "loading",
  preset: DEFAULT_PRESET,
  stack: "feature",
  ...initial,
  daily: [],
  byKey: [],
  byMember: [],
  byFeature: [],
  total: { uses: 0, credits: 0 },
  serverDayOffset: null,
});

/**
 * The days to ask for: the preset's, ending on the server's today once known. Before that, the
 * default period is asked without days, so the server's clock picks them; another preset chosen
 * before any answer ends on the browser's today.
 */
function askedRange(preset: UsagePreset, serverDayOffset: number | null) {
  if (serverDayOffset !== null)
    return presetRangeEnding(preset, addDays(berlinToday(new Date()), serverDayOffset));
  return preset === DEFAULT_PRESET ? undefined : presetRange(preset, new Date());
}

/** The server's today (an answer's last day, asked without days) as days ahead of the browser's. */
const dayOffsetOf = (serverToday: string) => daysBetween(berlinToday(new Date()), serverToday);

/**
 * Loads the period of `preset` (ending today in Berlin), stacked by `stack` (by default as now); a
 * failure keeps what is shown and says so.
 */
export async function loadUsage(preset: UsagePreset, stack: UsageStack = $usage.get().stack): Promise<void> {
  const before = $usage.get();
  const asked = askedRange(preset, before.serverDayOffset);
  const shown = asked ?? presetRange(preset, new Date());
  $usage.set({ ...before, status: "loading", preset, stack, ...shown });
  const current = () => $usage.get().preset === preset && $usage.get().stack === stack;
  const days = asked ? `from=${asked.from}&to=${asked.to}&` : "";
  try {
    const totalsBy = (groupBy: string) =>
      apiRequest(`/v1/usage?${days}group_by=${groupBy}`, "usageSchema", { auth: true });
    const [daily, byKey, byMember, byFeature] = await Promise.all([
      totalsBy(`day,${stack}`),
      totalsBy("api_key"),
      totalsBy("member"),
      stack === "member" ? totalsBy("feature") : undefined,
    ]);
    // A later choice of period or stacking wins over an earlier one still answering.
    if (!current()) return;
    const sameDays = (answer: { from: string; to: string } | undefined) =>
      answer === undefined || (answer.from === daily.from && answer.to === daily.to);
    if (!asked && ![byKey, byMember, byFeature].every(sameDays)) {
      // Berlin's midnight passed between the answers: ask again for the days the first one gave.
      $usage.set({ ...$usage.get(), serverDayOffset: dayOffsetOf(daily.to) });
      return loadUsage(preset, stack);
    }
    $usage.set({
      status: "ready",
      preset,
      stack,
      from: daily.from,
      to: daily.to,
      daily: daily.data,
      byKey: byKey.data,
      byMember: byMember.data,
      byFeature: byFeature?.data ?? [],
      total: daily.total,
      // Asked without days, the answer ends on the server's today.
      serverDayOffset: asked ? $usage.get().serverDayOffset : dayOffsetOf(daily.to),
    });
  } catch {
    if (current()) $usage.set({ ...$usage.get(), status: "failed" });
  }
}

/** The period's charges as a CSV file the browser saves. Throws ApiError on failure. */
export async function downloadUsageCsv(): Promise<void> {
  const { from, to } = $usage.get();
  await saveDownload(`/v1/usage.csv?from=${from}&to=${to}`, `usage-${from}-to-${to}.csv`);
}
