// The Grafana dashboard for k6 -> Prometheus remote write -> Grafana, built as data from lib/metrics.ts and
// thresholds/use-cases.ts (no metric name is written here) and rendered with Grafana's dashboards-as-code builders
// (@grafana/grafana-foundation-sdk). Runs in Node (build-dashboard.ts and the tests).

import * as cog from '@grafana/grafana-foundation-sdk/cog';
import * as bargauge from '@grafana/grafana-foundation-sdk/bargauge';
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as sdk from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { SERVER_METRIC_SOURCES } from '../../lib/prometheus';
import {
  CLIENT_METRICS,
  REQUEST_METRICS,
  SAMPLE_TAGS,
  SERVER_METRICS,
  type MetricDefinition,
  type ServerMetricKey,
} from '../../lib/metrics';
import { USE_CASES, type UseCase, type UseCaseLimit } from '../../thresholds/use-cases';
import {
  cellMatchers,
  histogramQuantile,
  orZerosLike,
  perSecondOverMinute,
  ratePerSecond,
  series,
  testidMatchers,
  totalOverRange,
  trendMean,
  trendPercentile,
  FILTER_TAGS,
  RATE_WINDOW,
  TESTID_TAG,
  type Matcher,
  type Read,
} from './promql';
import {
  counterSeries,
  gaugeSeries,
  grafanaUnit,
  nativeHistogramSeries,
  rateSeries,
  toRemoteWriteUnit,
  RW_TREND_STATS_ENV,
  type RwTrendStat,
} from './remote-write';

// ---------------------------------------------------------------------------------------------
// k6 built-in metrics the dashboard reads (k6 names them; they are not in lib/metrics.ts).

/** k6 built-ins, already in their remote-write form. */
export const K6_BUILTIN_SERIES = {
  /** Gauge: VUs running, per runner. */
  vus: 'k6_vus',
  /** Counter: one per HTTP request or stream, pushed when it ends (k6/x/llm pushes it at stream end). */
  httpReqs: 'k6_http_reqs_total',
  /** Counter: iterations an arrival-rate executor could not start. */
  droppedIterations: 'k6_dropped_iterations_total',
} as const;

/** Prometheus' own per-target series, used to list scrape jobs. */
export const PROMETHEUS_UP = 'up';

/** The datasource every panel and query uses: a dashboard input on import, a datasource variable when provisioned. */
export const DATASOURCE = { type: 'prometheus', uid: '${DS_PROMETHEUS}' } as const;
export const DASHBOARD_UID = 'k6-llm-capacity';

// ---------------------------------------------------------------------------------------------
// ---------------------------------------------------------------------------------------------
// The generated JSON as the tests read it back. It is built with @grafana/grafana-foundation-sdk's builders (below);
// these types only name what readers rely on: the SDK types queries as its generic cog.Dataquery, rows and panels
// as separate types, and has no export-format fields (__inputs, __requires).

export type GridPos = sdk.GridPos;
export type ThresholdStep = sdk.Threshold;
export type Target = Omit<prometheus.Dataquery, '_implementsDataqueryVariant'> &
  Required<Pick<prometheus.Dataquery, 'refId' | 'legendFormat' | 'range' | 'instant'>>;
export type TemplateVariable = Omit<sdk.VariableModel, 'query'> & { query: string };

export interface Panel {
  id: number;
  type: 'row' | PanelSpec['type'];
  title: string;
  description?: string;
  datasource?: common.DataSourceRef;
  gridPos: GridPos;
  targets?: Target[];
  fieldConfig?: unknown;
  options?: unknown;
  transformations?: sdk.DataTransformerConfig[];
  collapsed?: boolean;
  panels?: Panel[];
}

export interface Dashboard extends Omit<sdk.Dashboard, 'panels' | 'templating'> {
  __inputs: unknown[];
  __requires: unknown[];
  panels: Panel[];
  templating: { list: TemplateVariable[] };
}

// ---------------------------------------------------------------------------------------------
// Panel specs: a panel without id and position; the layout assigns both.

interface QuerySpec {
  expr: string;
  legend: string;
  /** Instant table query (tables, bar gauges) rather than a range query. */
  table?: boolean;
  instant?: boolean;
}

interface PanelSpec {
  type: 'timeseries' | 'stat' | 'table' | 'bargauge';
  title: string;
  description: string;
  queries: QuerySpec[];
  unit: string;
  w: number;
  h: number;
  min?: number;
  max?: number;
  thresholds?: { steps: ThresholdStep[]; dashed: boolean };
  stack?: boolean;
  /** Tables: value column names, in query order, and their units. */
  columns?: { name: string; unit: string }[];
  decimals?: number;
}

interface RowSpec {
  title: string;
  collapsed: boolean;
  panels: PanelSpec[];
}

const HALF = 12;
const THIRD = 8;
const QUARTER = 6;
const FULL = 24;

// ---------------------------------------------------------------------------------------------
// Use-case limits as threshold lines.

/** The metric definition a use-case limit is on (lib/metrics.ts REQUEST_METRICS). */
function limitMetric(limit: UseCaseLimit): MetricDefinition {
  return REQUEST_METRICS[limit.metric];
}

/** Distinct limit values of one metric over all use cases, in the unit Prometheus holds (s for times). */
export function limitValues(metric: UseCaseLimit['metric'], useCases: readonly UseCase[] = USE_CASES): number[] {
  const def = REQUEST_METRICS[metric];
  const values = new Set<number>();
  for (const uc of useCases) for (const l of uc.limits) if (l.metric === metric) values.add(toRemoteWriteUnit(def, l.value));
  return [...values].sort((a, b) => a - b);
}

