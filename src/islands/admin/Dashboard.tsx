// /admin (admins): the last 30 days of the business and where it stands now. Two charts (the
// usage page's Chart.js bar chart, loaded on demand), each with the same numbers as a table.
import { useStore } from "@nanostores/react";
import { lazy, Suspense, useEffect, useMemo } from "react";
import type { MetricsView } from "../../../contract/admin.ts";
import { formatMoney } from "../../../contract/money.ts";
import { formatBalance } from "../../lib/account-view.ts";
import { DASHBOARD_TEXT } from "../../lib/admin-dashboard-text.ts";
import { USAGE_TEXT } from "../../lib/usage-text.ts";
import { colourOf, type DailyUsage, dailyUsage } from "../../lib/usage-view.ts";
import { $metrics, loadMetrics } from "../../stores/admin.ts";
import { initSession } from "../../stores/auth.ts";
import { DailyTable, UsageLegend } from "../usage/UsageParts.tsx";
import { Section, Table } from "./ConsoleTable.tsx";
import { StaffGuard } from "./StaffGuard.tsx";
import { ADMINS } from "./staff.ts";

const UsageChart = lazy(() => import("../usage/UsageChart.tsx"));
if (typeof document !== "undefined") void initSession();

const T = DASHBOARD_TEXT;
const COUNTS = ["signups", "verified_signups", "new_paying_customers", "churned"] as const;
const countName = (id: string | null) => T.series[(id ?? "signups") as (typeof COUNTS)[number]] ?? String(id);

/** The daily counts as the chart's series, one per count, over every day of the range. */
function dailyCounts(metrics: MetricsView): DailyUsage {
  return {
    days: metrics.days.map((d) => d.date),
    series: COUNTS.map((count) => {
      const values = metrics.days.map((d) => d[count]);
      const total = values.reduce((a, b) => a + b, 0);
      return { feature: count, credits: values, total, uses: total };
    }),
  };
}

function Figure({ label, value, data }: { label: string; value: string; data: string }) {
  return (
    <div className="rounded-box border border-base-300 p-4">
      <dt className="text-sm text-base-content/70">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums" data-figure={data}>
        {value}
      </dd>
    </div>
  );
}

