// The Agentic Workloads section's chart: TTFT p90 and output speed p25 against concurrent agents, each tier's limits
// dashed and its capacity marked. Runs in Node.

import { tierLimitLabel } from '../thresholds/agentic';
import { lineChart, type ChartSpec } from './charts';
import type { Report } from './report-types';

/** One chart of the tiers; none without an agentic part with steps. */
export function agenticCharts(report: Report): ChartSpec[] {
  const a = report.agentic;
  if (a === null || a.steps.length === 0) return [];
  const limitsOn = (metric: 'ttft' | 'decodeSpeed', stat: string, scale: number) =>
    a.tiers.flatMap((t) => t.tier.limits.filter((l) => l.metric === metric && l.stat === stat)
      .map((l) => ({ value: l.value / scale, label: `${t.tier.id}: ${tierLimitLabel(l)}` })));
  const marks = a.tiers.filter((t) => t.capacity !== null)
    .map((t) => ({ value: t.capacity!, label: `${t.tier.id}: ${t.kind === 'beyond' ? '>' : ''}${t.capacity}` }));
  return [lineChart({
    id: 'agentic_tiers',
    title: 'Concurrent Agents per SLO Tier',
    caption: "TTFT p90 and output speed p25 of each step's measured calls, with each tier's limits (dashed) and the " +
      `agents it holds at (grey)${a.search ? '; the steps were searched around each tier\'s boundary' : ''}.`,
    xName: 'Concurrent agents',
    xType: 'value',
    categories: a.steps.map((s) => String(s.agents)),
    yNames: ['TTFT p90 (s)', 'speed p25 (tok/s)'],
    series: [
      {
        name: 'TTFT p90', data: a.steps.map((s) => (s.ttftP90Ms === null ? null : s.ttftP90Ms / 1000)),
        thresholds: limitsOn('ttft', 'p(90)', 1000), xMarks: marks,
      },
      {
        name: 'speed p25', data: a.steps.map((s) => s.speedP25), yAxisIndex: 1, dashed: true,
        thresholds: limitsOn('decodeSpeed', 'p(25)', 1),
      },
    ],
  })];
}
