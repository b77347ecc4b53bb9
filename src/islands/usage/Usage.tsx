// /profile/usage (guarded like /profile): credits used per day, stacked by feature (or, for a team
// organisation, by member), over a chosen period; the same numbers as a table; totals by feature,
// by API key and (a team organisation) by member; the period's charges as CSV. The answers live in
// the $usage store; the chart loads on demand (UsageChart.tsx).
import { useStore } from "@nanostores/react";
import { lazy, Suspense, useEffect, useMemo, useState } from "react";
import { makesKeys } from "../../../contract/account-area.ts";
import type { UsageRow } from "../../../contract/usage.ts";
import { formatBalance } from "../../lib/account-view.ts";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { readStoredToken } from "../../lib/auth-storage.ts";
import { USAGE_TEXT } from "../../lib/usage-text.ts";
import {
  dailyUsage,
  featureLabel,
  memberSeriesKey,
  memberSeriesNames,
  USAGE_PRESETS,
  type UsagePreset,
  type UsageStack,
} from "../../lib/usage-view.ts";
import { $user, initSession } from "../../stores/auth.ts";
import { notify } from "../../stores/toast.ts";
import { $usage, downloadUsageCsv, loadUsage } from "../../stores/usage.ts";
import { RouteGuard } from "../auth/RouteGuard.tsx";
import { DailyTable, UsageLegend } from "./UsageParts.tsx";

// The numbers and the chart are this page's content: as soon as the module runs in the browser, before
// React hydrates and the guard has the session, ask for the session, the usage and the chart's code
// at once rather than one after the other (the chart is the page's largest paint).
const inBrowser = typeof document !== "undefined";
const chartModule = inBrowser ? import("./UsageChart.tsx") : undefined;
const UsageChart = lazy(() => chartModule ?? import("./UsageChart.tsx"));
let firstLoad: Promise<void> | undefined;
if (inBrowser) {
  void initSession();
  // Without a stored token the guard sends the visitor away: nothing to ask for.
  if (readStoredToken()) firstLoad = loadUsage($usage.get().preset);
}

const T = USAGE_TEXT;

function PeriodPicker({ preset, busy }: { preset: UsagePreset; busy: boolean }) {
  return (
    <fieldset className="join" aria-busy={busy}>
      <legend className="sr-only">{T.rangeLabel}</legend>
      {USAGE_PRESETS.map((choice) => (
        <input
          key={choice}
          type="radio"
          name="usage-period"
          className="btn btn-sm join-item"
          aria-label={T.presets[choice]}
          checked={preset === choice}
          onChange={() => void loadUsage(choice)}
        />
      ))}
    </fieldset>
  );
}

const STACKS: readonly UsageStack[] = ["feature", "member"];

/** A team organisation's choice of what the chart stacks (a personal one has one member). */
function StackPicker({ stack, preset, busy }: { stack: UsageStack; preset: UsagePreset; busy: boolean }) {
  return (
    <fieldset className="join" aria-busy={busy} data-usage-stack>
      <legend className="sr-only">{T.stackLabel}</legend>
      {STACKS.map((choice) => (
        <input
          key={choice}
          type="radio"
          name="usage-stack"
          className="btn btn-sm join-item"
          aria-label={T.stacks[choice]}
          checked={stack === choice}
          onChange={() => void loadUsage(preset, choice)}
        />
      ))}
    </fieldset>
  );
}

interface TotalRow {
  key: string;
  name: React.ReactNode;
  uses: number;
  credits: number;
}