function Now({ metrics }: { metrics: MetricsView }) {
  const now = metrics.now;
  const payers = now.paying_customers.reduce((sum, t) => sum + t.customers, 0);
  const mrr = now.mrr.map((m) => formatMoney(m.net, m.currency)).join(" + ") || formatMoney(0, "eur");
  return (
    <>
      <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Figure label={T.payingCustomers} value={String(payers)} data="paying" />
        <Figure label={T.mrr} value={mrr} data="mrr" />
        <Figure label={T.failedRenewals} value={String(now.open_failed_renewals)} data="failed-renewals" />
        <Figure label={T.disputes} value={String(now.open_disputes)} data="disputes" />
      </dl>
      {now.paying_customers.length === 0 ? (
        <p className="text-sm text-base-content/70">{T.noPayers}</p>
      ) : (
        <Table caption={T.perTier} head={[T.perTier, T.payingCustomers]} numeric={[1]}>
          {now.paying_customers.map((t) => (
            <tr key={t.tier}>
              <td>{t.tier}</td>
              <td className="text-right tabular-nums">{t.customers}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

function DailyCounts({ metrics }: { metrics: MetricsView }) {
  const usage = useMemo(() => dailyCounts(metrics), [metrics]);
  return (
    <div>
      <Suspense fallback={<div className="h-64 sm:h-80" />}>
        <UsageChart usage={usage} label={T.daily} manual="" seriesName={countName} stacked={false} whole />
      </Suspense>
      <ul className="mt-2 flex flex-wrap justify-center gap-x-4 gap-y-1 text-xs">
        {COUNTS.map((c, i) => (
          <li key={c} className="flex items-center gap-1.5">
            <span
              className="inline-block size-3 rounded-sm"
              style={{ backgroundColor: colourOf(i) }}
              aria-hidden="true"
            />
            {T.series[c]}
          </li>
        ))}
      </ul>
      <details className="mt-3" data-daily-table>
        <summary className="cursor-pointer text-sm font-medium">{T.dailyTable}</summary>
        <div className="mt-2">
          <Table caption={T.daily} head={[T.day, ...COUNTS.map((c) => T.series[c])]} numeric={[1, 2, 3, 4]}>
            {metrics.days.map((d) => (
              <tr key={d.date}>
                <td className="tabular-nums">{d.date}</td>
                {COUNTS.map((c) => (
                  <td key={c} className="text-right tabular-nums">
                    {d[c]}
                  </td>
                ))}
              </tr>
            ))}
          </Table>
        </div>
      </details>
    </div>
  );
}

function Credits({ metrics }: { metrics: MetricsView }) {
  const usage = useMemo(
    () =>
      dailyUsage(
        metrics.credits_per_feature.map((r) => ({
          date: r.date,
          feature: r.feature,
          credits: r.credits,
          uses: 0,
        })),
        metrics.from,
        metrics.to,
      ),
    [metrics],
  );
  if (metrics.credits_per_feature.length === 0)
    return <p className="text-sm text-base-content/70">{T.noCredits}</p>;
  return (
    <div>
      <Suspense fallback={<div className="h-64 sm:h-80" />}>
        <UsageChart usage={usage} label={T.credits} manual={USAGE_TEXT.manual} />
      </Suspense>
      <UsageLegend usage={usage} />
      <DailyTable usage={usage} />
    </div>
  );
}

function Revenue({ metrics }: { metrics: MetricsView }) {
  if (metrics.months.length === 0) return <p className="text-sm text-base-content/70">{T.noRevenue}</p>;
  const C = T.columns;
  return (
    <Table caption={T.revenue} head={[C.month, C.net, C.vat, C.gross, C.refunds]} numeric={[1, 2, 3, 4]}>
      {metrics.months.map((m) => (
        <tr key={`${m.month}-${m.currency}`} data-revenue-month={m.month}>
          <td className="tabular-nums">{m.month}</td>
          <td className="text-right tabular-nums">{formatMoney(m.net, m.currency)}</td>
          <td className="text-right tabular-nums">{formatMoney(m.vat, m.currency)}</td>
          <td className="text-right tabular-nums">{formatMoney(m.gross, m.currency)}</td>
          <td className="text-right tabular-nums">
            {m.refunds ? `−${formatMoney(m.refunds, m.currency)}` : "—"}
          </td>
        </tr>
      ))}
    </Table>
  );
}

function DashboardView() {
  const state = useStore($metrics);
  useEffect(() => {
    void loadMetrics();
  }, []);
  const metrics = state.metrics;
  if (state.status === "failed") {
    return (
      <p role="alert" className="alert alert-error">
        {T.failed}
      </p>
    );
  }
  if (!metrics) {
    return (
      <p role="status" className="flex items-center gap-2">
        <span className="loading loading-spinner" aria-hidden="true" />
        {T.loading}
      </p>
    );
  }
  const total = metrics.credits_per_feature.reduce((sum, r) => sum + r.credits, 0);
  return (
    <div className="flex flex-col gap-10" data-dashboard data-status={state.status}>
      <Section id="dash-now" title={T.now}>
        <Now metrics={metrics} />
      </Section>
      <Section id="dash-daily" title={T.daily}>
        <DailyCounts metrics={metrics} />
      </Section>
      <Section
        id="dash-credits"
        title={T.credits}
        aside={<p className="text-sm tabular-nums">{formatBalance(total)} credits</p>}
      >
        <Credits metrics={metrics} />
      </Section>
      <Section id="dash-revenue" title={T.revenue}>
        <Revenue metrics={metrics} />
      </Section>
    </div>
  );
}

export default function Dashboard() {
  return (
    <StaffGuard allowedRoles={ADMINS} loadingMessage={T.loading}>
      {() => <DashboardView />}
    </StaffGuard>
  );
}
