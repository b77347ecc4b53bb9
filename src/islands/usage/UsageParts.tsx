// The parts of the usage chart that are text: its legend, and the same numbers as a table (the
// chart's alternative for screen readers and for reading exact figures). /profile/usage and the
// console's customer page both show them under the chart.
import { formatBalance } from "../../lib/account-view.ts";
import { USAGE_TEXT } from "../../lib/usage-text.ts";
import { colourOf, type DailyUsage, featureLabel } from "../../lib/usage-view.ts";

const T = USAGE_TEXT;

/** A series' name when its ids are not feature ids (members, the console's daily counts). */
type SeriesName = ((id: string | null) => string) | undefined;

const nameOf = (seriesName: SeriesName, id: string | null) =>
  seriesName ? seriesName(id) : featureLabel(id, T.manual);

export function UsageLegend({ usage, seriesName }: { usage: DailyUsage; seriesName?: SeriesName }) {
  return (
    <ul className="mt-2 flex flex-wrap justify-center gap-x-4 gap-y-1 text-xs" data-usage-legend>
      {usage.series.map((series, i) => (
        <li key={series.feature ?? "manual"} className="flex items-center gap-1.5">
          <span
            className="inline-block size-3 rounded-sm"
            style={{ backgroundColor: colourOf(i) }}
            aria-hidden="true"
          />
          {nameOf(seriesName, series.feature)}
        </li>
      ))}
    </ul>
  );
}

export function DailyTable({ usage, seriesName }: { usage: DailyUsage; seriesName?: SeriesName }) {
  const days = usage.days.filter((_, i) => usage.series.some((s) => (s.credits[i] ?? 0) > 0));
  return (
    <details className="mt-3" data-usage-table>
      <summary className="cursor-pointer text-sm font-medium">{T.tableToggle}</summary>
      <div className="mt-2 overflow-x-auto">
        <table className="table table-sm">
          <caption className="sr-only">{T.tableCaption}</caption>
          <thead>
            <tr>
              <th scope="col">{T.day}</th>
              {usage.series.map((s) => (
                <th key={s.feature ?? "manual"} scope="col" className="text-right">
                  {nameOf(seriesName, s.feature)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => {
              const i = usage.days.indexOf(day);
              return (
                <tr key={day}>
                  <th scope="row" className="font-normal tabular-nums">
                    {day}
                  </th>
                  {usage.series.map((s) => (
                    <td key={s.feature ?? "manual"} className="text-right tabular-nums">
                      {formatBalance(s.credits[i] ?? 0)}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </details>
  );
}
