// /profile/usage: the chosen period and what the usage API says about it (charges per day and
// feature for the chart and its table, and per API key for the key totals).
import { atom } from "nanostores";
import type { UsageRow } from "../../contract/usage.ts";
import { apiRequest, saveDownload } from "../lib/api-client.ts";
import { presetRange, type UsagePreset } from "../lib/usage-view.ts";

export interface UsageState {
  status: "loading" | "ready" | "failed";
  preset: UsagePreset;
  from: string;
  to: string;
  /** group_by=day,feature */
  daily: readonly UsageRow[];
  /** group_by=api_key */
  byKey: readonly UsageRow[];
  total: { uses: number; credits: number };
}

const initial = presetRange("days30", new Date());
export const $usage = atom<UsageState>({
  status: "loading",
  preset: "days30",
  ...initial,
  daily: [],
  byKey: [],
  total: { uses: 0, credits: 0 },
});

const query = (from: string, to: string) => `from=${from}&to=${to}`;

/** Loads the period of `preset` (ending today in Berlin); a failure keeps what is shown and says so. */
export async function loadUsage(preset: UsagePreset): Promise<void> {
  const { from, to } = presetRange(preset, new Date());
  $usage.set({ ...$usage.get(), status: "loading", preset, from, to });
  try {
    const [daily, byKey] = await Promise.all([
      apiRequest(`/v1/usage?${query(from, to)}&group_by=day,feature`, "usageSchema", { auth: true }),
      apiRequest(`/v1/usage?${query(from, to)}&group_by=api_key`, "usageSchema", { auth: true }),
    ]);
    // A later choice of period wins over an earlier one still answering.
    if ($usage.get().preset !== preset) return;
    $usage.set({
      status: "ready",
      preset,
      from,
      to,
      daily: daily.data,
      byKey: byKey.data,
      total: daily.total,
    });
  } catch {
    if ($usage.get().preset === preset) $usage.set({ ...$usage.get(), status: "failed" });
  }
}

/** The period's charges as a CSV file the browser saves. Throws ApiError on failure. */
export async function downloadUsageCsv(): Promise<void> {
  const { from, to } = $usage.get();
  await saveDownload(`/v1/usage.csv?${query(from, to)}`, `usage-${from}-to-${to}.csv`);
}