function lowerIsBetter(limit: Pick<UseCaseLimit, 'operator'>): boolean {
  return limit.operator === '<' || limit.operator === '<=';
}

/**
 * Threshold steps that draw each value as a dashed line. For "lower is better" limits (TTFT, e2e) the
 * colour worsens above each line; for "higher is better" ones (speed) it improves above each line.
 */
export function thresholdSteps(values: readonly number[], lowerBetter: boolean): ThresholdStep[] {
  const worsening = ['yellow', 'orange', 'red', 'dark-red'];
  const improving = ['orange', 'yellow', 'green', 'dark-green'];
  const ramp = lowerBetter ? worsening : improving;
  const steps: ThresholdStep[] = [{ color: lowerBetter ? 'green' : 'red', value: null }];
  // A lone limit is the pass/fail line (red or green); several are graded from mild to strong.
  const offset = values.length === 1 ? 2 : 0;
  values.forEach((v, i) => {
    steps.push({ color: ramp[Math.min(i + offset, ramp.length - 1)]!, value: v });
  });
  return steps;
}

function allLimitsOf(metric: UseCaseLimit['metric']): { steps: ThresholdStep[]; dashed: boolean } | undefined {
  const values = limitValues(metric);
  if (values.length === 0) return undefined;
  const sample = USE_CASES.flatMap((u) => u.limits).find((l) => l.metric === metric)!;
  return { steps: thresholdSteps(values, lowerIsBetter(sample)), dashed: true };
}

function limitsNote(metric: UseCaseLimit['metric']): string {
  const labels = USE_CASES.flatMap((u) => u.limits.filter((l) => l.metric === metric).map((l) => `${u.title}: ${l.label}`));
  return labels.length > 0 ? ` Dashed lines: the use-case limits (${labels.join('; ')}).` : '';
}

// ---------------------------------------------------------------------------------------------
// Rows.

const BY_CELL = ['cell'];
const TABLE_LABELS = ['cell', 'context', 'concurrency', 'use_case'];

function describe(def: MetricDefinition, extra = ''): string {
  const unitNote = def.isTime ? ' Sent by k6 in ms, stored by remote write in seconds.' : '';
  return `${def.name}: ${def.description}${unitNote}${extra}`;
}

const MULTI_RUNNER_NOTE =
  " Several runners (k6-operator) send one series each: percentiles shown are the worst runner's (a bound on the " +
  "merged one); means are weighted by sample count (exact).";

function overviewRow(): RowSpec {
  // Everything the server did: warm-up and transition requests count here, not in the statistics.
  const cells = cellMatchers({}, false);
  const errors = counterSeries(REQUEST_METRICS.errors);
  const reqs = K6_BUILTIN_SERIES.httpReqs;
  const finished = totalOverRange(reqs, cells);
  const failed = totalOverRange(errors, cells);
  const outputTokens = counterSeries(REQUEST_METRICS.outputTokens);
  return {
    title: 'Overview',
    collapsed: false,
    panels: [
      {
        type: 'stat',
        title: 'Requests finished',
        description: `Streams that ended in the selected cells (k6 built-in http_reqs: k6/x/llm counts a stream ` +
          `when it ends). ${REQUEST_METRICS.requestOk.name} arrives through remote write as a ratio per tag set, ` +
          `not a count, so counts come from counters.`,
        queries: [{ expr: finished, legend: 'requests', instant: true }],
        unit: 'short',
        w: QUARTER,
        h: 4,
      },
      {
        type: 'stat',
        title: 'Failed requests',
        description: describe(REQUEST_METRICS.errors),
        queries: [{ expr: `${failed} or vector(0)`, legend: 'failed', instant: true }],
        unit: 'short',
        w: QUARTER,
        h: 4,
        thresholds: {
          steps: [
            { color: 'green', value: null }, { color: 'red', value: 1 },
          ],
          dashed: false,
        },
      },
      {
        type: 'stat',
        title: 'Success rate',
        description: `1 - ${REQUEST_METRICS.errors.name} / http_reqs over the selected cells and time range.`,
        queries: [{ expr: `1 - ((${failed} or vector(0)) / ${finished})`, legend: 'success', instant: true }],
        unit: 'percentunit',
        decimals: 2,
        w: QUARTER,
        h: 4,
        thresholds: {
          steps: [
            { color: 'red', value: null }, { color: 'orange', value: 0.95 }, { color: 'green', value: 0.99 },
          ],
          dashed: false,
        },
      },
      {
        type: 'stat',
        title: 'Output tokens',
        description: describe(REQUEST_METRICS.outputTokens),
        queries: [{ expr: totalOverRange(outputTokens, cells), legend: 'tokens', instant: true }],
        unit: 'short',
        w: QUARTER,
        h: 4,
      },
      {
        type: 'timeseries',
        title: 'Requests per second',
        description: `Finished streams/s (k6 http_reqs) and failed requests/s (${REQUEST_METRICS.errors.name}, all ` +
          `error kinds, mean over the last minute: k6 pushes a counter only when it changed, so a burst of ` +
          `failures is one sample that rate() cannot see).`,
        queries: [
          { expr: ratePerSecond(reqs, cells), legend: 'finished/s' },
          { expr: perSecondOverMinute(errors, cells), legend: 'failed/s (1 min mean)' },
        ],
        unit: 'reqps',
        min: 0,
        w: THIRD,
        h: 8,
      },
      {
        type: 'timeseries',
        title: 'Success rate by cell',
        description: `Per cell since its start: 1 - ${REQUEST_METRICS.errors.name} / http_reqs (both cumulative from test start).`,
        queries: [
          {
            expr: `1 - (${orZerosLike(`sum by (cell) (${series(errors, cells)})`, `sum by (cell) (${series(reqs, cells)})`)} ` +
              `/ sum by (cell) (${series(reqs, cells)}))`,
            legend: '{{cell}}',
          },
        ],
        unit: 'percentunit',
        min: 0,
        max: 1,
        w: THIRD,
        h: 8,
      },
      {
        type: 'timeseries',
        title: 'Active VUs',
        description: 'k6 built-in vus summed over runners: one VU is one user with at most one open stream.',
        queries: [{ expr: `sum(${series(K6_BUILTIN_SERIES.vus, testidMatchers())})`, legend: 'VUs' }],
        unit: 'short',
        min: 0,
        w: THIRD,
        h: 8,
      },
    ],
  };
}

