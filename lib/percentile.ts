// k6's percentile of a Trend (its sink's definition), so the report's percentiles equal k6's summary.
// Runs in k6 and Node (pure).

/**
 * k6's TrendSink.P: over the first `count` values of an ascending array, i = p x (count - 1) and the
 * value is v[floor(i)] + (v[ceil(i)] - v[floor(i)]) x frac(i) (linear interpolation between the
 * closest ranks); p in 0..1; 0 for no values, as k6 reports an empty Trend.
 */
export function k6Percentile(sorted: ArrayLike<number>, count: number, p: number): number {
  if (count === 0) return 0;
  if (count === 1) return sorted[0]!;
  const i = p * (count - 1);
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (i - lo);
}

/** The median of values in any order: k6's p(50), NaN for no values (no value has no median). */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return k6Percentile(sorted, sorted.length, 0.5);
}
