// The client-side request rows of the dashboard (overview, latency, speed, load generator), as panel specs.
// Runs in Node.

import { CLIENT_METRICS, REQUEST_METRICS } from '../../lib/metrics';
import type { MetricDefinition } from '../../lib/metric-definition';
import type { UseCaseLimit } from '../../thresholds/use-cases';
import { AGENT_CALLS, K6_BUILTIN_SERIES } from './k6-builtins';
import { allLimitsOf, limitsNote } from './limits';
import {
  describe, BY_CELL, FULL, HALF, MULTI_RUNNER_NOTE, QUARTER, THIRD, type PanelSpec, type QuerySpec, type RowSpec,
} from './panel-spec';
import {
  cellMatchers,
  orZerosLike,
  perSecondOverMinute,
  ratePerSecond,
  series,
  testidMatchers,
  totalOverRange,
  trendMean,
  trendPercentile,
  type Read,
} from './promql';
import { counterSeries, grafanaUnit, type RwTrendStat } from './remote-write';

/** The series the overview reads: every request of the selected cells, warm-up and transition included. */
function overviewSeries() {
  // Everything the server did: warm-up and transition requests count here, not in the statistics.
  const cells = cellMatchers({}, false);
  // Requests ended: k6's calls to the measuring agent, one per LLM request (llm_request_ok, a Rate, reaches
  // Prometheus as a ratio per tag set, not a count).
  const calls = [...cells, AGENT_CALLS];
  const errors = counterSeries(REQUEST_METRICS.errors);
  const reqs = K6_BUILTIN_SERIES.httpReqs;
  return { cells, calls, errors, reqs, finished: totalOverRange(reqs, calls), failed: totalOverRange(errors, cells) };
}

/** The overview's totals over the time range: requests finished and failed, success rate, output tokens. */
function overviewTotals({ cells, finished, failed }: ReturnType<typeof overviewSeries>): PanelSpec[] {
  const outputTokens = counterSeries(REQUEST_METRICS.outputTokens);
  return [
  {
    type: 'stat',
    title: 'Requests finished',
    description: `LLM requests that ended in the selected cells, failed ones included: k6 built-in http_reqs of ` +
      `its calls to the measuring agent (${AGENT_CALLS.label}=${AGENT_CALLS.value}), one per request, ending ` +
      `when the request ends. ${REQUEST_METRICS.requestOk.name} counts the same requests in the report, but ` +
      `arrives through remote write as a ratio per tag set, not a count.`,
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
    description: `1 - ${REQUEST_METRICS.errors.name} / requests ended (the calls to the measuring agent) over ` +
      `the selected cells and time range. k6's own http_req_failed says nothing here: it is 0 whenever the ` +
      `agent answered, whatever the LLM server did.`,
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
  ];
}

/** The overview over time: requests per second, success rate by cell, active VUs. */
function overviewOverTime({ cells, calls, errors, reqs }: ReturnType<typeof overviewSeries>): PanelSpec[] {
  const endedByCell = `sum by (cell) (${series(reqs, calls)})`;
  return [
  {
    type: 'timeseries',
    title: 'Requests per second',
    description: `Requests ended/s (k6 http_reqs of the calls to the measuring agent, one per LLM request) and ` +
      `failed requests/s (${REQUEST_METRICS.errors.name}, all ` +
      `error kinds, mean over the last minute: k6 pushes a counter only when it changed, so a burst of ` +
      `failures is one sample that rate() cannot see).`,
    queries: [
      { expr: ratePerSecond(reqs, calls), legend: 'ended/s' },
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
    description: `Per cell since its start: 1 - ${REQUEST_METRICS.errors.name} / requests ended (the calls to ` +
      `the measuring agent; both cumulative from test start).`,
    queries: [
      {
        expr: `1 - (${orZerosLike(`sum by (cell) (${series(errors, cells)})`, endedByCell)} / ${endedByCell})`,
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
  ];
}

export function overviewRow(): RowSpec {
  const overview = overviewSeries();
  return {
    title: 'Overview',
    collapsed: false,
    panels: [...overviewTotals(overview), ...overviewOverTime(overview)],
  };
}

export const LATENCY_STATS: readonly RwTrendStat[] = ['p(50)', 'p(95)', 'p(99)'];

/** One query per statistic, by cell; `label` goes between the cell and the statistic in the legend. */
export function percentileQueries(
  def: MetricDefinition, stats: readonly RwTrendStat[], how: Read = 'live', label = '',
): QuerySpec[] {
  return stats.map((stat) => ({
    expr: trendPercentile(def, stat, cellMatchers(), BY_CELL, how),
    legend: `{{cell}} ${label === '' ? '' : `${label} `}${stat.replace(/[()]/g, '')}`,
  }));
}

export function latencyRow(): RowSpec {
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

/**
 * The load generator's own health, which is the measuring agent's: when it read its streams late, its figures are the
 * client's, not the server's. k6's own CPU is not measured: the agent stamps the tokens, so a busy k6 delays request
 * starts, not token times.
 */
export function clientRow(): RowSpec {
  const lag = CLIENT_METRICS.readLag;
  const stall = CLIENT_METRICS.stall;
  return {
    title: 'Load generator',
    collapsed: false,
    panels: [
      {
        type: 'timeseries',
        title: 'Agent read lag p50 / p95 / p99 (longest per request)',
        description: describe(
          lag,
          ' A p99 reaching half the median inter-token latency means tokens start to be read together: the cell is ' +
          "client-bound (the report says which cells). This is the measuring agent's health, not k6's: the agent " +
          'reads the streams and stamps the tokens.' +
            MULTI_RUNNER_NOTE,
        ),
        queries: percentileQueries(lag, LATENCY_STATS),
        unit: grafanaUnit(lag),
        min: 0,
        w: HALF,
        h: 8,
      },
      {
        type: 'timeseries',
        title: 'Machine stalls under the agent p99 / max (longest per request)',
        description: describe(
          stall,
          ' 50 ms or more in 1% of a cell\'s requests makes it client-bound: the machine did not run (a paused ' +
          'VM), so the kernel stamped its bytes late too. Each part\'s stall over all its requests, cut ones too, is ' +
          'in run.json and the bench\'s log.' + MULTI_RUNNER_NOTE,
        ),
        queries: percentileQueries(stall, ['p(99)', 'max']),
        unit: grafanaUnit(stall),
        min: 0,
        w: HALF,
        h: 8,
      },
    ],
  };
}

export function speedRow(): RowSpec {
  const m = REQUEST_METRICS;
  const cells = cellMatchers();
  const speedPanel = (def: MetricDefinition, title: string, limits?: UseCaseLimit['metric']): PanelSpec => ({
    type: 'timeseries',
    title,
    description: describe(def, (limits ? limitsNote(limits) : '') + MULTI_RUNNER_NOTE),
    queries: [
      { expr: trendMean(def, cells, BY_CELL, 'live'), legend: '{{cell}} mean' }, ...percentileQueries(def, ['p(50)']),
    ],
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
      // Empty but for a reasoning model: its thinking, part of the output tokens/s above.
      { ...tokensPanel(m.reasoningTokens, 'Reasoning tokens/s (thinking, within the output)'), w: FULL },
    ],
  };
}