const LATENCY_STATS: readonly RwTrendStat[] = ['p(50)', 'p(95)', 'p(99)'];

function percentileQueries(def: MetricDefinition, stats: readonly RwTrendStat[], how: Read = 'live'): QuerySpec[] {
  return stats.map((stat) => ({
    expr: trendPercentile(def, stat, cellMatchers(), BY_CELL, how), legend: `{{cell}} ${stat.replace(/[()]/g, '')}`,
  }));
}

function latencyRow(): RowSpec {
  const m = REQUEST_METRICS;
  const panel = (def: MetricDefinition, title: string, limits?: UseCaseLimit['metric']): PanelSpec => ({
    type: 'timeseries',
    title,
    description: describe(def, (limits ? limitsNote(limits) : '') + MULTI_RUNNER_NOTE),
    queries: percentileQueries(def, LATENCY_STATS),
    unit: grafanaUnit(def),
    min: 0,
    w: HALF,
    h: 8,
    ...(limits ? { thresholds: allLimitsOf(limits) } : {}),
  });
  return {
    title: 'Latency',
    collapsed: false,
    panels: [
      panel(m.ttft, 'TTFT p50 / p95 / p99', 'ttft'),
      panel(m.ttfc, 'Time to first content token p50 / p95 / p99'),
      panel(m.itl, 'Inter-token latency p50 / p95 / p99'),
      panel(m.tpot, 'Time per output token p50 / p95 / p99'),
      panel(m.e2e, 'End-to-end latency p50 / p95 / p99', 'e2e'),
      {
        type: 'timeseries',
        title: 'TTFT mean by cell',
        description: describe(
          m.ttft,
          ` The use-case limits are checked on the per-cell mean by default (plan limitStat).${limitsNote('ttft')}`,
        ),
        queries: [{ expr: trendMean(m.ttft, cellMatchers(), BY_CELL, 'live'), legend: '{{cell}}' }],
        unit: grafanaUnit(m.ttft),
        min: 0,
        w: HALF,
        h: 8,
        thresholds: allLimitsOf('ttft'),
      },
    ],
  };
}

/** The load generator's own health: when k6 read its streams late, its figures are the client's, not the server's. */
function clientRow(): RowSpec {
  const lag = CLIENT_METRICS.readLag;
  return {
    title: 'Load generator',
    collapsed: false,
    panels: [
      {
        type: 'timeseries',
        title: 'k6 read lag p50 / p95 / p99 (longest per request)',
        description: describe(
          lag,
          ' A p99 near the median inter-token latency means tokens were read together: the cell is client-bound ' +
          '(the report says which cells).' +
            MULTI_RUNNER_NOTE,
        ),
        queries: percentileQueries(lag, LATENCY_STATS),
        unit: grafanaUnit(lag),
        min: 0,
        w: HALF,
        h: 8,
      },
    ],
  };
}

function speedRow(): RowSpec {
  const m = REQUEST_METRICS;
  const cells = cellMatchers();
  const speedPanel = (def: MetricDefinition, title: string, limits?: UseCaseLimit['metric']): PanelSpec => ({
    type: 'timeseries',
    title,
    description: describe(def, (limits ? limitsNote(limits) : '') + MULTI_RUNNER_NOTE),
    queries: [{ expr: trendMean(def, cells, BY_CELL, 'live'), legend: '{{cell}} mean' }, ...percentileQueries(def, ['p(50)'])],
    unit: grafanaUnit(def),
    min: 0,
    w: HALF,
    h: 8,
    ...(limits ? { thresholds: allLimitsOf(limits) } : {}),
  });
  const tokensPanel = (def: MetricDefinition, title: string): PanelSpec => ({
    type: 'timeseries',
    title,
    description: describe(def, ' Per-second increase of the counter: the system throughput while a cell runs.'),
    queries: [
      { expr: ratePerSecond(counterSeries(def), cells), legend: 'all cells' },
      { expr: ratePerSecond(counterSeries(def), cells, BY_CELL), legend: '{{cell}}' },
    ],
    unit: 'suffix: tok/s',
    min: 0,
    w: HALF,
    h: 8,
  });
  return {
    title: 'Speed',
    collapsed: false,
    panels: [
      speedPanel(m.decodeSpeed, 'Per-user decode speed (mean, p50)', 'decodeSpeed'),
      speedPanel(m.prefillSpeed, 'Per-user prefill speed (mean, p50)'),
      tokensPanel(m.outputTokens, 'Output tokens/s (system throughput)'),
      tokensPanel(m.inputTokens, 'Input tokens/s (prefill throughput)'),
    ],
  };
}

