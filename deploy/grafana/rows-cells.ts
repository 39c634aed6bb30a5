// The per-cell rows of the dashboard (the cells table and one panel per use-case limit), as panel specs. Runs in Node.

import { CAPACITY_TAGS, REQUEST_METRICS, SEARCH_METRICS } from '../../lib/metrics';
import { USE_CASES } from '../../thresholds/use-cases';
import { AGENT_CALLS, K6_BUILTIN_SERIES } from './k6-builtins';
import { limitMetric, lowerIsBetter, thresholdSteps } from './limits';
import { FULL, MULTI_RUNNER_NOTE, TABLE_LABELS, THIRD, type PanelSpec, type RowSpec } from './panel-spec';
import {
  cellMatchers, lastOverRange, series, testidMatchers, totalOverRange, trendMean, trendPercentile,
} from './promql';
import { counterSeries, gaugeSeries, grafanaUnit, toRemoteWriteUnit } from './remote-write';

export function perCellRow(): RowSpec {
  const m = REQUEST_METRICS;
  const cells = cellMatchers();
  const agentCalls = [...cellMatchers({}, false), AGENT_CALLS];
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
    {
      name: 'Decode mean',
      unit: grafanaUnit(m.decodeSpeed),
      expr: trendMean(m.decodeSpeed, cells, TABLE_LABELS, 'final'),
    },
    {
      name: 'Prefill mean',
      unit: grafanaUnit(m.prefillSpeed),
      expr: trendMean(m.prefillSpeed, cells, TABLE_LABELS, 'final'),
    },
    { name: 'Output tokens', unit: 'short', expr: totalOverRange(counterSeries(m.outputTokens), cells, TABLE_LABELS) },
    // k6's calls to the measuring agent, one per request; they carry no phase tag, so warm-up requests count too.
    { name: 'Requests', unit: 'short', expr: totalOverRange(K6_BUILTIN_SERIES.httpReqs, agentCalls, TABLE_LABELS) },
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
          `the worst runner's; means are exact. Requests are every request the cell ended, warm-up included (k6's ` +
          `calls to the measuring agent, one per request, which carry no phase tag); the other columns are of its ` +
          `measured requests.${MULTI_RUNNER_NOTE}`,
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

/**
 * The bench search's capacity per use case with its 95% interval and the limit that set it (llm_capacity_users,
 * pushed as each use case's search ends): "capacity 73, interval 69-76, speed > 10 tok/s".
 */
function capacityTable(): PanelSpec {
  const name = gaugeSeries(SEARCH_METRICS.capacityUsers);
  const bound = (value: string) =>
    `max by (${CAPACITY_TAGS.useCase}, ${CAPACITY_TAGS.limit}) (${lastOverRange(series(name, [
      ...testidMatchers(), { label: CAPACITY_TAGS.bound, op: '=', value },
    ]))})`;
  const columns = [
    { name: 'Capacity (users)', bound: 'capacity' },
    { name: '95% interval low', bound: 'interval_low' },
    { name: '95% interval high', bound: 'interval_high' },
  ];
  return {
    type: 'table',
    title: 'Capacity per use case (npm run bench search)',
    description: 'Each use case\'s capacity as the bench\'s capacity search found it, with its 95% interval (a ' +
      'bootstrap over each step\'s measured requests) and the limit that set it (column limit). Pushed by the script ' +
      'as each search ends; empty for runs not driven by npm run bench. An empty high: open above the largest step.',
    queries: columns.map((c) => ({ expr: bound(c.bound), legend: c.name, table: true })),
    columns: columns.map((c) => ({ name: c.name, unit: 'short' })),
    unit: 'short',
    decimals: 0,
    w: FULL,
    h: 6,
  };
}

export function useCaseRow(): RowSpec {
  const panels: PanelSpec[] = [capacityTable()];
  for (const uc of USE_CASES) {
    for (const limit of uc.limits) {
      const def = limitMetric(limit);
      const value = toRemoteWriteUnit(def, limit.value);
      panels.push({
        type: 'timeseries',
        title: `${uc.title}: ${limit.label}`,
        description: `${uc.description} Per-cell mean of ${def.name} (use_case="${uc.id}") against the limit ` +
          `${limit.label}, drawn dashed. The plan checks the mean by default (limitStat); a cell whose line stays ` +
          'on the good side passes.',
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
