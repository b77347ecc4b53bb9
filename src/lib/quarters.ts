// The quarters the VAT report page offers: the current Berlin quarter and the ones before it.

const BERLIN_YEAR_MONTH = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Europe/Berlin",
  year: "numeric",
  month: "numeric",
});

/** The Berlin quarter of `now` and the `count - 1` before it, newest first ("2026-Q4", "2026-Q3", …). */
export function recentQuarters(now: Date, count: number): string[] {
  const parts = BERLIN_YEAR_MONTH.formatToParts(now);
  const year = Number(parts.find((p) => p.type === "year")?.value);
  const month = Number(parts.find((p) => p.type === "month")?.value);
  let index = year * 4 + Math.floor((month - 1) / 3);
  const quarters: string[] = [];
  for (let i = 0; i < count; i++, index--) quarters.push(`${Math.floor(index / 4)}-Q${(index % 4) + 1}`);
  return quarters;
}