function perCellRow(): RowSpec {
  const m = REQUEST_METRICS;
  const cells = cellMatchers();
  const columns: { name: string; unit: string; expr: string }[] = [
    { name: 'TTFT mean', unit: grafanaUnit(m.ttft), expr: trendMean(m.ttft, cells, TABLE_LABELS, 'final') },
    ...(['p(50)', 'p(95)', 'p(99)'] as const).map((stat) => ({
      name: `TTFT ${stat.replace(/[()]/g, '')}`,
      unit: grafanaUnit(m.ttft),
      expr: trendPercentile(m.ttft, stat, cells, TABLE_LABELS, 'final'),
    })),
    { name: 'ITL p95', unit: grafanaUnit(m.itl), expr: trendPercentile(m.itl, 'p(95)', cells, TABLE_LABELS, 'final') },
    { name: 'TPOT mean', unit: grafanaUnit(m.tpot), expr: trendMean(m.tpot, cells, TABLE_LABELS, 'final') },
    { name: 'E2E p95', unit: grafanaUnit(m.e2e), expr: trendPercentile(m.e2e, 'p(95)', cells, TABLE_LABELS, 'final') },
    { name: 'Decode mean', unit: grafanaUnit(m.decodeSpeed), expr: trendMean(m.decodeSpeed, cells, TABLE_LABELS, 'final') },
    { name: 'Prefill mean', unit: grafanaUnit(m.prefillSpeed), expr: trendMean(m.prefillSpeed, cells, TABLE_LABELS, 'final') },
    { name: 'Output tokens', unit: 'short', expr: totalOverRange(counterSeries(m.outputTokens), cells, TABLE_LABELS) },
    { name: 'Requests', unit: 'short', expr: totalOverRange(K6_BUILTIN_SERIES.httpReqs, cells, TABLE_LABELS) },
    { name: 'Failed', unit: 'short', expr: totalOverRange(counterSeries(m.errors), cells, TABLE_LABELS) },
  ];
  return {
    title: 'Per cell',
    collapsed: false,
    panels: [
      {
        type: 'table',
        title: 'Cells (final values over the time range)',
        description: `One row per cell (context x concurrency). Times in seconds, speeds in tok/s. Percentiles are ` +
          `the worst runner's; means are exact.${MULTI_RUNNER_NOTE}`,
        queries: columns.map((c) => ({ expr: c.expr, legend: c.name, table: true })),
        columns: columns.map((c) => ({ name: c.name, unit: c.unit })),
        unit: 'short',
        decimals: 3,
        w: FULL,
        h: 12,
      },
    ],
  };
}

function useCaseRow(): RowSpec {
  const panels: PanelSpec[] = [];
  for (const uc of USE_CASES) {
    for (const limit of uc.limits) {
      const def = limitMetric(limit);
      const value = toRemoteWriteUnit(def, limit.value);
      panels.push({
        type: 'timeseries',
        title: `${uc.title}: ${limit.label}`,
        description: `${uc.description} Per-cell mean of ${def.name} (use_case="${uc.id}") against the limit ` +
          `${limit.label}, drawn dashed. The plan checks the mean by default (limitStat); a cell whose line stays on the good side passes.`,
        queries: [
          {
            expr: trendMean(def, cellMatchers({ use_case: uc.id }), ['cell', 'concurrency'], 'live'),
            legend: '{{concurrency}} users',
          },
        ],
        unit: grafanaUnit(def),
        min: 0,
        w: THIRD,
        h: 8,
        thresholds: { steps: thresholdSteps([value], lowerIsBetter(limit)), dashed: true },
      });
    }
  }
  return { title: 'Use-case limits', collapsed: false, panels };
}

/** Raw server metric names a server figure is read from, as lib/metrics.ts documents them (vllm:, sglang:, DCGM_). */
export function rawServerNames(key: ServerMetricKey): string[] {
  return key in SERVER_METRIC_SOURCES ? [...SERVER_METRIC_SOURCES[key as keyof typeof SERVER_METRIC_SOURCES]] : [];
}

/** Raw names grouped by engine prefix (vllm:, sglang:, DCGM_), in order. */
function byEngine(names: readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const prefix = /^[^:_]+[:_]/.exec(name)?.[0] ?? name;
    groups.set(prefix, [...(groups.get(prefix) ?? []), name]);
  }
  return [...groups.values()];
}

type ServerPanelSpec =
  | { kind: 'level'; key: ServerMetricKey; title: string; agg: 'sum' | 'avg' }
  | { kind: 'rate'; key: ServerMetricKey; title: string; unit: string }
  | { kind: 'mean'; sum: ServerMetricKey; count: ServerMetricKey; title: string }
  | { kind: 'speed'; tokens: ServerMetricKey; seconds: ServerMetricKey; title: string };

