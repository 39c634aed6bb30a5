// The Open-Loop Load section's charts, per use case of the rate part: latency against the offered rate (TTFT p50 and
// p99 from the intended send, TPOT p50 and p99) with the use case's limits, and the achieved against the offered rate.
// Runs in Node.

import type { CellStats } from '../analysis/cells';
import { lineChart, type ChartSpec, type SeriesIn } from './charts';
import type { RateCapacity } from '../analysis/rate-capacity';
import type { Report } from './report-types';

/** Two charts per use case of the rate part; none without one. */
export function rateCharts(report: Report): ChartSpec[] {
  return report.rates.flatMap((r) => {
    const cells = report.cells
      .filter((c) => r.cellIds.includes(c.id) && c.requests > 0 && c.openLoop !== null)
      .sort((a, b) => a.openLoop!.offeredRate - b.openLoop!.offeredRate);
    return cells.length === 0 ? [] : [latencyChart(r, cells), achievedChart(r, cells)];
  });
}

function latencyChart(r: RateCapacity, cells: readonly CellStats[]): ChartSpec {
  const seconds = (v: number | undefined): number | null => (v === undefined ? null : v / 1000);
  const ttftLimit = r.useCase.limits.find((l) => l.metric === 'ttft');
  const tpotLimit = r.useCase.limits.find((l) => l.metric === 'tpot');
  const series: SeriesIn[] = [
    {
      name: 'TTFT p50 (from intended send)', data: cells.map((c) => seconds(c.metrics.ttftIntended?.p50)),
      thresholds: ttftLimit ? [{ value: ttftLimit.value / 1000, label: ttftLimit.label }] : [],
    },
    { name: 'TTFT p99 (from intended send)', data: cells.map((c) => seconds(c.metrics.ttftIntended?.p99)) },
    {
      name: 'TPOT p50', yAxisIndex: 1, dashed: true, data: cells.map((c) => c.metrics.tpot?.p50 ?? null),
      thresholds: tpotLimit ? [{ value: tpotLimit.value, label: tpotLimit.label }] : [],
    },
    { name: 'TPOT p99', yAxisIndex: 1, dashed: true, data: cells.map((c) => c.metrics.tpot?.p99 ?? null) },
  ];
  return lineChart({
    xType: 'value', id: `rate_latency_${r.useCase.id}`, title: `${r.useCase.title}: Latency against Offered Rate`,
    caption: 'TTFT from each request\'s intended send (what a user arriving on the schedule saw) and time per output ' +
      'token, p50 and p99 of each rate cell; dashed red lines are the use case\'s limits.',
    xName: 'offered requests/s', categories: cells.map((c) => String(c.openLoop!.offeredRate)),
    yNames: ['seconds', 'ms per token'], series,
  });
}

function achievedChart(r: RateCapacity, cells: readonly CellStats[]): ChartSpec {
  const offered = cells.map((c) => c.openLoop!.offeredRate);
  return lineChart({
    xType: 'value', id: `rate_achieved_${r.useCase.id}`, title: `${r.useCase.title}: Achieved against Offered Rate`,
    caption: 'Requests per second the sender achieved against those it offered (the line of equality dotted), ' +
      'and the requests per second that ended within every limit (goodput x achieved).',
    xName: 'offered requests/s', categories: offered.map(String), yNames: ['requests/s'],
    series: [
      { name: 'offered', data: offered, dashed: true },
      { name: 'achieved', data: cells.map((c) => c.openLoop!.achievedRate) },
      {
        name: 'within every limit',
        data: cells.map((c) => (c.goodput === null || c.openLoop!.achievedRate === null ? null
          : c.goodput * c.openLoop!.achievedRate)),
      },
    ],
  });
}
