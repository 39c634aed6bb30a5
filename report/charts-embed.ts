// The Embeddings section's chart, per (input tokens, batch): p99 latency against concurrency with the plan's limit,
// and items per second on the second axis. Runs in Node.

import { lineChart, type ChartSpec } from './charts';
import type { EmbedCapacity } from '../analysis/embed-capacity';
import type { Report } from './report-types';

/** The chart id of one (input, batch) ladder; the section places it by this id. */
export function embedChartId(c: Pick<EmbedCapacity, 'inputTokens' | 'batch'>): string {
  return `embed_i${c.inputTokens}_b${c.batch}`;
}

/** One chart per ladder of the embed part; none without one. */
export function embedCharts(report: Report): ChartSpec[] {
  const e = report.embeddings;
  if (!e) return [];
  const unit = e.kind === 'rerank' ? 'documents' : 'inputs';
  return e.capacities.filter((c) => c.cells.some((f) => f.latencyP99Ms !== null)).map((c) =>
    lineChart({
      xType: 'value', id: embedChartId(c),
      title: `${e.kind === 'rerank' ? 'Rerank' : 'Embeddings'}: ${c.inputTokens}-token ${unit}, ${c.batch} per request`,
      caption: `p99 request latency (the dashed red line is the plan's limit) and ${unit} per second, against ` +
        'concurrent users.',
      xName: 'concurrent users', categories: c.cells.map((f) => String(f.concurrency)),
      yNames: ['ms', `${unit}/s`],
      series: [
        {
          name: 'latency p99', data: c.cells.map((f) => f.latencyP99Ms),
          thresholds: [{ value: c.limitMs, label: `p99 <= ${c.limitMs} ms` }],
        },
        { name: `${unit}/s`, yAxisIndex: 1, dashed: true, data: c.cells.map((f) => f.itemsPerSecond) },
      ],
    }));
}
