// How k6's remote-write output names and scales the suite's metrics. Runs in Node (the dashboard generator).
// The output is experimental-prometheus-rw; from these rules the dashboard and the recording rules derive every series
// name from lib/metrics.ts.
//
// The rules (grafana/k6 internal/output/prometheusrw/remotewrite, docs/design/k6-observed.md, "Outputs"):
// - every series is prefixed `k6_`;
// - Counter -> `k6_<name>_total` (cumulative from test start);
// - Rate    -> `k6_<name>_rate`, the *ratio* of non-zero samples of that tag set (not a count);
// - Gauge   -> `k6_<name>` (last value; our gauges are not isTime, so no unit suffix);
// - Trend   -> one gauge per stat of K6_PROMETHEUS_RW_TREND_STATS, `k6_<name>_<stat>` with `p(99)` -> `p99`
//   and `p(99.9)` -> `p999`; cumulative from test start. For a time Trend (isTime) every stat is divided
//   by 1000 (ms -> s) with no unit suffix: that includes `count` (grafana/k6 issue #4582), so the count of a
//   time Trend is only usable as a weight, never as a number of requests;
// - Trend with K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true -> one native histogram,
//   `k6_<name>_seconds` for time Trends (observed in seconds), `k6_<name>` otherwise.
// Indexable tags become labels (cell, context, use_case, ..., testid, scenario, instance_id); vu and iter do not.

import type { MetricDefinition } from '../../lib/metric-definition';

/** Trend statistics the dashboard expects k6 to send: the value of K6_PROMETHEUS_RW_TREND_STATS. */
export const RW_TREND_STATS = ['p(50)', 'p(90)', 'p(95)', 'p(99)', 'avg', 'max', 'count'] as const;
export type RwTrendStat = (typeof RW_TREND_STATS)[number];

/** The environment value to run k6 with, e.g. K6_PROMETHEUS_RW_TREND_STATS="p(50),...,count". */
export const RW_TREND_STATS_ENV = RW_TREND_STATS.join(',');

/** The prefix k6 puts on every remote-written series. */
export const RW_PREFIX = 'k6_';

/** The series-name suffix of a trend stat: 'p(99)' -> 'p99', 'p(99.9)' -> 'p999', 'avg' -> 'avg'. */
export function statSuffix(stat: string): string {
  const m = /^p\((\d+(?:\.\d+)?)\)$/.exec(stat);
  return m ? `p${m[1]!.replace('.', '')}` : stat;
}

function expectKind(def: MetricDefinition, kind: MetricDefinition['kind']): void {
  if (def.kind !== kind) {
    throw new Error(`${def.name} is a ${def.kind}, not a ${kind}: use the series function for its kind`);
  }
}

/** `k6_<name>_<stat>` for a Trend sent as gauges; in seconds when def.isTime. */
export function trendSeries(def: MetricDefinition, stat: RwTrendStat): string {
  expectKind(def, 'trend');
  return `${RW_PREFIX}${def.name}_${statSuffix(stat)}`;
}

/** `k6_<name>_total` for a Counter. */
export function counterSeries(def: MetricDefinition): string {
  expectKind(def, 'counter');
  return `${RW_PREFIX}${def.name}_total`;
}

/** `k6_<name>_rate` for a Rate: a ratio 0..1 per tag set, cumulative from test start. */
export function rateSeries(def: MetricDefinition): string {
  expectKind(def, 'rate');
  return `${RW_PREFIX}${def.name}_rate`;
}

/** `k6_<name>` for a Gauge. */
export function gaugeSeries(def: MetricDefinition): string {
  expectKind(def, 'gauge');
  return `${RW_PREFIX}${def.name}`;
}

/** The native-histogram series of a Trend: `k6_<name>_seconds` for time Trends, `k6_<name>` otherwise. */
export function nativeHistogramSeries(def: MetricDefinition): string {
  expectKind(def, 'trend');
  return `${RW_PREFIX}${def.name}${def.isTime ? '_seconds' : ''}`;
}

/** A value in the metric's own unit (ms for time Trends) as it appears in Prometheus (seconds). */
export function toRemoteWriteUnit(def: MetricDefinition, value: number): number {
  return def.isTime ? value / 1000 : value;
}

/** Grafana's unit id for a metric as it arrives through remote write. */
export function grafanaUnit(def: MetricDefinition): string {
  if (def.isTime) return 's';
  switch (def.unit) {
    case 'tokens/s':
      return 'suffix: tok/s';
    case 'requests/s':
      return 'reqps';
    case 'ratio':
      return 'percentunit';
    case 'watts':
      return 'watt';
    case 'seconds':
      return 's';
    case 'bytes':
      return 'bytes';
    case 'tokens':
    case 'requests':
    case 'count':
    case 'ms':
      return 'short';
  }
}