const SERVER_PANELS: readonly ServerPanelSpec[] = [
  { kind: 'level', key: 'running', title: 'Running requests', agg: 'sum' },
  { kind: 'level', key: 'waiting', title: 'Waiting requests (queue)', agg: 'sum' },
  { kind: 'level', key: 'kvCacheUsage', title: 'KV-cache usage', agg: 'avg' },
  { kind: 'level', key: 'powerWatts', title: 'GPU power', agg: 'sum' },
  { kind: 'rate', key: 'generationTokensTotal', title: 'Server generation tokens/s', unit: 'suffix: tok/s' },
  { kind: 'rate', key: 'preemptionsTotal', title: 'Preemptions/s', unit: 'short' },
  { kind: 'mean', sum: 'queueTimeSum', count: 'queueTimeCount', title: 'Server queue time (mean)' },
  { kind: 'mean', sum: 'serverTtftSum', count: 'serverTtftCount', title: 'Server-side TTFT (mean)' },
  { kind: 'speed', tokens: 'promptTokensTotal', seconds: 'prefillSecondsTotal', title: 'Server prefill speed per request' },
  { kind: 'speed', tokens: 'generationTokensTotal', seconds: 'decodeSecondsTotal', title: 'Server decode speed per request' },
];

const SERVER_JOB_VAR = 'server_job';

function serverPanel(spec: ServerPanelSpec): PanelSpec {
  const mon = testidMatchers();
  const raw: Matcher[] = [{ label: 'job', op: '=~', value: `$${SERVER_JOB_VAR}` }];
  const monitorNote =
    ' "k6 monitor" lines are the llm_server_* gauges the suite\'s monitor scenario samples from the server\'s ' +
    '/metrics during the run; the others are the raw series when Prometheus scrapes the server (prometheus.yml), ' +
    'filtered by the server_job variable.';
  if (spec.kind === 'level') {
    const def = SERVER_METRICS[spec.key];
    return {
      type: 'timeseries',
      title: spec.title,
      description: describe(def, monitorNote),
      queries: [
        // max, not sum: should two runners both monitor the server, they read the same value.
        { expr: `max(${series(gaugeSeries(def), mon)})`, legend: 'k6 monitor' },
        // Names of one engine that differ by version (vllm:kv_cache_usage_perc, formerly vllm:gpu_cache_usage_perc)
        // share a line: the first that exists.
        ...byEngine(rawServerNames(spec.key)).map((names) => ({
          expr: names.map((name) => `${spec.agg}(${series(name, raw)})`).join(' or '), legend: names[0]!,
        })),
      ],
      unit: grafanaUnit(def),
      min: 0,
      ...(def.unit === 'ratio' ? { max: 1 } : {}),
      w: QUARTER,
      h: 8,
    };
  }
  if (spec.kind === 'rate') {
    const def = SERVER_METRICS[spec.key];
    return {
      type: 'timeseries',
      title: spec.title,
      description: describe(def, ` Per-second increase of the cumulative value.${monitorNote}`),
      queries: [
        { expr: `max(rate(${series(gaugeSeries(def), mon)}[${RATE_WINDOW}]))`, legend: 'k6 monitor' },
        ...rawServerNames(spec.key).map((name) => ({ expr: ratePerSecond(name, raw), legend: name })),
      ],
      unit: spec.unit,
      min: 0,
      w: QUARTER,
      h: 8,
    };
  }
  if (spec.kind === 'speed') return serverSpeedPanel(spec, raw);
  const sum = SERVER_METRICS[spec.sum];
  const count = SERVER_METRICS[spec.count];
  const rawSums = rawServerNames(spec.sum);
  const rawCounts = rawServerNames(spec.count);
  const rawQueries: QuerySpec[] = [];
  rawSums.forEach((name, i) => {
    const countName = rawCounts[i];
    if (countName !== undefined)
      rawQueries.push({
        expr: `${ratePerSecond(name, raw)} / ${ratePerSecond(countName, raw)}`, legend: name.replace(/_sum$/, ''),
      });
  });
  return {
    type: 'timeseries',
    title: spec.title,
    description: describe(sum, ` Mean over the rate window: increase of the sum / increase of the count.${monitorNote}`),
    queries: [
      {
        expr: `max(rate(${series(gaugeSeries(sum), mon)}[${RATE_WINDOW}])) / max(rate(${series(gaugeSeries(count), mon)}[${RATE_WINDOW}]))`,
        legend: 'k6 monitor',
      },
      ...rawQueries,
    ],
    unit: 's',
    min: 0,
    w: QUARTER,
    h: 8,
  };
}

/**
 * Tokens per second of the time the server spent on them, summed over its slots (llama.cpp times prompt
 * processing and generation per slot): the speed one request saw, as the server measured it. Only from
 * the scrape, paired by engine: the report computes the same per cell from the monitor's gauges.
 */
function serverSpeedPanel(spec: Extract<ServerPanelSpec, { kind: 'speed' }>, raw: Matcher[]): PanelSpec {
  const seconds = rawServerNames(spec.seconds);
  const queries = seconds.flatMap((secondsName) => {
    const engine = /^[^:_]+[:_]/.exec(secondsName)?.[0] ?? '';
    const tokensName = rawServerNames(spec.tokens).find((n) => n.startsWith(engine));
    return tokensName
      ? [
          {
            expr: `${ratePerSecond(tokensName, raw)} / ${ratePerSecond(secondsName, raw)}`, legend: engine.slice(0, -1),
          },
        ]
      : [];
  });
  return {
    type: 'timeseries',
    title: spec.title,
    description: describe(
      SERVER_METRICS[spec.seconds],
      ' Increase of the tokens over increase of the seconds, over the rate window; from the raw series of the ' +
      'scrape (server_job variable).',
    ),
    queries,
    unit: 'suffix: tok/s',
    min: 0,
    w: QUARTER,
    h: 8,
  };
}

function serverRow(): RowSpec {
  return { title: 'Server', collapsed: false, panels: SERVER_PANELS.map(serverPanel) };
}

