// Small statistics over repeated runs.

function sorted(values: readonly number[], what: string): number[] {
  if (values.length === 0) throw new Error(`${what} of no values`);
  return [...values].sort((a, b) => a - b);
}

export function median(values: readonly number[]): number {
  const s = sorted(values, "median");
  const mid = Math.floor(s.length / 2);
  const upper = s[mid] ?? Number.NaN;
  return s.length % 2 === 1 ? upper : ((s[mid - 1] ?? Number.NaN) + upper) / 2;
}

export function min(values: readonly number[]): number {
  return sorted(values, "min")[0] ?? Number.NaN;
}

export function max(values: readonly number[]): number {
  const s = sorted(values, "max");
  return s[s.length - 1] ?? Number.NaN;
}

/** The nearest-rank percentile (`p` from 0 to 100): the smallest value at least p % of the values do not exceed. */
export function percentile(values: readonly number[], p: number): number {
  const s = sorted(values, `p${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[rank - 1] ?? Number.NaN;
}
