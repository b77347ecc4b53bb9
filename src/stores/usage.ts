// /profile/usage: the chosen period and what the usage API says about it (charges per day and
// feature, or per day and member, for the chart and its table; per API key and per member for the
// totals). The calls act on the chosen organisation (the API client sends X-Organization).
import { atom } from "nanostores";
import type { UsageRow } from "../../contract/usage.ts";
import { apiRequest, saveDownload } from "../lib/api-client.ts";
import { presetRange, type UsagePreset, type UsageStack } from "../lib/usage-view.ts";

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
}

const initial = presetRange("days30", new Date());
export const $usage = atom<UsageState>({
  status: "loading",
  preset: "days30",
  stack: "feature",
  ...initial,
  daily: [],
  byKey: [],
  byMember: [],
  byFeature: [],
  total: { uses: 0, credits: 0 },
});

const query = (from: string, to: string) => `from=${from}&to=${to}`;

/**
 * Loads the period of `preset` (ending today in Berlin), stacked by `stack` (by default as now); a
 * failure keeps what is shown and says so.
 */
export async function loadUsage(preset: UsagePreset, stack: UsageStack = $usage.get().stack): Promise<void> {
  const { from, to } = presetRange(preset, new Date());
  $usage.set({ ...$usage.get(), status: "loading", preset, stack, from, to });
  const current = () => $usage.get().preset === preset && $usage.get().stack === stack;
  try {
    const totalsBy = (groupBy: string) =>
      apiRequest(`/v1/usage?${query(from, to)}&group_by=${groupBy}`, "usageSchema", { auth: true });
    const [daily, byKey, byMember, byFeature] = await Promise.all([
      totalsBy(`day,${stack}`),
      totalsBy("api_key"),
      totalsBy("member"),
      stack === "member" ? totalsBy("feature") : undefined,
    ]);
    // A later choice of period or stacking wins over an earlier one still answering.
    if (!current()) return;
    $usage.set({
      status: "ready",
      preset,
      stack,
      from,
      to,
      daily: daily.data,
      byKey: byKey.data,
      byMember: byMember.data,
      byFeature: byFeature?.data ?? [],
      total: daily.total,
    });
  } catch {
    if (current()) $usage.set({ ...$usage.get(), status: "failed" });
  }
}

/** The period's charges as a CSV file the browser saves. Throws ApiError on failure. */
export async function downloadUsageCsv(): Promise<void> {
  const { from, to } = $usage.get();
  await saveDownload(`/v1/usage.csv?${query(from, to)}`, `usage-${from}-to-${to}.csv`);
}