function errorsRow(): RowSpec {
  const cells = cellMatchers();
  const errors = counterSeries(REQUEST_METRICS.errors);
  const kind = SAMPLE_TAGS.errorKind;
  return {
    title: 'Errors',
    collapsed: false,
    panels: [
      {
        type: 'timeseries',
        title: `Failed requests/s by ${kind}`,
        description: describe(
          REQUEST_METRICS.errors,
          ' Mean over the last minute, counting a burst that arrived as one sample (k6 pushes a counter only when ' +
          'it changed; rate() would show nothing).',
        ),
        queries: [{ expr: perSecondOverMinute(errors, cells, [kind]), legend: `{{${kind}}}` }],
        unit: 'reqps',
        min: 0,
        stack: true,
        w: HALF,
        h: 8,
      },
      {
        type: 'bargauge',
        title: `Failed requests by ${kind} and cell`,
        description: `${describe(REQUEST_METRICS.errors)} Totals over the time range.`,
        queries: [
          { expr: totalOverRange(errors, cells, ['cell', kind]), legend: `{{cell}} {{${kind}}}`, instant: true },
        ],
        unit: 'short',
        min: 0,
        w: HALF,
        h: 8,
      },
      {
        type: 'timeseries',
        title: 'Finished streams/s by HTTP status',
        description:
          'k6 built-in http_reqs by status: 0 means no HTTP response (connection failure or timeout before headers).',
        queries: [{ expr: ratePerSecond(K6_BUILTIN_SERIES.httpReqs, cells, ['status']), legend: '{{status}}' }],
        unit: 'reqps',
        min: 0,
        w: THIRD,
        h: 8,
      },
      {
        type: 'timeseries',
        title: 'Dropped iterations/s',
        description:
          "k6 built-in dropped_iterations: requests an arrival-rate executor could not start for lack of VUs, or a " +
          "cell's requests cut when it overran its slot. Non-zero means the client or the schedule, not the " +
          "server, limited the load. Mean over the last minute; 0 while the run has VUs and dropped nothing (k6 " +
          "sends no series until the first drop).",
        queries: [
          {
            expr: orZerosLike(
              perSecondOverMinute(K6_BUILTIN_SERIES.droppedIterations, testidMatchers()),
              `sum(${series(K6_BUILTIN_SERIES.vus, testidMatchers())})`,
            ),
            legend: 'dropped/s (1 min mean)',
          },
        ],
        unit: 'short',
        min: 0,
        w: THIRD,
        h: 8,
      },
      {
        type: 'timeseries',
        title: 'Server metrics scrape success',
        description: describe(SERVER_METRICS.scrapeOk),
        queries: [
          { expr: `min(${series(rateSeries(SERVER_METRICS.scrapeOk), testidMatchers())})`, legend: 'scrape ok' },
        ],
        unit: 'percentunit',
        min: 0,
        max: 1,
        w: THIRD,
        h: 8,
      },
    ],
  };
}

function nativeHistogramRow(): RowSpec {
  const trends = Object.values(REQUEST_METRICS).filter((d: MetricDefinition) => d.kind === 'trend');
  return {
    title: 'Native histograms (K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true)',
    collapsed: true,
    panels: trends.map((def) => ({
      type: 'timeseries',
      title: `${def.name} p50 / p95 / p99 (native histogram)`,
      description: describe(
        def,
        ' Quantiles merged exactly across runners over the rate window. Empty unless k6 sends Trends as native ' +
        'histograms and Prometheus runs with native histograms enabled.',
      ),
      queries: [0.5, 0.95, 0.99].map((q) => ({
        expr: histogramQuantile(q, nativeHistogramSeries(def), cellMatchers(), BY_CELL),
        legend: `{{cell}} p${Math.round(q * 100)}`,
      })),
      unit: grafanaUnit(def),
      min: 0,
      w: HALF,
      h: 8,
    })),
  };
}

/** The rows of the dashboard, top to bottom. */
export function dashboardRows(): RowSpec[] {
  return [overviewRow(), latencyRow(), speedRow(), perCellRow(), useCaseRow(), serverRow(), errorsRow(), clientRow(), nativeHistogramRow()];
}

// ---------------------------------------------------------------------------------------------
// Rendering specs with the SDK's builders.

function refId(i: number): string {
  return String.fromCharCode('A'.charCodeAt(0) + i);
}

function targets(spec: PanelSpec): prometheus.DataqueryBuilder[] {
  return spec.queries.map((q, i) => {
    const b = new prometheus.DataqueryBuilder().refId(refId(i)).datasource(DATASOURCE).expr(q.expr).legendFormat(q.legend);
    if (q.table === true || q.instant === true) b.instant();
    else b.range();
    if (q.table) b.format(prometheus.PromQueryFormat.Table);
    return b;
  });
}

/** The builder methods the four panel kinds share (each SDK panel builder has them). */
interface FieldPanelBuilder extends cog.Builder<sdk.Panel> {
  id(id: number): this;
  title(title: string): this;
  description(description: string): this;
  datasource(datasource: common.DataSourceRef): this;
  height(h: number): this;
  span(w: number): this;
  targets(targets: cog.Builder<cog.Dataquery>[]): this;
  unit(unit: string): this;
  min(min: number): this;
  max(max: number): this;
  decimals(decimals: number): this;
  colorScheme(color: cog.Builder<sdk.FieldColor>): this;
  thresholds(thresholds: cog.Builder<sdk.ThresholdsConfig>): this;
}

