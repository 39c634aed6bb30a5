// The per-cell rows of the dashboard (the cells table and one panel per use-case limit), as panel specs. Runs in Node.

import { REQUEST_METRICS } from '../../lib/metrics';
import { USE_CASES } from '../../thresholds/use-cases';
import { K6_BUILTIN_SERIES } from './k6-builtins';
import { limitMetric, lowerIsBetter, thresholdSteps } from './limits';
import { FULL, MULTI_RUNNER_NOTE, TABLE_LABELS, THIRD, type PanelSpec, type RowSpec } from './panel-spec';
import { cellMatchers, totalOverRange, trendMean, trendPercentile } from './promql';
import { counterSeries, grafanaUnit, toRemoteWriteUnit } from './remote-write';

export function perCellRow(): RowSpec {
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

export function useCaseRow(): RowSpec {
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
