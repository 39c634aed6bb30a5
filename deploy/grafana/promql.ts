// PromQL building blocks for the dashboard and the recording rules. Runs in Node (the generators).
// They are label selectors over the cell tags and the aggregations that stay correct across several k6 runners.

import { CELL_TAGS, SAMPLE_TAGS, type CellTag } from '../../lib/metrics';
import type { MetricDefinition } from '../../lib/metric-definition';
import { trendSeries, type RwTrendStat } from './remote-write';

/** The tag `k6 run --tag testid=...` puts on every sample; the dashboard filters on it first. */
export const TESTID_TAG = 'testid';

/** Cell tags offered as dashboard filters, in the order of the variable bar. */
export const FILTER_TAGS: readonly CellTag[] = ['cell', 'use_case', 'context', 'concurrency'];

/** Labels a per-cell aggregation keeps: testid plus every cell tag (lib/metrics.ts CELL_TAGS). */
export const CELL_LABELS: readonly string[] = [TESTID_TAG, ...CELL_TAGS];

/** Grafana's range variables: the rate window and the whole dashboard range. */
export const RATE_WINDOW = '$__rate_interval';
export const WHOLE_RANGE = '$__range';

export interface Matcher {
  readonly label: string;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
}

/** `{a=~"x",b="y"}`; label values are quoted with JSON escaping, which PromQL accepts. */
export function selector(matchers: readonly Matcher[]): string {
  return `{${matchers.map((m) => `${m.label}${m.op}${JSON.stringify(m.value)}`).join(', ')}}`;
}

/** Matches the dashboard's testid variable only (run-wide series such as k6_vus and the monitor gauges). */
export function testidMatchers(): Matcher[] {
  return [{ label: TESTID_TAG, op: '=~', value: `$${TESTID_TAG}` }];
}

/**
 * Matches the testid variable and every cell-tag variable. `overrides` pins a tag to a value (the
 * use-case panels pin use_case) instead of its variable.
 */
export function cellMatchers(overrides: Partial<Record<CellTag, string>> = {}, measuredOnly = true): Matcher[] {
  const out = testidMatchers();
  for (const tag of FILTER_TAGS) {
    const pinned = overrides[tag];
    out.push(pinned === undefined
      ? { label: tag, op: '=~', value: `$${tag}` }
      : { label: tag, op: '=', value: pinned });
  }
  // Capacity steps' warm-up and transition requests are their own series (label phase): left out of
  // statistics, as the report leaves them out (series without the label match too). Counts of all
  // the work done (`measuredOnly` false) keep them.
  if (measuredOnly) out.push(MEASURED_ONLY);
  return out;
}

/** Matches request series that enter statistics: phase absent or `measured` (lib/drive.ts). */
export const MEASURED_ONLY: Matcher = { label: SAMPLE_TAGS.phase, op: '!~', value: 'warmup|transition' };

/** `metric{matchers}`. */
export function series(name: string, matchers: readonly Matcher[]): string {
  return `${name}${selector(matchers)}`;
}

/** `last_over_time(x[$__range])`: the final value of a cumulative series over the dashboard range (tables). */
export function lastOverRange(expr: string): string {
  return `last_over_time(${expr}[${WHOLE_RANGE}])`;
}

/** How one series is read: as it goes (time series) or its final value in the range (tables, stats). */
export type Read = 'live' | 'final';

function read(expr: string, how: Read): string {
  return how === 'final' ? lastOverRange(expr) : expr;
}

/**
 * A percentile across runners. k6 sends each runner's own percentile; they cannot be merged, but the
 * merged q-quantile lies between the smallest and the largest runner's. So `max` is an upper bound
 * (the cautious side for latencies) and `min` a lower bound (the cautious side for speeds). With one
 * runner both are exact.
 */
export function trendPercentile(
  def: MetricDefinition, stat: RwTrendStat, matchers: readonly Matcher[], by: readonly string[], how: Read,
): string {
  const agg = def.unit === 'tokens/s' ? 'min' : 'max';
  return `${agg} by (${by.join(', ')}) (${read(series(trendSeries(def, stat), matchers), how)})`;
}

/**
 * The mean across runners, weighted by each runner's sample count: sum(avg * count) / sum(count).
 * Exact. For time Trends k6 scales count by 1/1000 like every other stat; the factor cancels here.
 */
export function trendMean(
  def: MetricDefinition, matchers: readonly Matcher[], by: readonly string[], how: Read,
): string {
  const avg = read(series(trendSeries(def, 'avg'), matchers), how);
  const count = read(series(trendSeries(def, 'count'), matchers), how);
  const grouping = `by (${by.join(', ')})`;
  return `sum ${grouping} (${avg} * ${count}) / sum ${grouping} (${count})`;
}

/** Per-second increase of a cumulative series, summed by the given labels (none: one total). */
export function ratePerSecond(name: string, matchers: readonly Matcher[], by: readonly string[] = []): string {
  const grouping = by.length > 0 ? ` by (${by.join(', ')})` : '';
  return `sum${grouping} (rate(${series(name, matchers)}[${RATE_WINDOW}]))`;
}

/** The fixed window of perSecondOverMinute, in seconds and as a PromQL duration. */
export const MINUTE_SECONDS = 60;

/**
 * Per-second increase of a k6 counter over the last minute, counting a series' first value:
 * `(x - (x offset 1m or x * 0)) / 60`. rate() cannot do that for k6's counters: remote write pushes a
 * series only when it received samples since the previous push, so two errors at one moment arrive
 * as one sample (value 2) and rate() of a lone sample is empty, and the first push's increase from 0
 * is always lost. k6 counters never reset within a run, so the difference is exact. The result
 * stays at the increase for one minute after a sample and drops to 0 after it (while the series is
 * visible: 5 minutes after its last push without stale markers).
 */
export function perSecondOverMinute(name: string, matchers: readonly Matcher[], by: readonly string[] = []): string {
  const grouping = by.length > 0 ? ` by (${by.join(', ')})` : '';
  const x = series(name, matchers);
  return `sum${grouping} (${x} - (${x} offset ${MINUTE_SECONDS}s or ${x} * 0)) / ${MINUTE_SECONDS}`;
}

/**
 * The total of a cumulative series over the dashboard range. k6 counters count from test start and
 * each runner sends its own series, so the total is the sum of each series' maximum (exact, and
 * unlike increase() it keeps a series' first sample).
 */
export function totalOverRange(name: string, matchers: readonly Matcher[], by: readonly string[] = []): string {
  const grouping = by.length > 0 ? ` by (${by.join(', ')})` : '';
  return `sum${grouping} (max_over_time(${series(name, matchers)}[${WHOLE_RANGE}]))`;
}

/**
 * `a or (b * 0)`: fills groups that `a` lacks (a cell without errors has no error series) with zeros shaped like `b`.
 */
export function orZerosLike(a: string, b: string): string {
  return `(${a} or (${b} * 0))`;
}

/** Native histogram quantile by the given labels over the rate window. */
export function histogramQuantile(
  q: number, name: string, matchers: readonly Matcher[], by: readonly string[],
): string {
  return `histogram_quantile(${q}, sum by (${by.join(', ')}) (rate(${series(name, matchers)}[${RATE_WINDOW}])))`;
}