function withCommon<B extends FieldPanelBuilder>(b: B, spec: PanelSpec, id: number): B {
  b.id(id)
    .title(spec.title)
    .description(spec.description)
    .datasource(DATASOURCE)
    .height(spec.h)
    .span(spec.w)
    .targets(targets(spec))
    .unit(spec.unit);
  if (spec.min !== undefined) b.min(spec.min);
  if (spec.max !== undefined) b.max(spec.max);
  if (spec.decimals !== undefined) b.decimals(spec.decimals);
  const color = spec.type === 'stat' ? sdk.FieldColorModeId.Thresholds : sdk.FieldColorModeId.PaletteClassic;
  return b
    .colorScheme(new sdk.FieldColorBuilder().mode(color))
    .thresholds(
      new sdk.ThresholdsConfigBuilder()
        .mode(sdk.ThresholdsMode.Absolute)
        .steps(spec.thresholds?.steps ?? [{ color: 'green', value: null }]),
    );
}

function lastValue(): common.ReduceDataOptionsBuilder {
  return new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).fields('').values(false);
}

function tablePanel(spec: PanelSpec, id: number): table.PanelBuilder {
  const columns = spec.columns ?? [];
  // Instant table queries give one frame per query with a "Value #<refId>" column; merge joins them on the labels.
  const renameByName = Object.fromEntries(columns.map((c, i) => [`Value #${refId(i)}`, c.name]));
  const indexByName = Object.fromEntries([...TABLE_LABELS, ...columns.map((c) => c.name)].map((name, i) => [name, i]));
  const b = withCommon(new table.PanelBuilder(), spec, id)
    .cellOptions({ type: common.TableCellDisplayMode.Auto })
    .showHeader(true)
    .cellHeight(common.TableCellHeight.Sm)
    .footer(new common.TableFooterOptionsBuilder().show(false).reducer(['sum']))
    .sortBy([new common.TableSortByFieldStateBuilder().displayName('context').desc(false)])
    .transformations([
      { id: 'merge', options: {} },
      { id: 'organize', options: { excludeByName: { Time: true, [TESTID_TAG]: true }, indexByName, renameByName } },
      {
        id: 'convertFieldType',
        options: {
          conversions: [
            { targetField: 'context', destinationType: 'number' },
            { targetField: 'concurrency', destinationType: 'number' },
          ],
          fields: {},
        },
      },
    ]);
  for (const c of columns) b.overrideByName(c.name, [{ id: 'unit', value: c.unit }]);
  return b;
}

function renderPanel(spec: PanelSpec, id: number): FieldPanelBuilder {
  switch (spec.type) {
    case 'timeseries':
      return withCommon(new timeseries.PanelBuilder(), spec, id)
        .drawStyle(common.GraphDrawStyle.Line)
        .lineWidth(1)
        .fillOpacity(spec.stack ? 30 : 0)
        .showPoints(common.VisibilityMode.Never)
        .spanNulls(false)
        .stacking(
          new common.StackingConfigBuilder()
            .mode(spec.stack ? common.StackingMode.Normal : common.StackingMode.None)
            .group('A'),
        )
        .thresholdsStyle(new common.GraphThresholdsStyleConfigBuilder().mode(
          spec.thresholds?.dashed ? common.GraphThresholdsStyleMode.Dashed : common.GraphThresholdsStyleMode.Off,
        ))
        .legend(
          new common.VizLegendOptionsBuilder()
            .displayMode(common.LegendDisplayMode.Table)
            .placement(common.LegendPlacement.Bottom)
            .showLegend(true)
            .calcs(['lastNotNull', 'max']),
        )
        .tooltip(
          new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi).sort(common.SortOrder.Descending),
        );
    case 'stat':
      return withCommon(new stat.PanelBuilder(), spec, id)
        .reduceOptions(lastValue())
        .colorMode(common.BigValueColorMode.Value)
        .graphMode(common.BigValueGraphMode.None)
        .justifyMode(common.BigValueJustifyMode.Auto)
        .orientation(common.VizOrientation.Auto)
        .textMode(common.BigValueTextMode.Auto);
    case 'bargauge':
      return withCommon(new bargauge.PanelBuilder(), spec, id)
        .reduceOptions(lastValue())
        .displayMode(common.BarGaugeDisplayMode.Basic)
        .orientation(common.VizOrientation.Horizontal)
        .showUnfilled(true)
        .minVizHeight(10)
        .minVizWidth(0)
        .valueMode(common.BarGaugeValueMode.Color);
    case 'table':
      return tablePanel(spec, id);
  }
}

/**
 * Adds the rows and their panels, numbered from 1 in order; the SDK places them left to right, top to bottom on
 * Grafana's 24-column grid. A collapsed row carries its panels inside it; an open row is followed by them.
 */
function addRows(b: sdk.DashboardBuilder, rows: readonly RowSpec[]): sdk.DashboardBuilder {
  let id = 1;
  for (const row of rows) {
    const rowBuilder = new sdk.RowBuilder(row.title).id(id++).datasource(DATASOURCE).collapsed(row.collapsed);
    const panels = row.panels.map((spec) => renderPanel(spec, id++));
    if (row.collapsed) {
      for (const p of panels) rowBuilder.withPanel(p);
      b.withRow(rowBuilder);
    } else {
      b.withRow(rowBuilder);
      for (const p of panels) b.withPanel(p);
    }
  }
  return b;
}

