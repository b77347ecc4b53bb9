// The bar chart of a range of Berlin days: credits per day and feature, stacked (/profile/usage, the
// console), or the console's daily counts side by side. Chart.js draws it on a canvas, so this module
// (and Chart.js with it) loads only where a chart is shown, once there are numbers to draw; a table
// beside it says the same for screen readers. Colours follow the light or dark theme.
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from "chart.js";
import { useEffect, useRef } from "react";
import { colourOf, type DailyUsage, featureLabel } from "../../lib/usage-view.ts";

// The legend is UsageLegend (Usage.tsx), a list under the canvas, rather than Chart.js's Legend
// plugin: it wraps like text on a phone, reads as text, is on screen before this chunk has loaded
// (nothing moves when the chart comes), and keeps this chunk within the page's budget.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

const DARK = "(prefers-color-scheme: dark)";

/** The theme's text and grid colours (daisyUI's base-content variable). */
function themeColours() {
  const text = getComputedStyle(document.documentElement).getPropertyValue("--color-base-content").trim();
  const dark = window.matchMedia(DARK).matches;
  return {
    text: text || (dark ? "#e5e7eb" : "#1f2937"),
    grid: dark ? "rgba(255,255,255,0.12)" : "rgba(0,0,0,0.08)",
  };
}

interface Props {
  usage: DailyUsage;
  /** What the chart shows, for the canvas's accessible name. */
  label: string;
  /** The name of charges without a feature. */
  manual: string;
  /** A series' name when its ids are not feature ids (the console's daily counts). */
  seriesName?: ((id: string | null) => string) | undefined;
  /** Bars stacked per day (parts of one total), or side by side (counts that overlap). Default: stacked. */
  stacked?: boolean | undefined;
  /** The values are whole things (people, accounts): the y-axis marks whole numbers only, never 0.5. */
  whole?: boolean | undefined;
}

export default function UsageChart({ usage, label, manual, seriesName, stacked = true, whole }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const target = canvas.current;
    if (!target) return;
    const colours = themeColours();
    const chart = new Chart(target, {
      type: "bar",
      data: {
        labels: usage.days.map((day) => day.slice(5)),
        datasets: usage.series.map((series, i) => ({
          label: seriesName ? seriesName(series.feature) : featureLabel(series.feature, manual),
          data: series.credits,
          backgroundColor: colourOf(i),
          borderWidth: 0,
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: {
          x: { stacked, ticks: { maxRotation: 0, autoSkip: true }, grid: { display: false } },
          y: { stacked, beginAtZero: true, ...(whole ? { ticks: { precision: 0 } } : {}) },
        },
        plugins: {
          tooltip: { mode: "index", intersect: false },
        },
      },
    });
    /** Paints text and grid in the current theme's colours. */
    const paint = ({ text, grid }: { text: string; grid: string }) => {
      const { scales } = chart.options;
      chart.options.color = text;
      if (scales?.x?.ticks) scales.x.ticks.color = text;
      if (scales?.y?.ticks) scales.y.ticks.color = text;
      if (scales?.y?.grid) scales.y.grid.color = grid;
      chart.update();
      // The y-axis's marks as drawn, readable without the canvas (the console's tests check them).
      target.dataset.yTicks = chart.scales.y?.ticks.map((tick) => tick.value).join(" ") ?? "";
    };
    paint(colours);
    // The theme follows the system: repaint when it changes.
    const media = window.matchMedia(DARK);
    const repaint = () => paint(themeColours());
    media.addEventListener("change", repaint);
    return () => {
      media.removeEventListener("change", repaint);
      chart.destroy();
    };
  }, [usage, manual, seriesName, stacked, whole]);
  return (
    <div className="relative h-64 w-full sm:h-80">
      <canvas ref={canvas} role="img" aria-label={label} data-usage-chart />
    </div>
  );
}
