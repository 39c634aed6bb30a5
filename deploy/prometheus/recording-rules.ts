// Prometheus recording rules for the suite's remote-written metrics, built from lib/metrics.ts. Runs in Node.
// `npm run dashboard` writes them to deploy/prometheus/recording-rules.yml.
//
// The rules pre-aggregate what several k6 runners (k6-operator) send as separate series: exact
// sample-weighted means, worst-runner percentiles, throughput rates and, when Trends arrive as native
// histograms, exactly merged quantiles. They are optional: the dashboard does not depend on them.

import { REQUEST_METRICS } from '../../lib/metrics';
import type { MetricDefinition } from '../../lib/metric-definition';
import { CELL_LABELS, MEASURED_ONLY, selector } from '../grafana/promql';
import {
  counterSeries, nativeHistogramSeries, trendSeries, RW_TREND_STATS_ENV, type RwTrendStat,
} from '../grafana/remote-write';

export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
}

const BY = `by (${CELL_LABELS.join(', ')})`;
/** Rule names follow Prometheus' level:metric:operations convention; the level is the grouping. */
const LEVEL = 'cell';
const RATE_WINDOW = '1m';
/** A capacity step's warm-up and transition requests stay out of the aggregates, as out of the report. */
const MEASURED = selector([MEASURED_ONLY]);

function trends(): MetricDefinition[] {
  return Object.values(REQUEST_METRICS).filter((d: MetricDefinition) => d.kind === 'trend');
}

function counters(): MetricDefinition[] {
  return Object.values(REQUEST_METRICS).filter((d: MetricDefinition) => d.kind === 'counter');
}

/** Every rule, in file order. */
export function recordingRules(): RecordingRule[] {
  const rules: RecordingRule[] = [];
  for (const def of trends()) {
    const avg = trendSeries(def, 'avg');
    const count = trendSeries(def, 'count');
    rules.push({
      record: `${LEVEL}:${avg}:weighted`,
      expr: `sum ${BY} (${avg}${MEASURED} * ${count}${MEASURED}) / sum ${BY} (${count}${MEASURED})`,
    });
    // The merged quantile lies between the runners' own; the cautious bound is max for times, min for speeds.
    const agg = def.unit === 'tokens/s' ? 'min' : 'max';
    for (const stat of ['p(95)', 'p(99)'] as const satisfies readonly RwTrendStat[]) {
      const name = trendSeries(def, stat);
      rules.push({ record: `${LEVEL}:${name}:${agg}_over_runners`, expr: `${agg} ${BY} (${name}${MEASURED})` });
    }
  }
  for (const def of counters()) {
    const name = counterSeries(def);
    // Not rate(): k6 pushes a counter only when it changed, so a lone sample (a burst of errors) has no rate;
    // see perSecondOverMinute.
    const sel = `${name}${MEASURED}`;
    rules.push({
      record: `${LEVEL}:${name.replace(/_total$/, '')}:rate${RATE_WINDOW}`,
      expr: `sum ${BY} (${sel} - (${sel} offset ${RATE_WINDOW} or ${sel} * 0)) / 60`,
    });
  }
  for (const def of trends()) {
    const name = nativeHistogramSeries(def);
    for (const q of [0.5, 0.95, 0.99]) {
      rules.push({
        record: `${LEVEL}:${name}:p${Math.round(q * 100)}_rate${RATE_WINDOW}`,
        expr: `histogram_quantile(${q}, sum ${BY} (rate(${name}${MEASURED}[${RATE_WINDOW}])))`,
      });
    }
  }
  return rules;
}

/** The rules file as YAML. Expressions are single-quoted scalars (they hold no single quote). */
export function renderRecordingRules(): string {
  const lines = [
    '# Recording rules for k6-llm-capacity metrics arriving through k6 -o experimental-prometheus-rw. Loaded by ' +
    'prometheus.yml (rule_files).',
    '# Generated from lib/metrics.ts by deploy/grafana/build-dashboard.ts (npm run dashboard): do not edit by hand.',
    `# Expects K6_PROMETHEUS_RW_TREND_STATS=${RW_TREND_STATS_ENV}; ` +
    'the *_seconds / native-histogram rules are empty unless',
    '# K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true and Prometheus accepts native histograms.',
    'groups:',
    '  - name: k6-llm-capacity',
    '    interval: 15s',
    '    rules:',
  ];
  for (const rule of recordingRules()) {
    if (rule.expr.includes("'")) throw new Error(`recording rule ${rule.record}: expression holds a single quote`);
    lines.push(`      - record: ${rule.record}`, `        expr: '${rule.expr}'`);
  }
  return `${lines.join('\n')}\n`;
}