function queryVariable(
  name: string, label: string, query: string,
  opts: { multi: boolean; allValue?: string; sort: sdk.VariableSort; description: string },
): sdk.QueryVariableBuilder {
  const b = new sdk.QueryVariableBuilder(name)
    .label(label)
    .description(opts.description)
    .datasource(DATASOURCE)
    .query(query)
    .definition(query)
    .regex('')
    .refresh(sdk.VariableRefresh.OnTimeRangeChanged)
    .sort(opts.sort)
    .multi(opts.multi)
    .includeAll(opts.allValue !== undefined)
    .hide(sdk.VariableHide.DontHide);
  if (opts.allValue !== undefined) b.allValue(opts.allValue);
  return b;
}

/** The template variables: the datasource, testid, the cell-tag filters and the scrape job of the server. */
export function templateVariables(): cog.Builder<sdk.VariableModel>[] {
  const anchor = rateSeries(REQUEST_METRICS.requestOk);
  const anchorInRun = series(anchor, testidMatchers());
  const vars: cog.Builder<sdk.VariableModel>[] = [
    new sdk.DatasourceVariableBuilder('DS_PROMETHEUS')
      .label('Prometheus')
      .description('The Prometheus that receives k6 remote write (and scrapes the server).')
      .type('prometheus')
      .regex('')
      .multi(false)
      .includeAll(false)
      .hide(sdk.VariableHide.DontHide),
    queryVariable(TESTID_TAG, 'Test id', `label_values(${anchor}, ${TESTID_TAG})`, {
      multi: false,
      sort: sdk.VariableSort.AlphabeticalDesc,
      description: 'The --tag testid=... of the run; newest first when test ids start with a timestamp.',
    }),
  ];
  // cell is on every request sample, so "All" may require it ('.+'); use_case and the others may be absent on some cells ('.*').
  const allValues: Partial<Record<(typeof FILTER_TAGS)[number], string>> = { cell: '.+' };
  const numeric = new Set(['context', 'concurrency']);
  for (const tag of FILTER_TAGS) {
    vars.push(
      queryVariable(tag, tag.replace('_', ' ').replace(/^./, (c) => c.toUpperCase()), `label_values(${anchorInRun}, ${tag})`, {
        multi: true,
        allValue: allValues[tag] ?? '.*',
        sort: numeric.has(tag) ? sdk.VariableSort.NumericalAsc : sdk.VariableSort.AlphabeticalAsc,
        description: `Cell tag ${tag}.`,
      }),
    );
  }
  vars.push(
    queryVariable(SERVER_JOB_VAR, 'Server scrape job', `label_values(${PROMETHEUS_UP}, job)`, {
      multi: true,
      allValue: '.*',
      sort: sdk.VariableSort.AlphabeticalAsc,
      description: 'Prometheus scrape job(s) of the inference server and DCGM exporter, for the raw vllm:/sglang:/DCGM_ panels.',
    }),
  );
  return vars;
}

/**
 * The export-format fields Grafana's "Export for sharing externally" adds, which the SDK does not model: the datasource
 * input asked for on import.
 */
const EXPORT_FIELDS = {
  __inputs: [
    {
      name: 'DS_PROMETHEUS', label: 'Prometheus', description: 'Prometheus receiving k6 remote write',
      type: 'datasource', pluginId: 'prometheus', pluginName: 'Prometheus',
    },
  ],
  __requires: [
    { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.4.0' },
    { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
    { type: 'panel', id: 'timeseries', name: 'Time series', version: '' },
    { type: 'panel', id: 'stat', name: 'Stat', version: '' },
    { type: 'panel', id: 'table', name: 'Table', version: '' },
    { type: 'panel', id: 'bargauge', name: 'Bar gauge', version: '' },
  ],
};

/** The whole dashboard. Pure: the same inputs give the same JSON, which the tests compare with the committed file. */
export function buildDashboard(): Dashboard {
  const builder = new sdk.DashboardBuilder('k6 LLM capacity')
    .uid(DASHBOARD_UID)
    .id(null)
    .version(1)
    .description(
      `k6-llm-capacity: LLM endpoint load tests through k6 -o experimental-prometheus-rw with ` +
      `K6_PROMETHEUS_RW_TREND_STATS=${RW_TREND_STATS_ENV} and --tag testid=<run>. Generated by ` +
      `deploy/grafana/build-dashboard.ts (npm run dashboard); do not edit by hand.`,
    )
    .tags(['k6', 'llm', 'load-testing', 'k6-llm-capacity'])
    .editable()
    .fiscalYearStartMonth(0)
    .tooltip(sdk.DashboardCursorSync.Crosshair)
    .refresh('10s')
    .time({ from: 'now-1h', to: 'now' })
    .timezone('')
    .weekStart('')
    .links([])
    .annotation(
      new sdk.AnnotationQueryBuilder()
        .builtIn(1)
        .datasource({ type: 'grafana', uid: '-- Grafana --' })
        .enable(true)
        .hide(true)
        .iconColor('rgba(0, 211, 255, 1)')
        .name('Annotations & Alerts')
        .type('dashboard'),
    )
    .variables(templateVariables());
  // The SDK types queries as its generic cog.Dataquery; every query here is a Prometheus one (Target).
  return { ...EXPORT_FIELDS, ...(addRows(builder, dashboardRows()).build() as unknown as Omit<Dashboard, keyof typeof EXPORT_FIELDS>) };
}

/** The dashboard as the committed file holds it: two-space JSON and a final newline. */
export function renderDashboardJson(): string {
  return `${JSON.stringify(buildDashboard(), null, 2)}\n`;
}
