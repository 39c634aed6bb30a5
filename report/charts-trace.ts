// The Trace Replay section's charts: the trace's own prompt lengths, output lengths and arrivals over time beside what
// each speed sent, as shares of the rows per bin (so a replay that sent every row as recorded draws over the trace).
// Runs in Node.

import { lineChart, type ChartSpec } from './charts';
import type { Report } from './report-types';
import type { TraceReplayReport } from '../analysis/trace-replay';

type Which = 'inputTokens' | 'outputTokens' | 'arrivalsMs';

const KINDS: readonly { which: Which; id: string; title: string; x: string; caption: string; unit: number }[] = [
  {
    which: 'inputTokens', id: 'trace_input_lengths', title: 'Trace Replay: Prompt Lengths', x: 'prompt tokens',
    caption: "Share of rows per prompt length: the trace's rows, and each speed's requests as the server " +
      'counted them.',
    unit: 1,
  },
  {
    which: 'outputTokens', id: 'trace_output_lengths', title: 'Trace Replay: Output Lengths', x: 'output tokens',
    caption: "Share of rows per output length: the trace's rows, and each speed's answers as the server " +
      'counted them.',
    unit: 1,
  },
  {
    which: 'arrivalsMs', id: 'trace_arrivals', title: 'Trace Replay: Arrivals over the Trace', x: 'trace time (s)',
    caption: 'Share of rows per stretch of trace time: the trace\'s own times, and when each speed sent its requests ' +
      '(times the speed, so they read in trace time; requests that ended).',
    unit: 1000,
  },
];

/** Three charts when the run replayed a trace; none otherwise. */
export function traceCharts(report: Report): ChartSpec[] {
  const t = report.trace;
  return t === null ? [] : KINDS.map((k) => histogramChart(t, k));
}

function histogramChart(t: TraceReplayReport, k: (typeof KINDS)[number]): ChartSpec {
  const h = t.trace.summary.histograms[k.which];
  const share = (counts: readonly number[]): number[] => {
    const total = counts.reduce((a, b) => a + b, 0);
    return counts.map((n) => (total > 0 ? (n / total) * 100 : 0));
  };
  // Each bin at its middle, in the axis unit: whole tokens, tenths of a second.
  const digits = k.unit === 1 ? 1 : 10;
  const categories = h.counts.map((_, i) =>
    String(Math.round(((h.edges[i]! + h.edges[i + 1]!) / 2 / k.unit) * digits) / digits));
  return lineChart({
    id: k.id, title: k.title, caption: k.caption, xName: k.x, categories, yNames: ['% of rows'],
    series: [
      { name: 'trace', data: share(h.counts) },
      ...t.cells.filter((c) => c.sent !== null)
        .map((c) => ({ name: `sent at ${c.speed}x`, data: share(c.sent![k.which]), dashed: true })),
    ],
  });
}