function TotalsTable({
  title,
  head,
  rows,
  id,
}: {
  title: string;
  head: string;
  rows: TotalRow[];
  id: string;
}) {
  return (
    <section aria-labelledby={id} className="min-w-0" data-usage-totals={id}>
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      <div className="mt-2 overflow-x-auto">
        <table className="table table-sm">
          <thead>
            <tr>
              <th scope="col">{head}</th>
              <th scope="col" className="text-right">
                {T.uses}
              </th>
              <th scope="col" className="text-right">
                {T.credits}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <th scope="row" className="font-normal">
                  {row.name}
                </th>
                <td className="text-right tabular-nums">{formatBalance(row.uses)}</td>
                <td className="text-right tabular-nums">{formatBalance(row.credits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function keyName(row: UsageRow): React.ReactNode {
  if (!row.api_key_id) return T.noKey;
  return (
    <>
      {row.api_key_name ?? row.api_key_id}{" "}
      <span className="font-mono text-xs text-base-content/70">{row.api_key_prefix}…</span>
    </>
  );
}

function DownloadButton() {
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      await downloadUsageCsv();
    } catch {
      notify("error", T.downloadFailed);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="btn btn-outline btn-sm" onClick={() => void download()} disabled={busy}>
      {busy ? T.downloading : T.download}
    </button>
  );
}

function UsageView() {
  const state = useStore($usage);
  const { user } = useStore($user);
  // The member grouping is offered for a team organisation only.
  const team = user?.organization?.personal === false;
  const stack: UsageStack = team ? state.stack : "feature";
  // biome-ignore lint/correctness/useExhaustiveDependencies: the first period is loaded once, on arrival.
  useEffect(() => {
    if (!firstLoad) void loadUsage(state.preset);
  }, []);
  const byMemberStack = stack === "member" && state.stack === "member";
  const usage = useMemo(
    () => dailyUsage(state.daily, state.from, state.to, byMemberStack ? memberSeriesKey : undefined),
    [state.daily, state.from, state.to, byMemberStack],
  );
  const memberNames = useMemo(
    () => memberSeriesNames([...state.byMember, ...state.daily]),
    [state.byMember, state.daily],
  );
  const seriesName = useMemo(
    () => (byMemberStack ? (id: string | null) => memberNames.get(id ?? "") ?? T.member : undefined),
    [byMemberStack, memberNames],
  );
  const byFeatureRows: TotalRow[] = byMemberStack
    ? [...state.byFeature]
        .sort((a, b) => b.credits - a.credits)
        .map((row) => ({
          key: row.feature ?? "manual",
          name: featureLabel(row.feature, T.manual),
          uses: row.uses,
          credits: row.credits,
        }))
    : usage.series.map((s) => ({
        key: s.feature ?? "manual",
        name: featureLabel(s.feature, T.manual),
        uses: s.uses,
        credits: s.total,
      }));
  const empty = state.status === "ready" && state.total.uses === 0;
  return (
    <div className="flex flex-col gap-8" data-usage data-status={state.status}>
      {/* Everything that is there before the numbers stays where it is when they come (no layout shift). */}
      <div className="flex flex-col gap-2">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <PeriodPicker preset={state.preset} busy={state.status === "loading"} />
          <div className="flex items-center gap-3">
            <p className="text-sm text-base-content/80 tabular-nums" data-usage-period>
              {state.from} – {state.to}
            </p>
            {!empty && state.status === "ready" && <DownloadButton />}
          </div>
        </div>
        <p className="text-xs text-base-content/70">{T.zoneNote}</p>
      </div>
      {state.status === "failed" && (
        <div role="alert" className="alert alert-error">
          <span>{T.loadFailed}</span>
          <button type="button" className="btn btn-sm" onClick={() => void loadUsage(state.preset)}>
            {T.retry}
          </button>
        </div>
      )}
      {state.status === "loading" && state.daily.length === 0 && (
        <p role="status" className="flex items-center gap-2 text-sm">
          <span className="loading loading-spinner" aria-hidden="true" />
          {T.loading}
        </p>
      )}
      {empty && (
        <div className="rounded-box border border-dashed border-base-300 p-6 text-center" data-usage-empty>
          <h2 className="text-lg font-semibold">{T.emptyTitle}</h2>
          <p className="mt-2 text-sm text-base-content/80">{team ? T.emptyBodyTeam : T.emptyBody}</p>
          {/* A billing member sees the organisation's usage but makes no keys of their own. */}
          {user && makesKeys(user.organization) && (
            <a href="/profile/api-keys" className="btn btn-primary btn-sm mt-4">
              {API_KEYS_TEXT.create}
            </a>
          )}
        </div>
      )}
      {!empty && state.daily.length > 0 && (
        <>
          <section aria-labelledby="usage-chart">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h2 id="usage-chart" className="text-lg font-semibold">
                {T.chartTitle}
              </h2>
              {team && (
                <StackPicker stack={state.stack} preset={state.preset} busy={state.status === "loading"} />
              )}
              <p className="text-sm tabular-nums" data-usage-total>
                {T.total}: {formatBalance(state.total.credits)} {T.credits.toLowerCase()},{" "}
                {T.usesTotal(state.total.uses, formatBalance(state.total.uses))}
              </p>
            </div>
            <Suspense fallback={<div className="h-64 sm:h-80" />}>
              <UsageChart
                usage={usage}
                label={T.chartLabel(state.from, state.to, byMemberStack ? "member" : "feature")}
                manual={T.manual}
                seriesName={seriesName}
              />
            </Suspense>
            <UsageLegend usage={usage} seriesName={seriesName} />
            <DailyTable usage={usage} seriesName={seriesName} />
          </section>
          <div className="grid gap-8 md:grid-cols-2">
            <TotalsTable id="usage-by-feature" title={T.byFeature} head={T.feature} rows={byFeatureRows} />
            <TotalsTable
              id="usage-by-key"
              title={T.byKey}
              head={T.key}
              rows={state.byKey.map((row) => ({
                key: row.api_key_id ?? "none",
                name: keyName(row),
                uses: row.uses,
                credits: row.credits,
              }))}
            />
            {team && (
              <TotalsTable
                id="usage-by-member"
                title={T.byMember}
                head={T.member}
                rows={state.byMember.map((row) => ({
                  key: memberSeriesKey(row),
                  name: memberNames.get(memberSeriesKey(row)) ?? T.member,
                  uses: row.uses,
                  credits: row.credits,
                }))}
              />
            )}
          </div>
        </>
      )}
    </div>
  );
}

export default function Usage() {
  return <RouteGuard loadingMessage="Loading your usage…">{() => <UsageView />}</RouteGuard>;
}
